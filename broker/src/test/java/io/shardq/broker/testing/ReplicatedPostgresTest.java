package io.shardq.broker.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.testing.ReplicatedPostgres.Replication;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The harness itself: a synchronous standby has every committed row, a failover (the primary
 * killed, the standby promoted) keeps them, the cluster URL finds the new primary, and a standby
 * rebuilt from the new primary takes over in its turn.
 */
@Tag("fault")
class ReplicatedPostgresTest {
    @Test
    void committedRows_surviveTwoFailovers_andTheClusterUrlFindsEachNewPrimary() throws Exception {
        try (ReplicatedPostgres pg = ReplicatedPostgres.start("shardq-ha-harness", Replication.SYNCHRONOUS)) {
            exec(pg.jdbcUrl(), "CREATE TABLE t (n integer PRIMARY KEY)");
            exec(pg.jdbcUrl(), "INSERT INTO t VALUES (1)");
            // synchronous: on the standby by the time the commit returned (replayed soon after)
            assertThat(countEventually(pg.standbyUrl(), 1)).isEqualTo(1);
            String before = pg.primaryUrl();

            pg.failover();
            assertThat(pg.primaryUrl()).isNotEqualTo(before);
            assertThat(count(pg.jdbcUrl())).isEqualTo(1);
            exec(pg.jdbcUrl(), "INSERT INTO t VALUES (2)");
            assertThat(inRecovery(pg.jdbcUrl())).isFalse();

            pg.rebuildStandby();
            exec(pg.jdbcUrl(), "INSERT INTO t VALUES (3)");
            pg.failover();
            assertThat(pg.primaryUrl()).isEqualTo(before); // the rebuilt standby took the dead one's port
            assertThat(count(pg.jdbcUrl())).isEqualTo(3);
        }
    }

    private static void exec(String url, String sql) throws Exception {
        try (Connection c = DriverManager.getConnection(url, "postgres", "");
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static int count(String url) throws Exception {
        try (Connection c = DriverManager.getConnection(url, "postgres", "");
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM t")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /** The standby's count once it has replayed {@code expected} rows, or what it has after 30 s. */
    private static int countEventually(String url, int expected) throws Exception {
        long deadline = System.nanoTime() + 30_000_000_000L;
        int n = -1;
        while (System.nanoTime() < deadline) {
            try {
                n = count(url);
            } catch (java.sql.SQLException tableNotReplayedYet) {
                n = -1;
            }
            if (n == expected) {
                return n;
            }
            Thread.sleep(50); // polling the standby's replay, bounded by the deadline
        }
        return n;
    }

    private static boolean inRecovery(String url) throws Exception {
        try (Connection c = DriverManager.getConnection(url, "postgres", "");
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT pg_is_in_recovery()")) {
            rs.next();
            return rs.getBoolean(1);
        }
    }
}
