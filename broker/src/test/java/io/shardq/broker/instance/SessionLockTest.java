package io.shardq.broker.instance;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The session lock that tells the fleet an instance is alive (migration V013) lives on the LISTEN
 * connection: when that connection is cut, the instance is not live until its listener has
 * reconnected and taken the lock again; then it is live again, on a new backend.
 */
@PgTest
class SessionLockTest {

    @Test
    void aCutListenConnection_takesTheLockAgainOnReconnect(TestDatabase db) throws Exception {
        try (Broker broker = Broker.start(db.brokerConfig()
                .set(BrokerProperty.HEARTBEAT_MS, 200)
                .set(BrokerProperty.LEASE_TTL_MS, 10_000)
                .build())) {
            long id = broker.instanceId();
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> lockHolder(db, id) > 0);
            int first = lockHolder(db, id);
            assertThat(live(db, id)).as("live while it holds its lock").isTrue();
            try (Connection c = db.connect();
                    PreparedStatement ps = c.prepareStatement("SELECT pg_terminate_backend(?)")) {
                ps.setInt(1, first);
                ps.executeQuery().close();
            }
            Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> {
                        int now = lockHolder(db, id);
                        return now > 0 && now != first;
                    });
            assertThat(live(db, id))
                    .as("live again once the listener took the lock again")
                    .isTrue();
        }
    }

    /** The backend holding the instance's session lock, 0 if none. */
    private static int lockHolder(TestDatabase db, long id) throws Exception {
        try (Connection c = db.connect();
                PreparedStatement ps = c.prepareStatement("SELECT coalesce(max(pid), 0) FROM pg_locks"
                        + " WHERE locktype = 'advisory' AND granted AND classid = 1397248593::oid"
                        + " AND objid = ?::bigint::oid AND objsubid = 2"
                        + " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())")) {
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    private static boolean live(TestDatabase db, long id) throws Exception {
        try (Connection c = db.connect();
                PreparedStatement ps = c.prepareStatement("SELECT ? IN (SELECT shardq.live_instances(10))")) {
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }
}
