package io.shardq.broker.sqlapi;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.shard.BrokerSession;
import io.shardq.broker.shard.Delivery;
import io.shardq.broker.testing.ChildJvm;
import io.shardq.broker.testing.ClaimAndHangMain;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * SQL and JVM producers and consumers on one queue, a consumer JVM killed and a SQL consumer's
 * backend terminated while each holds messages in an open transaction: every message is received
 * exactly once (counted at the consumers' commits), and nothing stays behind.
 */
@PgTest
@Tag("fault")
class SqlConsumerFaultTest {
    static final int EACH = 300;

    @Test
    void sqlAndJvmConsumers_withAKilledJvmAndATerminatedBackend_receiveEveryMessageOnce(TestDatabase db)
            throws Exception {
        List<String> committed = Collections.synchronizedList(new ArrayList<>());
        AtomicBoolean stop = new AtomicBoolean();
        try (Broker survivor = Broker.start(db.brokerConfig()
                .set(BrokerProperty.HEARTBEAT_MS, 200)
                .set(BrokerProperty.LEASE_TTL_MS, 2000)
                .build())) {
            survivor.admin().queues().create("mix", QueueOptions.DEFAULTS.withShards(4));
            // a first part of each producer's messages, for the victims to hold
            sendJvm(survivor, 0, 100);
            sendSql(db, 0, 100);

            // the SQL victim leases shards first, the JVM victim asks and is given some at the SQL
            // victim's next receives (each commits what it took and what it gave back); then both hold
            // messages in open transactions
            Connection sqlVictim = sqlConsumer(db);
            balance(sqlVictim);
            ChildJvm victim = ChildJvm.start(ClaimAndHangMain.class, db.jdbcUrl(), "mix", "30");
            CompletableFuture<String> claimed = CompletableFuture.supplyAsync(() -> {
                try {
                    return victim.awaitLine("CLAIMED");
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            while (!claimed.isDone()) {
                balance(sqlVictim);
            }
            assertThat(claimed.get()).startsWith("CLAIMED ");
            int held = 0;
            for (int i = 0; i < 100 && held == 0; i++) {
                held = received(sqlVictim, 20).size(); // uncommitted: held until its backend ends
            }
            assertThat(held).isPositive();
            int victimPid = pid(sqlVictim);

            List<CompletableFuture<Void>> work = new ArrayList<>();
            work.add(CompletableFuture.runAsync(() -> sendJvm(survivor, 100, EACH)));
            work.add(CompletableFuture.runAsync(() -> {
                try {
                    sendSql(db, 100, EACH);
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            }));
            work.add(CompletableFuture.runAsync(() -> {
                try (BrokerSession c = survivor.openSession(BrokerSession.Mode.TRANSACTED)) {
                    while (!stop.get()) {
                        List<String> got = new ArrayList<>();
                        for (Delivery d; got.size() < 10 && (d = c.receive("mix", 200, false)) != null; ) {
                            got.add(Messages.body(d.message()));
                        }
                        c.commit();
                        committed.addAll(got);
                    }
                }
            }));
            for (int k = 0; k < 2; k++) {
                work.add(CompletableFuture.runAsync(() -> {
                    try (Connection c = sqlConsumer(db)) {
                        while (!stop.get()) {
                            List<String> got = received(c, 10);
                            c.commit();
                            committed.addAll(got);
                        }
                    } catch (SQLException e) {
                        throw new IllegalStateException(e);
                    }
                }));
            }
            victim.kill();
            try (Connection admin = db.connect();
                    Statement s = admin.createStatement()) {
                s.execute("SELECT pg_terminate_backend(" + victimPid + ")");
            }
            try {
                Awaitility.await()
                        .atMost(Duration.ofMinutes(4))
                        .until(() -> work.stream().anyMatch(CompletableFuture::isCompletedExceptionally)
                                || distinct(committed) >= 2 * EACH);
            } finally {
                stop.set(true);
            }
            for (CompletableFuture<Void> w : work) {
                w.get(); // a failed worker fails the test with its cause
            }
            sqlVictim.close();
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < EACH; i++) {
                expected.add("j-" + i);
                expected.add("s-" + i);
            }
            synchronized (committed) {
                assertThat(committed).containsExactlyInAnyOrderElementsOf(expected);
            }
            assertThat(survivor.admin().queues().backlog("mix")).isZero();
        }
    }

    private static int distinct(List<String> committed) {
        synchronized (committed) { // a synchronized list is iterated under its lock
            return new HashSet<>(committed).size();
        }
    }

    private static void sendJvm(Broker broker, int from, int to) {
        try (BrokerSession p = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            for (int i = from; i < to; i++) {
                p.send("mix", Messages.text("j-" + i));
                if (i % 10 == 9) {
                    p.commit();
                }
            }
            p.commit();
        }
    }

    /**
     * Sends s-from .. s-(to - 1) in batches of 10 from four SQL sessions open together: each sends
     * to a shard of its own (shardq.session_shard), so every shard gets messages.
     */
    private static void sendSql(TestDatabase db, int from, int to) throws SQLException {
        List<Connection> sessions = new ArrayList<>();
        try {
            for (int k = 0; k < 4; k++) {
                sessions.add(db.connect());
            }
            for (int i = from; i < to; i += 10) {
                Connection c = sessions.get((i / 10) % sessions.size());
                List<String> bodies = new ArrayList<>();
                for (int j = i; j < Math.min(to, i + 10); j++) {
                    bodies.add("s-" + j);
                }
                try (PreparedStatement ps = c.prepareStatement("SELECT shardq.send_batch('mix', ?::text[])")) {
                    ps.setArray(1, c.createArrayOf("text", bodies.toArray()));
                    ps.execute();
                }
            }
        } finally {
            for (Connection c : sessions) {
                c.close();
            }
        }
    }

    private static Connection sqlConsumer(TestDatabase db) throws SQLException {
        Connection c = db.connect();
        try (Statement s = c.createStatement()) {
            s.execute("SET shardq.lease_ttl_ms = '2000'");
        }
        c.setAutoCommit(false);
        return c;
    }

    private static List<String> received(Connection c, int max) throws SQLException {
        List<String> got = new ArrayList<>();
        try (PreparedStatement ps =
                c.prepareStatement("SELECT body_text FROM shardq.receive('mix', ?, wait => '1 second')")) {
            ps.setInt(1, max);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    got.add(rs.getString(1));
                }
            }
        }
        return got;
    }

    /** A receive whose selector selects nothing, committed: the leases are balanced, nothing is consumed. */
    private static void balance(Connection c) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.executeQuery(
                            "SELECT * FROM shardq.receive('mix', 1, wait => '200 milliseconds', selector => 'JMSPriority < 0')")
                    .close();
        }
        c.commit();
    }

    private static int pid(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
