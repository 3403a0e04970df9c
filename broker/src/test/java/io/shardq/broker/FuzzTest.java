package io.shardq.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.selector.Selector;
import io.shardq.broker.shard.BrokerSession;
import io.shardq.broker.shard.Delivery;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Generated input, from a fixed seed ({@code -Dshardq.fuzz.seed=N} for another; the seed is
 * printed): selectors, destination names, property names and values, message sizes. Each either
 * works or is refused with a ShardQ error of the right kind whose text is bounded and carries no
 * SQL; nothing hangs, and nothing touches another destination.
 */
@PgTest
@Tag("fuzz")
class FuzzTest {
    static final long SEED = Long.getLong("shardq.fuzz.seed", 20261123L);
    static final String[] WORDS = {
        "a",
        "color",
        "JMSPriority",
        "JMSType",
        "JMSMessageID",
        "x_1",
        "$y",
        "AND",
        "OR",
        "NOT",
        "LIKE",
        "IN",
        "BETWEEN",
        "IS",
        "NULL",
        "TRUE",
        "FALSE",
        "ESCAPE",
        "'red'",
        "'%a_'",
        "'it''s'",
        "1",
        "-2",
        "3.5e10",
        "0x1F",
        "007",
        "(",
        ")",
        ",",
        "=",
        "<>",
        "<",
        ">=",
        "+",
        "-",
        "*",
        "/",
        "'",
        "\"",
        ";",
        "--",
        "/*",
        "DROP TABLE shardq.destination",
        "'; DELETE FROM shardq.cursor; --",
        "\u00e9t\u00e9",
        "\ud83d\ude00",
        "\ud800",
        "XPATH",
        "9999999999999999999999",
        " ",
        "\t",
        "\n",
        "\u0000"
    };

    final Random random = new Random(SEED);
    int inputs;

    @Test
    void generatedInput_isAcceptedOrRefusedCleanly_andTouchesNothingElse(TestDatabase db) {
        System.out.println("FuzzTest seed " + SEED);
        try (Broker broker = Broker.start(db.brokerConfig().build())) {
            broker.admin().queues().create("fuzz.sentinel", QueueOptions.DEFAULTS.withShards(1));
            try (BrokerSession s = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
                s.send("fuzz.sentinel", Messages.text("untouched", Map.of("k", 1)));
            }
            assertTimeoutPreemptively(Duration.ofMinutes(3), () -> selectors(6000));
            assertTimeoutPreemptively(Duration.ofMinutes(3), () -> destinationNames(broker, 2000));
            assertTimeoutPreemptively(Duration.ofMinutes(3), () -> properties(broker, 2000));
            assertTimeoutPreemptively(Duration.ofMinutes(3), () -> sizes(broker, 40));

            assertThat(broker.admin().queues().backlog("fuzz.sentinel")).isEqualTo(1);
            try (BrokerSession s = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
                Delivery d = s.receive("fuzz.sentinel", 5000, false);
                assertThat(Messages.body(d.message())).isEqualTo("untouched");
                assertThat(d.message().properties()).containsEntry("k", 1);
            }
        }
        System.out.println("FuzzTest: " + inputs + " generated inputs (seed " + SEED + ")");
        assertThat(inputs).isGreaterThanOrEqualTo(10_000);
    }

    private void selectors(int n) {
        List<BrokerMessage> probes = List.of(
                Messages.text("p", Map.of("color", "red", "a", 1, "x_1", 2.5, "$y", true)),
                Messages.text("q", Map.of("a", "1", "color", 7L)),
                Messages.text("r", Map.of()));
        for (int i = 0; i < n; i++) {
            String text = i % 3 == 0 ? garbage(1 + random.nextInt(60)) : expression(random.nextInt(6));
            if (i % 500 == 0) {
                text = "a + " + "(a + ".repeat(1000 + random.nextInt(3000)) + "1" + ")".repeat(4000);
            }
            inputs++;
            Selector sel;
            try {
                sel = Selector.compile(text);
            } catch (ShardQException e) {
                assertThat(e.kind()).as(text).isEqualTo(ErrorKind.INVALID_SELECTOR);
                assertClean(e.getMessage(), text);
                continue;
            } catch (RuntimeException | StackOverflowError e) {
                fail("selector " + cut(text) + " threw " + e);
                return;
            }
            for (BrokerMessage m : probes) {
                if (sel != null) {
                    sel.matches(m); // never throws: an evaluation error is a non-match
                }
            }
        }
    }

    private void destinationNames(Broker broker, int n) {
        for (int i = 0; i < n; i++) {
            String name =
                    switch (i % 4) {
                        case 0 -> garbage(1 + random.nextInt(80));
                        case 1 -> "fuzz." + word() + random.nextInt(1000);
                        case 2 -> word() + "." + garbage(1 + random.nextInt(10));
                        default -> "q" + "x".repeat(random.nextInt(300));
                    };
            inputs++;
            try {
                broker.admin().queues().create(name, QueueOptions.DEFAULTS.withShards(1));
                broker.admin().queues().drop(name, true);
            } catch (ShardQException e) {
                assertThat(e.kind())
                        .as(name)
                        .isIn(ErrorKind.INVALID_NAME, ErrorKind.DESTINATION_EXISTS, ErrorKind.INVALID_ARGUMENT);
                assertClean(e.getMessage(), name);
            }
        }
    }

    private void properties(Broker broker, int n) {
        broker.admin().queues().create("fuzz.props", QueueOptions.DEFAULTS.withShards(2));
        Map<String, Map<String, Object>> sent = new HashMap<>();
        try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            for (int i = 0; i < n; i++) {
                Map<String, Object> props = new HashMap<>();
                for (int k = 0; k < 1 + random.nextInt(3); k++) {
                    props.put(random.nextInt(4) == 0 ? garbage(1 + random.nextInt(20)) : word() + k, value());
                }
                inputs++;
                String id = "m" + i;
                BrokerMessage m;
                try {
                    m = Messages.text(id, props);
                } catch (IllegalArgumentException e) {
                    assertClean(e.getMessage(), props.toString());
                    continue;
                }
                s.send("fuzz.props", m);
                sent.put(id, props);
                if (i % 100 == 99) {
                    s.commit();
                }
            }
            s.commit();
        }
        int received = 0;
        try (BrokerSession s = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
            Delivery d;
            while ((d = s.receive("fuzz.props", 1000, false)) != null) {
                String id = Messages.body(d.message());
                assertThat(d.message().properties()).as(id).isEqualTo(sent.get(id));
                received++;
            }
        }
        assertThat(received).isEqualTo(sent.size());
    }

    private void sizes(Broker broker, int n) {
        broker.admin().queues().create("fuzz.sizes", QueueOptions.DEFAULTS.withShards(1));
        for (int i = 0; i < n; i++) {
            int size =
                    switch (i % 4) {
                        case 0 -> 0;
                        case 1 -> random.nextInt(100);
                        case 2 -> random.nextInt(200_000);
                        default -> 1_000_000 + random.nextInt(1_000_000);
                    };
            byte[] body = new byte[size];
            random.nextBytes(body);
            inputs++;
            try (BrokerSession s = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
                s.send("fuzz.sizes", Messages.bytes(body));
                Delivery d = s.receive("fuzz.sizes", 5000, false);
                assertThat(d.message().body()).isEqualTo(body);
            }
        }
    }

    /** Error texts name the problem: bounded, no SQL, no stack of the input. */
    private static void assertClean(String message, String input) {
        assertThat(message).isNotNull();
        assertThat(message.length()).as("error for %s", cut(input)).isLessThan(700);
        assertThat(message).doesNotContain("INSERT INTO", "UPDATE shardq", "SELECT shardq", "Exception:");
    }

    private String expression(int depth) {
        if (depth == 0) {
            return word();
        }
        return switch (random.nextInt(6)) {
            case 0 -> expression(depth - 1) + " " + word() + " " + expression(depth - 1);
            case 1 -> "(" + expression(depth - 1) + ")";
            case 2 -> "NOT " + expression(depth - 1);
            case 3 -> word() + " IN (" + word() + ", " + word() + ")";
            case 4 -> word() + " BETWEEN " + word() + " AND " + word();
            default -> word() + " LIKE " + word();
        };
    }

    private String word() {
        return WORDS[random.nextInt(WORDS.length)];
    }

    private String garbage(int length) {
        StringBuilder sb = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            int kind = random.nextInt(10);
            sb.append(kind < 5 ? (char) (32 + random.nextInt(95)) : kind < 8 ? word() : (char) random.nextInt(0x10000));
        }
        return sb.toString();
    }

    private Object value() {
        return switch (random.nextInt(7)) {
            case 0 -> garbage(random.nextInt(40));
            case 1 -> random.nextInt();
            case 2 -> random.nextLong();
            case 3 -> random.nextDouble();
            case 4 -> random.nextBoolean();
            case 5 -> (short) random.nextInt();
            default -> (byte) random.nextInt();
        };
    }

    private static String cut(String s) {
        return s.length() <= 80 ? s : s.substring(0, 80) + "...";
    }
}
