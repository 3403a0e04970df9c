package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** Maintenance (retirement, spare slots) on one elected instance; heartbeat never waits for it. */
@PgTest
class MaintenanceLeaderTest {

    @Test
    void maintenance_runsOnlyOnTheLeader_andMovesWhenItStops(TestDatabase db) throws Exception {
        // leases and the leader term outlive the test: a takeover can only come from resignation
        BrokerConfig config = db.brokerConfig()
                .set(BrokerProperty.HEARTBEAT_MS, 200)
                .set(BrokerProperty.LEASE_TTL_MS, 120_000)
                .build();
        Broker first = Broker.start(config);
        Broker second = Broker.start(config);
        try {
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> first.isMaintenanceLeader() != second.isMaintenanceLeader());
            Broker leader = first.isMaintenanceLeader() ? first : second;
            Broker follower = leader == first ? second : first;
            assertThat(leaderRow(db)).isEqualTo(leader.instanceId());

            // the follower produces and consumes across two slice boundaries: its commits tell
            // the leader (NOTIFY), which retires; the follower retires nothing itself
            follower.admin()
                    .queues()
                    .create("lead", QueueOptions.DEFAULTS.withShards(1).withSliceSize(16));
            sendAndConsume(follower, "lead", 40);
            Awaitility.await()
                    .atMost(Duration.ofSeconds(15))
                    .until(() -> leader.stats().slicesRetired() >= 2);
            assertThat(follower.stats().maintenanceRounds()).isZero();
            assertThat(follower.stats().slicesRetired()).isZero();
            assertThat(follower.isMaintenanceLeader()).isFalse();

            long roundsOfOldLeader = leader.stats().maintenanceRounds();
            assertThat(roundsOfOldLeader).isPositive();
            leader.close();
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(follower::isMaintenanceLeader);
            assertThat(leaderRow(db)).isEqualTo(follower.instanceId());

            sendAndConsume(follower, "lead", 40);
            Awaitility.await()
                    .atMost(Duration.ofSeconds(15))
                    .until(() -> follower.stats().slicesRetired() >= 2);
            assertThat(follower.stats().maintenanceRounds()).isPositive();
            assertThat(leader.stats().maintenanceRounds()).isEqualTo(roundsOfOldLeader);
        } finally {
            first.close();
            second.close();
        }
    }

    @Test
    void leaseRenewal_continues_whileRetirementWaitsOnALockedSlot(TestDatabase db) throws Exception {
        // retirement waits up to two minutes for its lock: in the old single-thread design the
        // heartbeat, and so lease renewal, would wait with it
        try (Broker broker = Broker.start(db.brokerConfig()
                .set(BrokerProperty.HEARTBEAT_MS, 200)
                .set(BrokerProperty.LEASE_TTL_MS, 120_000)
                .set(BrokerProperty.MAINTENANCE_LOCK_TIMEOUT_MS, 120_000)
                .build())) {
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(broker::isMaintenanceLeader);
            broker.admin()
                    .queues()
                    .create("slow", QueueOptions.DEFAULTS.withShards(1).withSliceSize(16));
            int id = broker.admin().require("slow").id();
            try (Connection holder = db.connect()) {
                holder.setAutoCommit(false);
                try (Statement s = holder.createStatement()) {
                    s.execute("lock table shardq.m_" + id + "_0_0 in access share mode");
                }
                sendAndConsume(broker, "slow", 20); // the cursor passes the first slice
                Awaitility.await().atMost(Duration.ofSeconds(15)).until(() -> truncateWaitingOnLock(db));

                // the heartbeat (whose thread renews the leases, each once less than half its TTL is
                // left) beats on: its instance row moves every beat
                AtomicReference<Timestamp> seen = new AtomicReference<>(heartbeatAt(db, broker.instanceId()));
                for (int beat = 0; beat < 3; beat++) {
                    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> {
                        Timestamp now = heartbeatAt(db, broker.instanceId());
                        if (now.after(seen.get())) {
                            seen.set(now);
                            return true;
                        }
                        return false;
                    });
                }
                // and the consumer's lease is still held, and live
                assertThat(leaseUntil(db, broker.instanceId())).isAfter(new Timestamp(System.currentTimeMillis()));
                assertThat(truncateWaitingOnLock(db))
                        .as("retirement still blocked")
                        .isTrue();
                assertThat(broker.stats().slicesRetired()).isZero();
                holder.rollback();
            }
            Awaitility.await()
                    .atMost(Duration.ofSeconds(20))
                    .until(() -> broker.stats().slicesRetired() >= 1);
        }
    }

    private static void sendAndConsume(Broker broker, String queue, int n) {
        try (BrokerSession p = broker.openSession(BrokerSession.Mode.TRANSACTED);
                BrokerSession c = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            for (int i = 0; i < n; i++) {
                p.send(queue, Messages.text("m" + i));
            }
            p.commit();
            for (int i = 0; i < n; i++) {
                assertThat(c.receive(queue, 10_000, false)).as("message %d", i).isNotNull();
            }
            c.commit();
        }
    }

    private static long leaderRow(TestDatabase db) throws SQLException {
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("select instance_id from shardq.leader where role = 'maintenance'")) {
            return rs.next() ? rs.getLong(1) : -1;
        }
    }

    private static Timestamp heartbeatAt(TestDatabase db, long instance) throws SQLException {
        try (Connection c = db.connect();
                PreparedStatement ps = c.prepareStatement("select heartbeat_at from shardq.instance where id = ?")) {
            ps.setLong(1, instance);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getTimestamp(1);
            }
        }
    }

    private static Timestamp leaseUntil(TestDatabase db, long instance) throws SQLException {
        try (Connection c = db.connect();
                PreparedStatement ps =
                        c.prepareStatement("select max(lease_until) from shardq.cursor where lease_instance = ?")) {
            ps.setLong(1, instance);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                Timestamp t = rs.getTimestamp(1);
                return t == null ? new Timestamp(0) : t;
            }
        }
    }

    private static boolean truncateWaitingOnLock(TestDatabase db) throws SQLException {
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("select count(*) from pg_stat_activity where datname = current_database()"
                        + " and wait_event_type = 'Lock' and query ilike 'truncate%'")) {
            rs.next();
            return rs.getInt(1) > 0;
        }
    }
}
