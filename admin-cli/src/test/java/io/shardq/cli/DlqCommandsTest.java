package io.shardq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.shardq.broker.Broker;
import io.shardq.broker.browse.BrowsedMessage;
import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.shard.BrokerSession;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@PgTest
class DlqCommandsTest {
    @TempDir
    Path tmp;

    CliRunner cli;

    @BeforeEach
    void setUp(TestDatabase db) {
        cli = new CliRunner(db, tmp);
    }

    @Test
    void list_showsReasonAndOrigin_thenRequeueMovesThemBackWithoutDeadLetterProperties() {
        cli.run("queue", "create", "pay", "--max-attempts", "1", "--shards", "1");
        cli.run("queue", "create", "ship", "--max-attempts", "1", "--shards", "1");
        cli.run("queue", "alter", "ship", "--dead-letter-queue", "pay.DLQ"); // shared with pay
        assertThat(cli.run("dlq", "list", "pay").out())
                .isEqualTo("no dead letters: pay's dead-letter queue pay.DLQ does not exist yet (the first dead"
                        + " letter creates it)\n");
        try (Broker app = cli.broker("payments")) {
            CliRunner.send(
                    app,
                    "pay",
                    IntStream.range(0, 3)
                            .mapToObj(i -> Messages.text("p" + i, Map.of("n", i)))
                            .toList());
            failEveryDelivery(app, "pay", 3);
            CliRunner.send(app, "ship", List.of(Messages.text("s0"), Messages.text("s1")));
            failEveryDelivery(app, "ship", 2);
        }
        assertThat(cli.backlog("pay")).isZero();
        assertThat(cli.backlog("pay.DLQ")).isEqualTo(5);

        CliRunner.Run list = cli.run("dlq", "list", "pay");
        assertThat(list.exit()).as(list.err()).isZero();
        assertThat(list.out())
                .containsPattern("DEAD SINCE\\s+MESSAGE ID\\s+FROM\\s+BODY\\s+REASON")
                .containsPattern("pay\\s+\"p0\"\\s+delivery failed 1 times; pay allows 1 attempts")
                .doesNotContain("\"s0\"")
                .endsWith("(3 shown; 5 messages in pay.DLQ; move them back with: shardq dlq requeue pay)\n");
        JsonNode j = cli.run("dlq", "list", "pay", "--json").json();
        assertThat(j).hasSize(3);
        assertThat(j.get(0).get("originalDestination").asText()).isEqualTo("pay");
        assertThat(j.get(0).get("reason").asText()).startsWith("delivery failed 1 times");
        assertThat(j.get(0).get("message").get("properties").has("JMS_ShardQ_DeadLetterReason"))
                .isTrue();
        assertThat(cli.backlog("pay.DLQ")).as("list consumes nothing").isEqualTo(5);

        CliRunner.Run requeue = cli.run("dlq", "requeue", "pay", "--batch", "2");
        assertThat(requeue.exit()).as(requeue.err()).isZero();
        assertThat(requeue.out())
                .isEqualTo("requeued 3 messages from pay.DLQ to pay; 2 messages remain in pay.DLQ (dead letters of"
                        + " other queues)\n");
        assertThat(cli.backlog("pay")).isEqualTo(3);
        CliRunner.Run shipLetters = cli.run("dlq", "list", "ship", "--json");
        assertThat(shipLetters.json()).hasSize(2);
        assertThat(shipLetters.json().get(0).get("originalDestination").asText())
                .isEqualTo("ship");
        assertThat(cli.run("dlq", "list", "pay").out()).startsWith("no dead letters of pay in pay.DLQ");

        try (Broker app = cli.broker("checker")) {
            List<BrowsedMessage> back = app.browse("pay", 10);
            assertThat(back).hasSize(3);
            for (BrowsedMessage b : back) {
                BrokerMessage m = b.message();
                assertThat(m.properties()).containsOnlyKeys("n");
                assertThat(Messages.body(m)).isEqualTo("p" + m.properties().get("n"));
            }
        }
    }

    @Test
    void drain_createsAMissingDeadLetterQueue_whenAMessageReachedItsMaxAttempts() throws Exception {
        cli.run("queue", "create", "poison", "--max-attempts", "1", "--shards", "1");
        try (Broker app = cli.broker("consumer")) {
            CliRunner.send(
                    app,
                    "poison",
                    IntStream.range(0, 2).mapToObj(i -> Messages.text("x" + i)).toList());
            try (BrokerSession s = app.openSession(BrokerSession.Mode.TRANSACTED)) {
                assertThat(s.receive("poison", 5000, false)).isNotNull();
                s.rollback(); // attempt 1 of 1 for the first message: its next delivery dead-letters it
            }
        }
        Path out = tmp.resolve("poison.jsonl");
        CliRunner.Run r = cli.run("queue", "drain", "poison", "--to", out.toString());

        assertThat(r.exit()).as(r.err()).isZero();
        // the engine creates a missing dead-letter queue itself, even with auto-create off
        assertThat(r.err()).doesNotContain("Exception");
        assertThat(r.out()).startsWith("drained 1 message from queue poison");
        assertThat(CliRunner.ids(out)).hasSize(1);
        assertThat(cli.backlog("poison")).isZero();
        assertThat(cli.backlog("poison.DLQ")).isEqualTo(1);
    }

    /** Receives and rolls back until every message went to the dead-letter queue. */
    private static void failEveryDelivery(Broker app, String queue, int messages) {
        try (BrokerSession s = app.openSession(BrokerSession.Mode.TRANSACTED)) {
            for (int i = 0; i < messages; i++) {
                assertThat(s.receive(queue, 5000, false)).isNotNull();
            }
            s.rollback();
            assertThat(s.receive(queue, 500, false)).isNull(); // each is dead-lettered on the way
            s.commit();
        }
    }
}
