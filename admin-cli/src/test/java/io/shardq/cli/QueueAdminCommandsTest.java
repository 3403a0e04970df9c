package io.shardq.cli;

import static io.shardq.cli.CliRunner.assertOneLineError;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.shardq.broker.Broker;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** create, alter, drop, start, stop, list: output and the catalog rows they leave. */
@PgTest
class QueueAdminCommandsTest {
    @TempDir
    Path tmp;

    TestDatabase db;
    CliRunner cli;

    @BeforeEach
    void setUp(TestDatabase db) {
        this.db = db;
        this.cli = new CliRunner(db, tmp);
    }

    @Test
    void create_makesTheQueueWithItsOptions_andListShowsIt() {
        CliRunner.Run r =
                cli.run("queue", "create", "orders.eu", "--shards", "2", "--max-attempts", "3", "--slice-size", "64");

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out())
                .isEqualTo("created queue orders.eu: 2 shards, slices of 64 messages, 3 delivery attempts,"
                        + " dead letters to orders.eu.DLQ, enqueue on, dequeue on\n");
        assertThat(cli.queryLong(
                        "select count(*) from shardq.destination where name = ? and shard_count = 2"
                                + " and slice_size = 64 and max_attempts = 3",
                        "orders.eu"))
                .isEqualTo(1);

        CliRunner.Run list = cli.run("queue", "list");
        assertThat(list.out())
                .startsWith("QUEUE")
                .containsPattern("orders\\.eu\\s+2\\s+64\\s+3\\s+orders\\.eu\\.DLQ\\s+on\\s+on\\s+-\\s+0");
        JsonNode json = cli.run("queue", "list", "--json").json();
        assertThat(json.isArray()).isTrue();
        JsonNode q = null;
        for (JsonNode x : json) {
            if (x.get("name").asText().equals("orders.eu")) {
                q = x;
            }
        }
        assertThat(q).as(json.toString()).isNotNull();
        assertThat(q.get("name").asText()).isEqualTo("orders.eu");
        assertThat(q.get("shards").asInt()).isEqualTo(2);
        assertThat(q.get("backlog").asLong()).isZero();
        assertThat(q.get("temporary").asBoolean()).isFalse();
    }

    @Test
    void list_marksTemporaryQueues_withTheirOwner() {
        try (Broker owner = Broker.start(db.brokerConfig().build())) {
            String name = owner.temporaries()
                    .create("queue", java.util.UUID.randomUUID())
                    .name();

            CliRunner.Run list = cli.run("queue", "list");
            assertThat(list.exit()).as(list.err()).isZero();
            assertThat(list.out())
                    .containsPattern(java.util.regex.Pattern.quote(name) + "\\s+1\\s+.*\\s+instance "
                            + owner.instanceId() + "\\s+0\\n");
            JsonNode json = cli.run("queue", "list", "--json").json();
            JsonNode q = null;
            for (JsonNode x : json) {
                if (x.get("name").asText().equals(name)) {
                    q = x;
                }
            }
            assertThat(q).as(json.toString()).isNotNull();
            assertThat(q.get("temporary").asBoolean()).isTrue();
            assertThat(q.get("ownerInstance").asLong()).isEqualTo(owner.instanceId());
            assertThat(q.get("ownerAlive").asBoolean()).isTrue();
        }
    }

    @Test
    void create_refusesAHostileName_beforeAnySql() throws Exception {
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("create table y (id int)");
        }
        CliRunner.Run r = cli.run("queue", "create", "x\"; drop table y; --");

        assertOneLineError(r);
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("destination name \"x\"; drop table y; --\" is invalid: expected 1 to 64");
        assertThat(cli.queryLong("select count(*) from y")).isZero(); // the table is still there
    }

    @Test
    void create_twice_saysItExists() {
        cli.run("queue", "create", "twice");
        CliRunner.Run r = cli.run("queue", "create", "twice");
        assertOneLineError(r);
        assertThat(r.err()).contains("twice").contains("already exists");
    }

    @Test
    void alter_changesOnlyWhatIsGiven() {
        cli.run("queue", "create", "alterme", "--shards", "2");
        CliRunner.Run r = cli.run(
                "queue", "alter", "alterme", "--shards", "3", "--max-attempts", "7", "--dead-letter-queue", "parking");

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out())
                .startsWith("altered queue alterme: 3 shards, slices of 20,000 messages, 7 delivery attempts,"
                        + " dead letters to parking");
        assertThat(cli.queryLong("select count(*) from shardq.destination where name = 'alterme' and shard_count = 3"
                        + " and max_attempts = 7 and dead_letter_name = 'parking' and slice_size = 20000"))
                .isEqualTo(1);
        assertThat(cli.queryLong("select count(*) from shardq.shard s join shardq.destination d"
                        + " on d.id = s.destination_id where d.name = 'alterme'"))
                .isEqualTo(3);
    }

    @Test
    void alter_setsTheDeliveryPolicy_expiryQueueAndRedeliveryDelay_andClearsTheExpiryQueue() {
        cli.run("queue", "create", "policed");
        CliRunner.Run r = cli.run(
                "queue",
                "alter",
                "policed",
                "--expiry-queue",
                "policed.expired",
                "--redelivery-delay",
                "5s",
                "--redelivery-multiplier",
                "2");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out())
                .contains("dead letters to policed.DLQ, expired messages to policed.expired,"
                        + " redelivery after 5 s x2.0 per attempt, enqueue on")
                .endsWith("\n");
        assertThat(cli.queryLong("select count(*) from shardq.destination where name = 'policed'"
                        + " and expiry_name = 'policed.expired' and redelivery_delay_ms = 5000"
                        + " and redelivery_multiplier = 2"))
                .isEqualTo(1);

        CliRunner.Run cleared = cli.run("queue", "alter", "policed", "--no-expiry-queue");
        assertThat(cleared.exit()).as(cleared.err()).isZero();
        assertThat(cleared.out()).doesNotContain("expired messages to");
        assertThat(cli.queryLong("select count(*) from shardq.destination where name = 'policed'"
                        + " and expiry_name is null and redelivery_delay_ms = 5000"))
                .isEqualTo(1);

        CliRunner.Run groups = cli.run("queue", "alter", "policed", "--message-groups", "on");
        assertThat(groups.exit()).as(groups.err()).isZero();
        assertThat(groups.out()).contains(", message groups on, enqueue on");
        assertThat(cli.queryLong("select count(*) from shardq.destination where name = 'policed' and message_groups"))
                .isEqualTo(1);
        CliRunner.Run badGroups = cli.run("queue", "alter", "policed", "--message-groups", "maybe");
        assertOneLineError(badGroups);
        assertThat(badGroups.exit()).isEqualTo(2);
        assertThat(badGroups.err()).contains("expected on or off");

        CliRunner.Run both = cli.run("queue", "alter", "policed", "--expiry-queue", "x", "--no-expiry-queue");
        assertOneLineError(both);
        assertThat(both.exit()).isEqualTo(2);
        assertThat(both.err()).contains("contradict each other");

        CliRunner.Run slow = cli.run("queue", "alter", "policed", "--redelivery-multiplier", "0.5");
        assertOneLineError(slow);
        assertThat(slow.err()).contains("redelivery multiplier 0.5 is invalid: expected 1 or more");
    }

    @Test
    void alter_fewerShards_drainsTheHighest_andStatsAndStatusShowThem() {
        cli.run("queue", "create", "shrink", "--shards", "4");
        try (Broker b = cli.broker("test-producer");
                io.shardq.broker.shard.BrokerSession p =
                        b.openSession(io.shardq.broker.shard.BrokerSession.Mode.TRANSACTED)) {
            p.spreadShards(); // a message on every shard: the draining ones have something to drain
            for (int i = 0; i < 8; i++) {
                p.send("shrink", Messages.text("m" + i));
                p.commit();
            }
        }
        CliRunner.Run fewer = cli.run("queue", "alter", "shrink", "--shards", "2");
        assertThat(fewer.exit()).as(fewer.err()).isZero();
        assertThat(fewer.out())
                .startsWith("altered queue shrink: 4 shards (shrinking to 2: shards 2 to 3 are draining), slices of");

        // no consumer: the draining shards keep their messages and stay draining
        CliRunner.Run stats = cli.run("queue", "stats", "shrink");
        assertThat(stats.exit()).as(stats.err()).isZero();
        assertThat(stats.out())
                .contains("settings        4 shards (shrinking to 2: shards 2 to 3 are draining)")
                .containsPattern("STATE\n")
                .containsPattern("\\n\\s+1\\s+3\\s+0\\s+2\\s+-\\s+active\\n")
                .containsPattern("\\n\\s+2\\s+3\\s+0\\s+2\\s+-\\s+draining\\n")
                .containsPattern("\\n\\s+3\\s+3\\s+0\\s+2\\s+-\\s+draining\\n");
        JsonNode json = cli.run("queue", "stats", "shrink", "--json").json();
        assertThat(json.get("shrinkingTo").asInt()).isEqualTo(2);
        assertThat(json.get("shards").get(0).get("draining").asBoolean()).isFalse();
        assertThat(json.get("shards").get(3).get("draining").asBoolean()).isTrue();
        CliRunner.Run status = cli.run("status");
        assertThat(status.out())
                .contains("shrinking           queue shrink: 4 shards (shrinking to 2: shards 2 to 3 are draining)");
        JsonNode statusJson = cli.run("status", "--json").json();
        assertThat(statusJson.get("shrinking").get(0).get("name").asText()).isEqualTo("shrink");
        assertThat(statusJson.get("shrinking").get(0).get("shrinkingTo").asInt())
                .isEqualTo(2);

        CliRunner.Run again = cli.run("queue", "alter", "shrink", "--shards", "3");
        assertOneLineError(again);
        assertThat(again.err())
                .contains(
                        "\"shrink\" is still shrinking to 2 shards: shards 2 to 3 are draining; change its shard count"
                                + " again once they are retired");

        CliRunner.Run nothing = cli.run("queue", "alter", "shrink");
        assertOneLineError(nothing);
        assertThat(nothing.exit()).isEqualTo(2);
        assertThat(nothing.err()).contains("nothing to change").contains("'shardq queue alter --help'");
    }

    @Test
    void drop_refusesANonEmptyQueue_withoutForce() {
        cli.run("queue", "create", "full");
        try (Broker b = cli.broker("test-producer")) {
            CliRunner.send(
                    b,
                    "full",
                    IntStream.range(0, 3).mapToObj(i -> Messages.text("m" + i)).toList());
        }

        long id = cli.queryLong("select id from shardq.destination where name = 'full'");
        CliRunner.Run refused = cli.run("queue", "drop", "full");
        assertOneLineError(refused);
        assertThat(refused.err())
                .isEqualTo("shardq: queue full is not empty: 3 messages waiting; drain it first"
                        + " (shardq queue drain full --to FILE) or drop it anyway with --force\n");
        assertThat(cli.queryLong("select count(*) from shardq.destination where name = 'full'"))
                .isEqualTo(1);

        CliRunner.Run forced = cli.run("queue", "drop", "full", "--force");
        assertThat(forced.exit()).as(forced.err()).isZero();
        assertThat(forced.out()).isEqualTo("dropped queue full and the 3 messages it held\n");
        assertThat(cli.queryLong("select count(*) from shardq.destination where name = 'full'"))
                .isZero();
        assertThat(cli.queryLong(
                        "select count(*) from pg_tables where schemaname = 'shardq' and tablename like ?",
                        "m\\_" + id + "\\_%"))
                .isZero();
    }

    @Test
    void drop_anEmptyQueue_needsNoForce() {
        cli.run("queue", "create", "empty");
        CliRunner.Run r = cli.run("queue", "drop", "empty");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo("dropped queue empty\n");
    }

    @Test
    void stopAndStart_flags_neitherMeansBoth() {
        cli.run("queue", "create", "flow");

        assertThat(cli.run("queue", "stop", "flow", "--enqueue").out())
                .isEqualTo("queue flow: enqueue off, dequeue on\n");
        assertThat(flags("flow")).isEqualTo(List.of(false, true));
        assertThat(cli.run("queue", "stop", "flow").out()).isEqualTo("queue flow: enqueue off, dequeue off\n");
        assertThat(flags("flow")).isEqualTo(List.of(false, false));
        assertThat(cli.run("queue", "start", "flow", "--dequeue").out())
                .isEqualTo("queue flow: enqueue off, dequeue on\n");
        assertThat(cli.run("queue", "start", "flow").out()).isEqualTo("queue flow: enqueue on, dequeue on\n");
        assertThat(flags("flow")).isEqualTo(List.of(true, true));
    }

    @Test
    void cliNeverCreatesAQueueByAccident() {
        for (String[] cmd : List.of(
                new String[] {"queue", "stats", "typo"},
                new String[] {"queue", "alter", "typo", "--shards", "8"},
                new String[] {"queue", "stop", "typo"},
                new String[] {"queue", "drain", "typo"},
                new String[] {"dlq", "requeue", "typo"})) {
            CliRunner.Run r = cli.run(cmd);
            assertOneLineError(r);
            assertThat(r.exit()).as(String.join(" ", cmd)).isEqualTo(2);
            assertThat(r.err())
                    .as(String.join(" ", cmd))
                    .isEqualTo("shardq: queue \"typo\" does not exist (shardq queue list shows the queues)\n");
        }
        assertThat(cli.queryLong("select count(*) from shardq.destination where name like 'typo%'"))
                .isZero();
    }

    private List<Boolean> flags(String name) {
        return List.of(
                cli.queryLong("select enqueue_enabled::int from shardq.destination where name = ?", name) == 1,
                cli.queryLong("select dequeue_enabled::int from shardq.destination where name = ?", name) == 1);
    }
}
