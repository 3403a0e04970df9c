package io.shardq.perf;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Everything the harness measures on the server itself, each on a connection of its own so a
 * failure (an old server, a missing privilege) costs one optional figure, never the run.
 */
final class ServerProbe {
    /** The application name of a ShardQ broker's connections (its pool's name). */
    static final String SHARDQ_APPLICATION_NAME = "shardq-pool";

    private final DataSource dataSource;

    ServerProbe(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /** The settings printed first in every report. */
    Environment environment(String displayUrl, boolean embedded) throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("select current_setting('server_version'), current_setting('fsync'),"
                        + " current_setting('synchronous_commit'),"
                        + " (select reset_val from pg_settings where name = 'synchronous_commit'),"
                        + " current_setting('full_page_writes'), current_setting('shared_buffers')")) {
            rs.next();
            return new Environment(
                    displayUrl,
                    embedded,
                    rs.getString(1),
                    rs.getString(2),
                    rs.getString(3),
                    rs.getString(4),
                    rs.getString(5),
                    rs.getString(6),
                    Runtime.getRuntime().availableProcessors(),
                    Environment.describeJvm(),
                    Environment.describeOs());
        }
    }

    /** {@code pg_current_wal_lsn()}, or empty on a standby or when it cannot be read. */
    Optional<String> currentWalLsn() {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("select pg_current_wal_lsn()::text")) {
            rs.next();
            return Optional.ofNullable(rs.getString(1));
        } catch (SQLException e) {
            return Optional.empty();
        }
    }

    /**
     * Starts a step from a fresh checkpoint, so every system pays the same full-page images after
     * it. Needs superuser or {@code pg_checkpoint}; returns false when refused.
     */
    boolean checkpoint() {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            s.execute("checkpoint");
            return true;
        } catch (SQLException e) {
            return false;
        }
    }

    /**
     * {@code VACUUM (ANALYZE)} of the whole database, so that no system's step starts while
     * autovacuum works on rows another just loaded. Returns false when refused.
     */
    boolean vacuumAnalyzeAll() {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            c.setAutoCommit(true); // VACUUM cannot run inside a transaction block
            s.execute("vacuum (analyze)");
            return true;
        } catch (SQLException e) {
            return false;
        }
    }

    /**
     * {@code VACUUM} of one table (a validated, schema-qualified name), so a step does not start
     * with another run's dead rows. Needs the table's owner; returns false when refused.
     */
    boolean vacuum(String table) {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            c.setAutoCommit(true); // VACUUM cannot run inside a transaction block
            s.execute("vacuum " + table);
            return true;
        } catch (SQLException e) {
            return false;
        }
    }

    /**
     * Total size (heap, indexes, TOAST) and dead tuples of the tables and all their partitions.
     * Backends flush their table statistics at most once a second, so call this more than a second
     * after the workers stopped; {@code pg_stat_force_next_flush()} (PostgreSQL 15+) flushes this
     * session's own.
     */
    TableStats tableStats(List<String> tables) throws SQLException {
        long bytes = 0;
        long dead = 0;
        try (Connection c = dataSource.getConnection()) {
            try (Statement s = c.createStatement()) {
                s.execute("select pg_stat_force_next_flush()");
            } catch (SQLException olderThan15) {
                // the statistics are then up to a second older; nothing else to do
            }
            for (String table : tables) {
                // pg_partition_tree is empty for a plain table, so the table itself is added
                try (PreparedStatement ps = c.prepareStatement(
                        "with t as (select relid from pg_partition_tree(?::regclass) union select ?::regclass)"
                                + " select coalesce(sum(pg_total_relation_size(t.relid)), 0),"
                                + " coalesce(sum(st.n_dead_tup), 0)"
                                + " from t left join pg_stat_all_tables st on st.relid = t.relid")) {
                    ps.setString(1, table);
                    ps.setString(2, table);
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        bytes += rs.getLong(1);
                        dead += rs.getLong(2);
                    }
                }
            }
        }
        return new TableStats(bytes, dead);
    }

    /**
     * Transactions committed so far in this pool's database ({@code pg_stat_database.xact_commit}:
     * every backend's commits, read-only ones and autocommit statements included), or -1 when it
     * cannot be read. Backends report their counts to the statistics at most once a second, so a
     * reading lags each busy backend by up to a second; over a window the lag at its start and at
     * its end roughly cancel.
     */
    long xactCommits() {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery("select xact_commit from pg_stat_database where datname = current_database()")) {
            return rs.next() ? rs.getLong(1) : -1;
        } catch (SQLException e) {
            return -1;
        }
    }

    /**
     * The server processes whose CPU time is counted: in this pool's database, this pool's
     * backends (same application name) and the backends of ShardQ's own pool (the JMS factory a
     * system opens has its own, named {@value #SHARDQ_APPLICATION_NAME} by the broker); and the
     * background processes (WAL writer, checkpointer, background writer, autovacuum launcher, and
     * autovacuum workers of this database). Backends of other databases, and clients with another
     * application name, are not counted.
     */
    List<Integer> serverPids() {
        List<Integer> pids = new ArrayList<>();
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("select pid from pg_stat_activity"
                        + " where (backend_type <> 'client backend' and (datname is null or datname = current_database()))"
                        + " or (datname = current_database() and application_name in (current_setting('application_name'), '"
                        + SHARDQ_APPLICATION_NAME + "'))")) {
            while (rs.next()) {
                pids.add(rs.getInt(1));
            }
        } catch (SQLException e) {
            return List.of();
        }
        return pids;
    }

    /** The process id of the backend serving a connection of this pool, or -1. */
    int backendPid() {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("select pg_backend_pid()")) {
            rs.next();
            return rs.getInt(1);
        } catch (SQLException e) {
            return -1;
        }
    }

    /** Size and dead tuples of a system's tables at the end of a step. */
    record TableStats(long bytes, long deadTuples) {}
}
