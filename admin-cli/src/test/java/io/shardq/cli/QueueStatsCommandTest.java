package io.shardq.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.shardq.broker.Broker;
import io.shardq.broker.shard.BrokerSession;
import io.shardq.broker.shard.Delivery;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@PgTest
class QueueStatsCommandTest {
    @TempDir
    Path tmp;

    @Test
    void stats_showsBacklogPerShard_leaseHolders_andRates(TestDatabase db) {
        CliRunner cli = new CliRunner(db, tmp);
        cli.run("queue", "create", "stats-q", "--shards", "2", "--slice-size", "16");
        CliRunner.Run text;
        CliRunner.Run json;
        try (Broker app = cli.broker("billing@host-2")) {
            CliRunner.send(
                    app,
                    "stats-q",
                    IntStream.range(0, 40).mapToObj(i -> Messages.text("m" + i)).toList());
            try (BrokerSession consumer = app.openSession(BrokerSession.Mode.TRANSACTED)) {
                Delivery d = consumer.receive("stats-q", 5000, false); // leases the shard
                assertThat(d).isNotNull();
                consumer.commit();
                text = cli.run("queue", "stats", "stats-q");
                json = cli.run("queue", "stats", "stats-q", "--json", "--rate");
            }
        }

        assertThat(text.exit()).as(text.err()).isZero();
        assertThat(text.out())
                .startsWith("queue stats-q\n")
                .contains("settings        2 shards, slices of 16 messages, 5 delivery attempts")
                .contains("waiting         39 messages")
                .contains("enqueued        40 messages since the queue was created")
                .containsPattern("oldest waiting  [\\d.]+ m?s old")
                .containsPattern("slices          3 in use, \\d+ free")
                .containsPattern("table size      [\\d.]+ KiB, \\d+ dead tuples")
                .containsPattern("SHARD\\s+NEXT SEQ\\s+CURSOR\\s+WAITING\\s+LEASE HOLDER")
                .containsPattern("\\d+\\s+41\\s+1\\s+39\\s+\\d+ billing@host-2");
        JsonNode j = json.json();
        assertThat(j.get("backlog").asLong()).isEqualTo(39);
        assertThat(j.get("enqueued").asLong()).isEqualTo(40);
        assertThat(j.get("slicesInUse").asInt()).isEqualTo(3);
        assertThat(j.get("tableBytes").asLong()).isPositive();
        assertThat(j.get("rates").get("sampleSeconds").asDouble()).isBetween(0.9, 5.0);
        assertThat(j.get("rates").get("enqueuePerSecond").asDouble()).isZero();
        assertThat(j.get("shards")).hasSize(2);
        long holders = 0;
        for (JsonNode s : j.get("shards")) {
            if (s.get("backlog").asLong() == 39) {
                assertThat(s.get("cursor").asLong()).isEqualTo(1);
                assertThat(s.get("leaseHolder").asText()).isEqualTo("billing@host-2");
                holders++;
            }
        }
        assertThat(holders).isEqualTo(1);
    }

    @Test
    void stats_countsDelayedMessages_apartFromTheBacklog(TestDatabase db) {
        CliRunner cli = new CliRunner(db, tmp);
        cli.run("queue", "create", "stats-delayed");
        long later = System.currentTimeMillis() + 3_600_000;
        try (Broker app = cli.broker("app")) {
            CliRunner.send(
                    app,
                    "stats-delayed",
                    List.of(
                            Messages.text("now"),
                            Messages.text("later-1", 0, later),
                            Messages.text("later-2", 0, later)));
        }
        CliRunner.Run text = cli.run("queue", "stats", "stats-delayed");
        assertThat(text.exit()).as(text.err()).isZero();
        assertThat(text.out())
                .contains("waiting         1 message\n")
                .contains("delayed         2 messages not due yet (delivery delay: not in the backlog until due)\n");
        assertThat(cli.run("queue", "stats", "stats-delayed", "--json")
                        .json()
                        .get("scheduled")
                        .asLong())
                .isEqualTo(2);
    }

    @Test
    void stats_showConsumersPerInstance_andPurges(TestDatabase db) {
        CliRunner cli = new CliRunner(db, tmp);
        cli.run("queue", "create", "stats-used", "--shards", "2");
        CliRunner.Run before = cli.run("queue", "stats", "stats-used");
        assertThat(before.exit()).as(before.err()).isZero();
        assertThat(before.out())
                .contains("  consumers       0 open (counted at each instance's heartbeat: may lag by up to one)\n")
                .contains("  purges          never\n")
                .doesNotContain("INSTANCE");
        JsonNode none = cli.run("queue", "stats", "stats-used", "--json").json();
        assertThat(none.get("consumers").asLong()).isZero();
        assertThat(none.get("consumersByInstance")).isEmpty();
        assertThat(none.get("purges").asLong()).isZero();
        assertThat(none.get("purged").asLong()).isZero();
        assertThat(none.get("lastPurgeAt").isNull()).isTrue();

        CliRunner.Run text;
        JsonNode json;
        long a;
        long b;
        try (Broker appA = cli.broker("orders@host-a");
                Broker appB = cli.broker("orders@host-b");
                BrokerSession sa = appA.openSession(BrokerSession.Mode.TRANSACTED);
                BrokerSession sb = appB.openSession(BrokerSession.Mode.TRANSACTED)) {
            a = appA.instanceId();
            b = appB.instanceId();
            sa.createConsumer("stats-used", null);
            sa.createConsumer("stats-used", null);
            sb.createConsumer("stats-used", null);
            // each instance writes its count at its heartbeat: wait for both
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> cli.run("queue", "stats", "stats-used", "--json")
                                    .json()
                                    .get("consumers")
                                    .asLong()
                            == 3);
            CliRunner.send(appA, "stats-used", List.of(Messages.text("a"), Messages.text("b")));
            CliRunner.Run purge = cli.run("queue", "purge", "stats-used", "--force");
            assertThat(purge.exit()).as(purge.err()).isZero();
            text = cli.run("queue", "stats", "stats-used");
            json = cli.run("queue", "stats", "stats-used", "--json").json();
        }

        assertThat(text.exit()).as(text.err()).isZero();
        assertThat(text.out())
                .contains("  waiting         0 messages\n")
                .contains("  consumers       3 open on 2 instances (counted at each instance's heartbeat:"
                        + " may lag by up to one)\n")
                .containsPattern("  purges          1 \\(2 messages discarded\\), the last at"
                        + " \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ\n")
                .containsPattern("INSTANCE\\s+CONSUMERS\n")
                .containsPattern("\n" + a + " orders@host-a\\s+2\n")
                .containsPattern("\n" + b + " orders@host-b\\s+1\n");
        assertThat(json.get("consumers").asLong()).isEqualTo(3);
        assertThat(json.get("consumersByInstance")).hasSize(2);
        for (JsonNode i : json.get("consumersByInstance")) {
            long id = i.get("instanceId").asLong();
            assertThat(id).isIn(a, b);
            assertThat(i.get("instanceName").asText()).isEqualTo(id == a ? "orders@host-a" : "orders@host-b");
            assertThat(i.get("consumers").asLong()).isEqualTo(id == a ? 2 : 1);
            assertThat(i.get("subscription").isNull()).isTrue();
        }
        assertThat(json.get("purges").asLong()).isEqualTo(1);
        assertThat(json.get("purged").asLong()).isEqualTo(2);
        assertThat(json.get("lastPurgeAt").asLong()).isPositive();
    }
}
