package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.Engines;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.testing.ChildJvm;
import io.shardq.broker.testing.ClaimAndHangMain;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** Instances dying, waking each other, and retirement held up by a long transaction. */
@PgTest
class InstanceFailureTest {

    @Test
    void killedInstance_losesItsLeases_andAnotherDeliversEverythingOnce(TestDatabase db) throws Exception {
        try (Broker survivor = Broker.start(db.brokerConfig()
                .set(BrokerProperty.HEARTBEAT_MS, 200)
                .set(BrokerProperty.LEASE_TTL_MS, 2000)
                .build())) {
            survivor.admin().queues().create("crash", QueueOptions.DEFAULTS.withShards(2));
            try (BrokerSession p = survivor.openSession(BrokerSession.Mode.TRANSACTED)) {
                for (int i = 0; i < 100; i++) {
                    p.send("crash", Messages.text("m" + i));
                }
                p.commit();
            }
            ChildJvm victim = ChildJvm.start(ClaimAndHangMain.class, db.jdbcUrl(), "crash", "30");
            assertThat(victim.awaitLine("CLAIMED")).isEqualTo("CLAIMED 30");
            victim.kill();

            Set<String> got = new HashSet<>();
            List<String> all = new ArrayList<>();
            try (BrokerSession c = survivor.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
                Awaitility.await().atMost(Duration.ofMinutes(1)).until(() -> {
                    Delivery d = c.receive("crash", 200, false);
                    if (d != null) {
                        all.add(Messages.body(d.message()));
                        got.add(Messages.body(d.message()));
                    }
                    return got.size() == 100;
                });
            }
            assertThat(all).hasSize(100).doesNotHaveDuplicates();
            assertThat(survivor.admin().queues().backlog("crash")).isZero();
        }
    }

    @Test
    void waitingConsumerInAnotherInstance_isWokenByNotify(TestDatabase db) throws Exception {
        var config = db.brokerConfig().set(BrokerProperty.HEARTBEAT_MS, 200).build();
        try (Broker producerSide = Broker.start(config);
                Broker consumerSide = Broker.start(config)) {
            producerSide.admin().queues().create("wake", QueueOptions.DEFAULTS.withShards(1));
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> Engines.of(consumerSide)
                    .otherInstancesAlive());
            try (BrokerSession c = consumerSide.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
                // leases the shard and registers as waiter: nothing there yet
                assertThat(c.receive("wake", 300, false)).isNull();
                CompletableFuture<Delivery> waiting =
                        CompletableFuture.supplyAsync(() -> c.receive("wake", 30_000, false));
                Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> waiterRegistered(db));
                try (BrokerSession p = producerSide.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
                    p.send("wake", Messages.text("ping"));
                }
                assertThat(Messages.body(waiting.get(30, TimeUnit.SECONDS).message()))
                        .isEqualTo("ping");
            }
            assertThat(producerSide.stats().notifiesSent()).isPositive();
            assertThat(consumerSide.stats().wakeupsReceived()).isPositive();
        }
    }

    /**
     * The fast path's wake-up NOTIFY is a statement of its own, sent after the one-statement batch
     * committed in autocommit. A NOTIFY that fails there must not report the committed batch as
     * refused: the sender would be told "not sent" and send again, a duplicate. The failure is a
     * real PostgreSQL one: the producer's connections search a schema whose pg_notify raises an
     * error before pg_catalog's.
     */
    @Test
    void aFailedWakeupNotify_afterTheFastPathCommitted_doesNotFailTheSend(TestDatabase db) throws Exception {
        db.assumeNotCitus("there is no one-statement fast path there (the send is two router statements)");
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("create schema failing_notify");
            s.execute("create function failing_notify.pg_notify(text, text) returns void language plpgsql as"
                    + " $$ begin raise exception 'injected: NOTIFY refused'; end $$");
        }
        String url =
                db.jdbcUrl() + (db.jdbcUrl().contains("?") ? "&" : "?") + "currentSchema=failing_notify,pg_catalog";
        var consumerConfig =
                db.brokerConfig().set(BrokerProperty.HEARTBEAT_MS, 200).build();
        var producerConfig = db.brokerConfig()
                .set(BrokerProperty.HEARTBEAT_MS, 200)
                .set(BrokerProperty.JDBC_URL, url)
                .set(BrokerProperty.MIGRATE_ON_START, false)
                .build();
        try (Broker consumerSide = Broker.start(consumerConfig);
                Broker producerSide = Broker.start(producerConfig)) {
            consumerSide.admin().queues().create("wake.fail", QueueOptions.DEFAULTS.withShards(1));
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> Engines.of(consumerSide)
                    .otherInstancesAlive());
            try (BrokerSession p = producerSide.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE);
                    BrokerSession c = consumerSide.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
                p.send("wake.fail", Messages.text("first")); // no waiter yet: no NOTIFY; the producer learns the head
                assertThat(Messages.body(c.receive("wake.fail", 10_000, false).message()))
                        .isEqualTo("first");
                assertThat(c.receive("wake.fail", 300, false)).isNull();
                CompletableFuture<Delivery> waiting =
                        CompletableFuture.supplyAsync(() -> c.receive("wake.fail", 60_000, false));
                Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> waiterRegistered(db));

                p.send("wake.fail", Messages.text("second")); // committed, then the NOTIFY fails

                assertThat(producerSide.stats().notifiesFailed()).isPositive();
                // the consumer finds it without the wake-up (its poll), once
                assertThat(Messages.body(waiting.get(60, TimeUnit.SECONDS).message()))
                        .isEqualTo("second");
                assertThat(c.receive("wake.fail", 500, false)).isNull();
                assertThat(consumerSide.admin().queues().backlog("wake.fail")).isZero();
            }
        }
    }

    static boolean waiterRegistered(TestDatabase db) throws Exception {
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                var rs = s.executeQuery("select count(*) from shardq.shard where waiter is not null")) {
            rs.next();
            return rs.getInt(1) > 0;
        }
    }

    @Test
    void retirement_heldUpByALongTransaction_reportsTheBlockingBackend(TestDatabase db) throws Exception {
        try (Broker broker = Broker.start(
                db.brokerConfig().set(BrokerProperty.HEARTBEAT_MS, 200).build())) {
            broker.admin()
                    .queues()
                    .create("blocked", QueueOptions.DEFAULTS.withShards(1).withSliceSize(16));
            try (Connection holder = db.connect()) {
                holder.setAutoCommit(false);
                int pid;
                try (Statement s = holder.createStatement();
                        var rs = s.executeQuery("select pg_backend_pid()")) {
                    rs.next();
                    pid = rs.getInt(1);
                }
                try (BrokerSession p = broker.openSession(BrokerSession.Mode.TRANSACTED);
                        BrokerSession c = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                    for (int i = 0; i < 20; i++) {
                        p.send("blocked", Messages.text("m" + i));
                    }
                    p.commit();
                    // a long transaction reads the first slice, as a careless report query would
                    try (Statement s = holder.createStatement()) {
                        int id = broker.admin().require("blocked").id();
                        s.executeQuery("select count(*) from shardq.m_" + id + "_0_0")
                                .close();
                    }
                    for (int i = 0; i < 20; i++) {
                        assertThat(c.receive("blocked", 2000, false)).isNotNull();
                    }
                    c.commit();
                    p.send("blocked", Messages.text("still flowing"));
                    p.commit();
                }
                Awaitility.await()
                        .atMost(Duration.ofSeconds(20))
                        .until(() -> broker.stats().retireBlockedBy().contains("backend pid " + pid));
                assertThat(broker.stats().retireBlockedBy()).contains("idle in transaction");
                assertThat(broker.stats().retireBlockedSinceMillis())
                        .as("since when the slice is blocked")
                        .isPositive()
                        .isLessThanOrEqualTo(System.currentTimeMillis());
                assertThat(broker.stats().slicesRetired()).isZero();
                holder.rollback();
            }
            Awaitility.await()
                    .atMost(Duration.ofSeconds(20))
                    .until(() -> broker.stats().slicesRetired() >= 1);
            // the blocked slice retired: nothing is blocked any more
            Awaitility.await()
                    .atMost(Duration.ofSeconds(20))
                    .until(() -> broker.stats().retireBlockedSinceMillis() == -1);
            assertThat(broker.stats().retireBlockedBy()).isEmpty();
        }
    }
}
