package io.shardq.cli;

import static io.shardq.cli.CliRunner.assertOneLineError;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.message.BrokerMessage.BodyType;
import io.shardq.broker.message.TextBody;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@PgTest
class QueueDrainLoadCommandsTest {
    /** Every property type, a bytes body, unicode text, a null text; written by hand, not by the CLI. */
    static final String FILE = String.join(
            "\n",
            "{\"messageId\":\"ID:one\",\"bodyType\":\"TEXT\",\"timestamp\":1700000000123,\"correlationId\":\"c-1\","
                    + "\"type\":\"Greeting\",\"replyTo\":\"replies\",\"priority\":7,\"expiration\":4102444800000,"
                    + "\"deliverAt\":0,\"persistent\":true,\"properties\":{"
                    + "\"b\":{\"type\":\"boolean\",\"value\":true},"
                    + "\"y\":{\"type\":\"byte\",\"value\":-128},"
                    + "\"s\":{\"type\":\"short\",\"value\":32767},"
                    + "\"i\":{\"type\":\"int\",\"value\":5},"
                    + "\"l\":{\"type\":\"long\",\"value\":9223372036854775807},"
                    + "\"f\":{\"type\":\"float\",\"value\":0.1},"
                    + "\"fn\":{\"type\":\"float\",\"value\":\"NaN\"},"
                    + "\"d\":{\"type\":\"double\",\"value\":0.30000000000000004},"
                    + "\"di\":{\"type\":\"double\",\"value\":\"-Infinity\"},"
                    + "\"t\":{\"type\":\"string\",\"value\":\"caf\u00e9 \u6f22\u5b57\"}},"
                    + "\"body\":\"h\u00e9llo w\u00f6rld \u6f22\u5b57 \uD83D\uDE80\\n\\\"quoted\\\"\"}",
            "",
            "{\"messageId\":\"ID:two\",\"bodyType\":\"BYTES\",\"timestamp\":1,\"priority\":0,"
                    + "\"body\":\""
                    + Base64.getEncoder().encodeToString(new byte[] {0, 1, (byte) 0xFF, (byte) 0x80, 10})
                    + "\"}",
            "{\"messageId\":\"ID:three\",\"bodyType\":\"TEXT\",\"body\":null}",
            "{\"messageId\":\"ID:four\",\"bodyType\":\"NONE\",\"persistent\":false}",
            "");

    @TempDir
    Path tmp;

    CliRunner cli;

    @BeforeEach
    void setUp(TestDatabase db) {
        cli = new CliRunner(db, tmp);
    }

    @Test
    void load_withSpread_putsAQuarterOnEachOfFourShards_andWithoutItAllOnOne(TestDatabase db) throws Exception {
        StringBuilder file = new StringBuilder();
        for (int i = 0; i < 4000; i++) {
            file.append("{\"messageId\":\"ID:m")
                    .append(i)
                    .append("\",\"bodyType\":\"TEXT\",\"body\":\"m")
                    .append(i)
                    .append("\"}\n");
        }
        Path in = Files.writeString(tmp.resolve("many.jsonl"), file, StandardCharsets.UTF_8);
        cli.run("queue", "create", "spread", "--shards", "4");
        CliRunner.Run load = cli.run("queue", "load", "spread", "--from", in.toString(), "--batch", "100", "--spread");
        assertThat(load.exit()).as(load.err()).isZero();
        assertThat(perShard(db, "spread"))
                .as("messages per shard with --spread")
                .hasSize(4)
                .allSatisfy(n -> assertThat(n).isBetween(1000L - 100, 1000L + 100));

        cli.run("queue", "create", "whole", "--shards", "4");
        CliRunner.Run plain = cli.run("queue", "load", "whole", "--from", in.toString(), "--batch", "100");
        assertThat(plain.exit()).as(plain.err()).isZero();
        assertThat(perShard(db, "whole"))
                .as("messages per shard without --spread")
                .containsOnlyOnce(4000L);
    }

    /** Messages stored on each shard of a queue (its head), by shard number. */
    private static List<Long> perShard(TestDatabase db, String queue) throws Exception {
        try (java.sql.Connection c = db.connect();
                java.sql.PreparedStatement ps = c.prepareStatement(
                        "SELECT s.next_seq - 1 FROM shardq.shard s"
                                + " JOIN shardq.destination d ON d.id = s.destination_id WHERE d.name = ? ORDER BY s.shard_no")) {
            ps.setString(1, queue);
            List<Long> out = new java.util.ArrayList<>();
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getLong(1));
                }
            }
            return out;
        }
    }

    @Test
    void loadThenDrain_keepsBodiesHeadersAndTypedPropertiesExactly() throws Exception {
        cli.run("queue", "create", "rt", "--shards", "1");
        Path in = Files.writeString(tmp.resolve("in.jsonl"), FILE, StandardCharsets.UTF_8);
        List<BrokerMessage> expected = CliRunner.messages(in);

        CliRunner.Run load = cli.run("queue", "load", "rt", "--from", in.toString(), "--batch", "2");
        assertThat(load.exit()).as(load.err()).isZero();
        assertThat(load.out()).startsWith("loaded 4 messages from " + in + " into queue rt in ");
        assertThat(load.err()).contains("1 message marked non-persistent was stored persistently");
        assertThat(cli.backlog("rt")).isEqualTo(4);

        Path out = tmp.resolve("out.jsonl");
        CliRunner.Run drain = cli.run("queue", "drain", "rt", "--to", out.toString(), "--batch", "3");
        assertThat(drain.exit()).as(drain.err()).isZero();
        assertThat(drain.out())
                .startsWith("drained 4 messages from queue rt to " + out)
                .endsWith("; the queue is empty\n");
        assertThat(cli.backlog("rt")).isZero();

        List<BrokerMessage> actual = CliRunner.messages(out);
        // drained in delivery order: "two", of priority 0, after the others (of the default, 4)
        assertThat(actual.stream().map(BrokerMessage::messageId))
                .containsExactly("ID:one", "ID:three", "ID:four", "ID:two");
        for (int i = 0; i < 4; i++) {
            BrokerMessage a = actual.get(i);
            BrokerMessage e = expected.stream()
                    .filter(x -> x.messageId().equals(a.messageId()))
                    .findFirst()
                    .orElseThrow();
            assertThat(a.messageId()).isEqualTo(e.messageId());
            assertThat(a.bodyType()).isEqualTo(e.bodyType());
            assertThat(a.body()).isEqualTo(e.body());
            assertThat(a.timestamp()).isEqualTo(e.timestamp());
            assertThat(a.correlationId()).isEqualTo(e.correlationId());
            assertThat(a.type()).isEqualTo(e.type());
            assertThat(a.replyTo()).isEqualTo(e.replyTo());
            assertThat(a.priority()).isEqualTo(e.priority());
            assertThat(a.expiration()).isEqualTo(e.expiration());
            assertThat(a.persistent()).isTrue();
            assertThat(a.properties()).isEqualTo(e.properties());
            a.properties().forEach((k, v) -> assertThat(v.getClass())
                    .as(k)
                    .isEqualTo(e.properties().get(k).getClass()));
        }
        Map<String, Object> p = actual.get(0).properties();
        assertThat(p.get("y")).isEqualTo((byte) -128);
        assertThat(p.get("s")).isEqualTo((short) 32767);
        assertThat(p.get("l")).isEqualTo(Long.MAX_VALUE);
        assertThat(p.get("f")).isEqualTo(0.1f);
        assertThat((Float) p.get("fn")).isNaN();
        assertThat(p.get("d")).isEqualTo(0.1 + 0.2);
        assertThat(p.get("di")).isEqualTo(Double.NEGATIVE_INFINITY);
        assertThat(new String(actual.get(0).body(), StandardCharsets.UTF_8))
                .isEqualTo("h\u00e9llo w\u00f6rld \u6f22\u5b57 \uD83D\uDE80\n\"quoted\"");
        assertThat(actual.get(3).body()).containsExactly(0, 1, 0xFF, 0x80, 10);
        assertThat(actual.get(1).body()).containsExactly(0xFF); // the JMS layer's null text
        String firstLine = Files.readAllLines(out).get(0);
        assertThat(firstLine).contains("\"body\":\"h\u00e9llo").contains("\"y\":{\"type\":\"byte\",\"value\":-128}");
        assertThat(Files.readAllLines(out).get(1)).contains("\"body\":null");
    }

    @Test
    void drainToStdout_printsOnlyJsonLines_withTheSummaryOnStderr_andHonoursMax() throws Exception {
        cli.run("queue", "create", "so");
        Path in = Files.writeString(tmp.resolve("so.jsonl"), FILE, StandardCharsets.UTF_8);
        cli.run("queue", "load", "so", "--from", in.toString());

        CliRunner.Run r = cli.run("queue", "drain", "so", "--max", "3", "--batch", "2");

        assertThat(r.exit()).as(r.err()).isZero();
        List<String> lines = r.out().lines().toList();
        assertThat(lines).hasSize(3);
        for (String line : lines) {
            JsonNode n = Json.MAPPER.readTree(line);
            assertThat(n.get("messageId").asText()).startsWith("ID:");
        }
        assertThat(r.err())
                .startsWith("drained 3 messages from queue so to stdout")
                .endsWith("; 1 message remains\n");
        assertThat(cli.backlog("so")).isEqualTo(1);
    }

    @Test
    void drainWithSelector_takesOnlyMatchingMessages_andLeavesTheOthersInOrder() throws Exception {
        cli.run("queue", "create", "sel", "--shards", "1");
        StringBuilder file = new StringBuilder();
        for (int i = 0; i < 12; i++) {
            file.append("{\"messageId\":\"ID:sel-")
                    .append(i)
                    .append("\",\"bodyType\":\"TEXT\",\"body\":\"b")
                    .append(i)
                    .append("\",\"properties\":{\"region\":{\"type\":\"string\",\"value\":\"")
                    .append(i % 3 == 0 ? "eu" : "us")
                    .append("\"}}}\n");
        }
        Path in = Files.writeString(tmp.resolve("sel.jsonl"), file);
        cli.run("queue", "load", "sel", "--from", in.toString());

        Path eu = tmp.resolve("eu.jsonl");
        CliRunner.Run r =
                cli.run("queue", "drain", "sel", "--selector", "region = 'eu'", "--to", eu.toString(), "--batch", "2");

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out())
                .startsWith("drained 4 messages matching region = 'eu' from queue sel to " + eu)
                .endsWith("; no other message matches (8 messages remain)\n");
        assertThat(CliRunner.ids(eu)).containsExactly("ID:sel-0", "ID:sel-3", "ID:sel-6", "ID:sel-9");
        assertThat(cli.run("queue", "list").out()).containsPattern("sel .*\\s8\\n");
        JsonNode left = cli.run("queue", "browse", "sel", "--json").json();
        assertThat(left).hasSize(8);
        assertThat(left.get(0).get("message").get("messageId").asText()).isEqualTo("ID:sel-1");

        Path rest = tmp.resolve("rest.jsonl");
        CliRunner.Run all = cli.run("queue", "drain", "sel", "--to", rest.toString());
        assertThat(all.out()).contains("; the queue is empty");
        assertThat(CliRunner.ids(rest))
                .containsExactly(
                        "ID:sel-1",
                        "ID:sel-2",
                        "ID:sel-4",
                        "ID:sel-5",
                        "ID:sel-7",
                        "ID:sel-8",
                        "ID:sel-10",
                        "ID:sel-11");

        CliRunner.Run bad = cli.run("queue", "drain", "sel", "--selector", "i = = 5");
        assertOneLineError(bad);
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.err()).startsWith("shardq: selector \"i = = 5\" is invalid");
    }

    @Test
    void drain_refusesToOverwriteAFile() throws Exception {
        cli.run("queue", "create", "ow");
        Path existing = Files.writeString(tmp.resolve("keep.jsonl"), "precious\n");
        CliRunner.Run r = cli.run("queue", "drain", "ow", "--to", existing.toString());
        assertOneLineError(r);
        assertThat(r.err()).contains("exists already").contains("--append");
        assertThat(Files.readString(existing)).isEqualTo("precious\n");
    }

    @Test
    void load_checksTheWholeFileFirst_andNamesTheBadLine() throws Exception {
        cli.run("queue", "create", "badfile");
        Path in = Files.writeString(
                tmp.resolve("bad.jsonl"),
                FILE + "{\"bodyType\":\"TEXT\",\"properties\":{\"x\":{\"type\":\"byte\",\"value\":300}}}\n");

        CliRunner.Run r = cli.run("queue", "load", "badfile", "--from", in.toString());

        assertOneLineError(r);
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).isEqualTo("shardq: " + in + " line 6: property \"x\" is 300: expected -128 to 127\n");
        assertThat(cli.backlog("badfile")).isZero();
    }

    @Test
    void load_ignoresTheCutOffLastLineOfAnInterruptedDrain_andResumesWithSkip() throws Exception {
        cli.run("queue", "create", "cut");
        Path in = Files.writeString(tmp.resolve("cut.jsonl"), FILE + "{\"messageId\":\"ID:fi");

        CliRunner.Run r = cli.run("queue", "load", "cut", "--from", in.toString(), "--skip", "1");

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.err()).contains("ignored the incomplete last line of " + in);
        assertThat(r.out()).startsWith("loaded 3 messages from").endsWith(", after skipping 1\n");
        assertThat(cli.backlog("cut")).isEqualTo(3);
    }

    @Test
    void load_toAStoppedQueue_isRefused() throws Exception {
        cli.run("queue", "create", "closed");
        cli.run("queue", "stop", "closed", "--enqueue");
        Path in = Files.writeString(tmp.resolve("c.jsonl"), FILE);
        CliRunner.Run r = cli.run("queue", "load", "closed", "--from", in.toString());
        assertOneLineError(r);
        assertThat(r.err())
                .isEqualTo("shardq: enqueue is stopped on queue closed (start it: shardq queue start"
                        + " closed --enqueue)\n");
    }

    @Test
    void load_takesAPlainBodyLine_asATextMessage() throws Exception {
        cli.run("queue", "create", "plain", "--shards", "1");
        Path in = Files.writeString(
                tmp.resolve("plain.jsonl"), "{\"body\": \"hello\"}\n{\"body\": \"{\\\"order\\\": 1}\"}\n");

        CliRunner.Run load = cli.run("queue", "load", "plain", "--from", in.toString());
        assertThat(load.exit()).as(load.err()).isZero();
        assertThat(load.out()).startsWith("loaded 2 messages from " + in + " into queue plain in ");

        Path out = tmp.resolve("plain-out.jsonl");
        assertThat(cli.run("queue", "drain", "plain", "--to", out.toString()).exit())
                .isZero();
        List<BrokerMessage> drained = CliRunner.messages(out);
        assertThat(drained).extracting(BrokerMessage::bodyType).containsOnly(BodyType.TEXT);
        assertThat(drained).extracting(m -> TextBody.decodeStrict(m.body())).containsExactly("hello", "{\"order\": 1}");
        assertThat(drained).extracting(BrokerMessage::priority).containsOnly(4);
        assertThat(drained).extracting(BrokerMessage::messageId).allMatch(id -> id.startsWith("ID:"));
    }

    @Test
    void load_refusesAJsonObjectAsAPlainBody_namingTheFix() throws Exception {
        cli.run("queue", "create", "objbody");
        Path in = Files.writeString(tmp.resolve("obj.jsonl"), "{\"body\": {\"order\": 1}}\n");

        CliRunner.Run r = cli.run("queue", "load", "objbody", "--from", in.toString());

        assertOneLineError(r);
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err())
                .startsWith("shardq: " + in + " line 1: \"body\" of a TEXT message must be a string or null")
                .contains("put JSON in a string");
        assertThat(cli.backlog("objbody")).isZero();
    }
}
