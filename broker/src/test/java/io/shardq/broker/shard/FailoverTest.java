package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.testing.ReplicatedPostgres;
import io.shardq.broker.testing.ReplicatedPostgres.Replication;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL fails over under load: the primary's processes are killed and its synchronous
 * standby promoted, three times in a row, a fresh standby rebuilt in between, while two ShardQ
 * instances on the cluster's URL (both hosts, {@code targetServerType=primary}) send and receive.
 * Every message whose send committed is consumed exactly once by the end, nothing else is
 * consumed, and traffic resumes by itself on each new primary. {@code -Dshardq.test.failovers=N}
 * runs more (default 3). The second test does the same with an asynchronous standby and counts
 * what a failover lost: in the first failovers the standby keeps up, before the last one it has
 * fallen behind (its WAL receiver stopped while 100,000 more sends commit, consumers paused).
 */
@Tag("fault")
class FailoverTest {
    static final String QUEUE = "failover.q";
    static final int LEASE_TTL_MS = 3000;
    /** How far behind the asynchronous standby falls before the last failover, in committed sends. */
    static final int LAG_SENDS = 100_000;

    @Test
    void synchronousStandby_failoversUnderLoad_loseNothing_duplicateNothing_andTrafficResumes() throws Exception {
        int failovers = Integer.getInteger("shardq.test.failovers", 3);
        try (ReplicatedPostgres pg = ReplicatedPostgres.start("shardq-failover", Replication.SYNCHRONOUS)) {
            List<List<Long>> resumeMillis = new ArrayList<>();
            List<String> rates = new ArrayList<>();
            try (Broker a = Broker.start(config(pg));
                    Broker b = Broker.start(config(pg))) {
                a.admin()
                        .queues()
                        .create(QUEUE, QueueOptions.DEFAULTS.withShards(4).withMaxAttempts(1000));
                FaultyWorkload w = new FaultyWorkload(QUEUE).start(4, a, b);
                for (int f = 0; f < failovers; f++) {
                    w.awaitTraffic();
                    long before = w.sendsPerSecond(2000);
                    long killed = pg.failover();
                    resumeMillis.add(w.millisUntilEveryWorkerCommits(killed));
                    // the maintenance leader's lease is renewed or taken on the new primary: its
                    // expiry lies beyond what any statement before the promotion could have set
                    String promoted = databaseNow(pg);
                    org.awaitility.Awaitility.await()
                            .atMost(java.time.Duration.ofMinutes(1))
                            .pollInterval(java.time.Duration.ofMillis(50))
                            .until(() -> leaderRenewedSince(pg, promoted, a, b));
                    long alone = w.sendsPerSecond(2000); // the new primary without a standby yet
                    pg.rebuildStandby();
                    w.awaitTraffic();
                    rates.add(before + " -> " + alone + " -> " + w.sendsPerSecond(2000));
                }
                w.awaitTraffic();
                w.finishAndVerify(a);
                assertThat(a.stats().deadLettered() + b.stats().deadLettered()).isZero();
                System.out.printf(
                        "FailoverTest: %d failovers, %s; ms from the primary's death to each producer's and consumer's next"
                                + " commit: %s; sends/s before -> on the new primary alone -> with a new synchronous"
                                + " standby: %s%n",
                        failovers, w.summary(), resumeMillis, rates);
            }
        }
    }

    /**
     * The same with an asynchronous standby: a commit returns before the standby has it, so a
     * failover may lose acknowledged sends and undo acknowledged consumptions (delivered again).
     * Counted, not forbidden: the docs quote the figure. What no loss explains still fails the
     * test (a message consumed that was never sent, an unexpected error, traffic that does not
     * resume).
     */
    @Test
    void asynchronousStandby_failoversUnderLoad_countWhatWasAcknowledgedAndLost() throws Exception {
        int failovers = Integer.getInteger("shardq.test.failovers", 3);
        try (ReplicatedPostgres pg = ReplicatedPostgres.start("shardq-failover-async", Replication.ASYNCHRONOUS)) {
            List<Long> resumeMillis = new ArrayList<>();
            long promotedNanos = 0;
            try (Broker a = Broker.start(config(pg));
                    Broker b = Broker.start(config(pg))) {
                a.admin()
                        .queues()
                        .create(QUEUE, QueueOptions.DEFAULTS.withShards(4).withMaxAttempts(1000));
                FaultyWorkload w = new FaultyWorkload(QUEUE).start(4, a, b);
                for (int f = 0; f < failovers; f++) {
                    w.awaitTraffic();
                    boolean lagging = f == failovers - 1;
                    if (lagging) {
                        // the last one with a standby that fell behind by 100,000 committed sends,
                        // consumers paused meanwhile: a send lost with its consumption would not
                        // show (the application saw it), one lost before it was consumed does
                        w.pauseConsumers();
                        pg.pauseReplication();
                        w.awaitMoreSends(LAG_SENDS);
                    }
                    long killed = pg.failover();
                    promotedNanos = System.nanoTime();
                    if (lagging) {
                        w.resumeConsumers();
                    }
                    resumeMillis.add(w.millisUntilConsumerCommit(killed));
                    pg.rebuildStandby();
                }
                w.awaitTraffic();
                FaultyWorkload.Loss loss = w.finishAndCount(a);
                assertThat(loss.sendsCommitted()).isGreaterThan(100);
                // what the new primary acknowledged is never lost: only the old one's last commits are
                long after = promotedNanos;
                assertThat(loss.lostIds())
                        .as("sends whose commit began after the last promotion, lost")
                        .noneMatch(id -> w.commitStartedNanos.get(id) > after);
                System.out.printf(
                        "FailoverTest (asynchronous): %d failovers, the last with the standby %d committed sends"
                                + " behind; %d sends committed, %d of them lost, %d messages consumed twice (a"
                                + " consumption lost); ms from the primary's death to the next consumer commit: %s%n",
                        failovers,
                        LAG_SENDS,
                        loss.sendsCommitted(),
                        loss.sendsLost(),
                        loss.consumedTwice(),
                        resumeMillis);
            }
        }
    }

    private static String databaseNow(ReplicatedPostgres pg) throws Exception {
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(pg.primaryUrl(), "postgres", "");
                java.sql.Statement s = c.createStatement();
                java.sql.ResultSet rs = s.executeQuery("SELECT now()::text")) {
            rs.next();
            return rs.getString(1);
        }
    }

    /** The leader row was written on the new primary after {@code since}, by an instance that says it leads. */
    private static boolean leaderRenewedSince(ReplicatedPostgres pg, String since, Broker a, Broker b)
            throws Exception {
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(pg.primaryUrl(), "postgres", "");
                java.sql.PreparedStatement ps = c.prepareStatement("SELECT instance_id FROM shardq.leader"
                        + " WHERE role = 'maintenance' AND expires_at > ?::timestamptz + make_interval(secs => ?)")) {
            ps.setString(1, since);
            ps.setDouble(2, LEASE_TTL_MS / 1000.0);
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return false;
                }
                long leader = rs.getLong(1);
                return leader == a.instanceId()
                        ? a.isMaintenanceLeader()
                        : leader == b.instanceId() && b.isMaintenanceLeader();
            }
        }
    }

    private static BrokerConfig config(ReplicatedPostgres pg) {
        return BrokerConfig.builder()
                .isolated()
                .set(BrokerProperty.JDBC_URL, pg.jdbcUrl())
                .set(BrokerProperty.JDBC_USER, "postgres")
                .set(BrokerProperty.HEARTBEAT_MS, 200)
                .set(BrokerProperty.LEASE_TTL_MS, LEASE_TTL_MS)
                .set(BrokerProperty.POOL_SIZE, 16)
                .set(BrokerProperty.POOL_TIMEOUT_MS, 2000)
                .build();
    }
}
