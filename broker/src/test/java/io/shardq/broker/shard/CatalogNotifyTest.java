package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.Engines;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.ShardQException;
import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Catalog changes made by one instance, or by the admin SQL functions in psql, reach every
 * running instance by NOTIFY: no stale in-memory state. The fallback poll runs every 30 s, so
 * the 10 s deadlines below are met only by the notifications.
 */
@PgTest
class CatalogNotifyTest {
    TestDatabase db;
    Broker a;
    Broker b;

    @BeforeEach
    void start(TestDatabase db) {
        this.db = db;
        BrokerConfig config =
                db.brokerConfig().set(BrokerProperty.HEARTBEAT_MS, 200).build();
        a = Broker.start(config);
        b = Broker.start(config);
    }

    @AfterEach
    void stop() {
        a.close();
        b.close();
    }

    @Test
    void dropAndRecreate_byAnotherInstance_replacesTheStaleRuntime(TestDatabase db) {
        a.admin().queues().create("recreated", QueueOptions.DEFAULTS.withShards(2));
        assertThat(roundTrip(b, "recreated", "before")).isEqualTo("before");
        int oldId = runtimeOf(b, "recreated").orElseThrow().id();

        a.admin().queues().drop("recreated", true);
        int newId = a.admin()
                .queues()
                .create("recreated", QueueOptions.DEFAULTS.withShards(2))
                .id();
        assertThat(newId).isNotEqualTo(oldId);

        Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .until(() -> runtimeOf(b, "recreated").map(DestinationInfo::id).orElse(newId) == newId);
        assertThat(roundTrip(b, "recreated", "after")).isEqualTo("after");
        assertThat(runtimeOf(b, "recreated").orElseThrow().id()).isEqualTo(newId);
        assertThat(a.admin().queues().backlog("recreated")).isZero();
    }

    @Test
    void dropAndRecreate_bySqlFunctions_isSeenByARunningInstance(TestDatabase db) throws Exception {
        a.admin().queues().create("by_sql", QueueOptions.DEFAULTS.withShards(1));
        assertThat(roundTrip(b, "by_sql", "before")).isEqualTo("before");
        int oldId = runtimeOf(b, "by_sql").orElseThrow().id();
        long changesBefore = b.stats().catalogChanges();

        int newId;
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("select shardq.drop_queue('by_sql', force => true)");
            try (ResultSet rs = s.executeQuery("select shardq.create_queue('by_sql', shards => 3)")) {
                rs.next();
                newId = rs.getInt(1);
            }
        }
        assertThat(newId).isNotEqualTo(oldId);

        Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .until(() -> runtimeOf(b, "by_sql").map(DestinationInfo::id).orElse(newId) == newId);
        assertThat(b.stats().catalogChanges()).isGreaterThan(changesBefore);
        assertThat(roundTrip(b, "by_sql", "after")).isEqualTo("after");
        assertThat(runtimeOf(b, "by_sql").orElseThrow().shardCount()).isEqualTo(3);
    }

    @Test
    void stopEnqueue_byOneInstance_isSeenByTheOther(TestDatabase db) {
        b.admin().queues().create("switched", QueueOptions.DEFAULTS.withShards(1));
        assertThat(roundTrip(a, "switched", "running")).isEqualTo("running");

        b.admin().queues().stop("switched", true, false);
        Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .until(() -> !runtimeOf(a, "switched").orElseThrow().enqueueEnabled());
        try (BrokerSession p = a.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
            assertThatThrownBy(() -> p.send("switched", Messages.text("refused")))
                    .isInstanceOf(ShardQException.class)
                    .hasMessageContaining("enqueue is stopped")
                    .extracting(e -> ((ShardQException) e).kind())
                    .isEqualTo(ErrorKind.ILLEGAL_STATE);
        }

        b.admin().queues().start("switched", true, true);
        Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .until(() -> runtimeOf(a, "switched").orElseThrow().enqueueEnabled());
        assertThat(roundTrip(a, "switched", "again")).isEqualTo("again");
    }

    @Test
    void alterShardCount_bySql_growsTheRunningInstancesShards(TestDatabase db) throws Exception {
        a.admin().queues().create("grown", QueueOptions.DEFAULTS.withShards(1));
        assertThat(roundTrip(a, "grown", "one")).isEqualTo("one");
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("select shardq.alter_queue('grown', shards => 4)");
        }
        Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .until(() -> runtimeOf(a, "grown").orElseThrow().shardCount() == 4);
        assertThat(Engines.of(a).runtimes().stream()
                        .filter(rt -> rt.info().name().equals("grown"))
                        .findFirst()
                        .orElseThrow()
                        .queue()
                        .knownBacklog())
                .hasSize(4);
    }

    @Test
    void dropAndRecreate_bySameInstance_nextSendWorksAtOnce(TestDatabase db) {
        a.admin().queues().create("own", QueueOptions.DEFAULTS.withShards(2));
        assertThat(roundTrip(a, "own", "before")).isEqualTo("before");
        a.admin().queues().drop("own", true);
        int newId = a.admin()
                .queues()
                .create("own", QueueOptions.DEFAULTS.withShards(2))
                .id();
        // no waiting: an instance's own admin calls apply before they return
        assertThat(runtimeOf(a, "own").map(DestinationInfo::id).orElse(newId)).isEqualTo(newId);
        assertThat(roundTrip(a, "own", "after")).isEqualTo("after");
    }

    @Test
    void lostListenConnection_reloadsEverything_whenItReconnects(TestDatabase db) throws Exception {
        db.assumeNotCitus("it disables the catalog trigger, a command Citus refuses on its tables");
        a.admin().queues().create("missed", QueueOptions.DEFAULTS.withShards(1));
        assertThat(roundTrip(a, "missed", "running")).isEqualTo("running");
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            // a change nobody is notified of, as if it happened while the LISTEN connection was down
            s.execute("alter table shardq.destination disable trigger destination_notify");
            s.execute("update shardq.destination set enqueue_enabled = false where name = 'missed'");
            s.execute("alter table shardq.destination enable trigger destination_notify");
            try (ResultSet rs = s.executeQuery("select count(pg_terminate_backend(pid)) from pg_stat_activity"
                    + " where datname = current_database() and query ilike 'LISTEN %'")) {
                rs.next();
                assertThat(rs.getInt(1))
                        .as("LISTEN connections of both instances")
                        .isGreaterThanOrEqualTo(2);
            }
        }
        Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .until(() -> !runtimeOf(a, "missed").orElseThrow().enqueueEnabled());
    }

    /** The snapshot the instance's runtime holds, without loading anything. */
    private static Optional<DestinationInfo> runtimeOf(Broker broker, String name) {
        return Engines.of(broker).runtimes().stream()
                .map(DestinationRuntime::info)
                .filter(d -> d.name().equals(name))
                .findFirst();
    }

    private static String roundTrip(Broker broker, String queue, String text) {
        try (BrokerSession p = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE);
                BrokerSession c = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
            p.send(queue, Messages.text(text));
            Delivery d = c.receive(queue, 10_000, false);
            assertThat(d).as("a message on %s", queue).isNotNull();
            return Messages.body(d.message());
        }
    }
}
