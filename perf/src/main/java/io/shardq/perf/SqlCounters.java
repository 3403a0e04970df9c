package io.shardq.perf;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * What the server executed, counted on the server, so a benchmark can divide it by the messages
 * it moved. Two sources:
 *
 * <ul>
 *   <li>{@code pg_stat_statements}, when the server preloads it ({@code shared_preload_libraries}):
 *       every statement's calls by {@code queryid}, so statements per message and which ones. The
 *       extension is created in the database if missing (it needs the library loaded; the harness
 *       never changes server settings);
 *   <li>{@code pg_stat_database}, always: transactions (commits and rollbacks) and rows inserted,
 *       updated, deleted and returned. Backends report these at most once a second, so read them
 *       more than a second after the work ({@link Runner#STATS_FLUSH_WAIT}).
 * </ul>
 *
 * Both count the whole database: the harness's own probes and ShardQ's background work too.
 */
final class SqlCounters {
    private final DataSource dataSource;
    private volatile Boolean statementsAvailable;

    SqlCounters(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /** One reading. {@code statements} is -1 and {@code byQuery} empty without pg_stat_statements. */
    record Snapshot(
            long statements,
            Map<Long, QueryCalls> byQuery,
            long transactions,
            long inserted,
            long updated,
            long deleted,
            long returned,
            long checkpoints) {}

    /** Calls of one normalized statement, the time it ran and the WAL it wrote (full-page images included). */
    record QueryCalls(long queryId, String query, long calls, double execMillis, long walBytes, long walFpi) {

        QueryCalls plus(QueryCalls o) {
            return new QueryCalls(
                    queryId,
                    query,
                    calls + o.calls,
                    execMillis + o.execMillis,
                    walBytes + o.walBytes,
                    walFpi + o.walFpi);
        }

        QueryCalls minus(QueryCalls before) {
            return before == null
                    ? this
                    : new QueryCalls(
                            queryId,
                            query,
                            calls - before.calls,
                            execMillis - before.execMillis,
                            walBytes - before.walBytes,
                            walFpi - before.walFpi);
        }

        /** Mean execution time per call, in milliseconds. */
        double meanMillis() {
            return calls == 0 ? Double.NaN : execMillis / calls;
        }
    }

    /** Whether pg_stat_statements can be read (looked up once; the extension created if missing). */
    boolean statementsAvailable() {
        Boolean a = statementsAvailable;
        if (a == null) {
            a = probeStatements();
            statementsAvailable = a;
        }
        return a;
    }

    private boolean probeStatements() {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("select current_setting('shared_preload_libraries')")) {
                rs.next();
                if (!rs.getString(1).contains("pg_stat_statements")) {
                    return false;
                }
            }
            s.execute("create extension if not exists pg_stat_statements");
            try (ResultSet rs = s.executeQuery("select count(*) from pg_stat_statements")) {
                return rs.next();
            }
        } catch (SQLException e) {
            return false;
        }
    }

    Snapshot snapshot() throws SQLException {
        long statements = -1;
        Map<Long, QueryCalls> byQuery = Map.of();
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            if (statementsAvailable()) {
                byQuery = new HashMap<>();
                statements = 0;
                try (ResultSet rs = s.executeQuery("select queryid, calls, query, total_exec_time, wal_bytes, wal_fpi"
                        + " from pg_stat_statements"
                        + " where dbid = (select oid from pg_database where datname = current_database())")) {
                    while (rs.next()) {
                        long calls = rs.getLong(2);
                        statements += calls;
                        // a queryid may show once per user and toplevel flag: add them up
                        byQuery.merge(
                                rs.getLong(1),
                                new QueryCalls(
                                        rs.getLong(1),
                                        rs.getString(3),
                                        calls,
                                        rs.getDouble(4),
                                        rs.getLong(5),
                                        rs.getLong(6)),
                                QueryCalls::plus);
                    }
                }
            }
            long checkpoints = checkpoints(c);
            try (ResultSet rs = s.executeQuery("select xact_commit + xact_rollback, tup_inserted, tup_updated,"
                    + " tup_deleted, tup_returned from pg_stat_database where datname = current_database()")) {
                rs.next();
                return new Snapshot(
                        statements,
                        byQuery,
                        rs.getLong(1),
                        rs.getLong(2),
                        rs.getLong(3),
                        rs.getLong(4),
                        rs.getLong(5),
                        checkpoints);
            }
        }
    }

    /** Checkpoints since the statistics were reset (timed and requested); -1 when unreadable. */
    private static long checkpoints(Connection c) {
        for (String sql : List.of(
                "select num_timed + num_requested from pg_stat_checkpointer", // PostgreSQL 17+
                "select checkpoints_timed + checkpoints_req from pg_stat_bgwriter")) {
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery(sql)) {
                rs.next();
                return rs.getLong(1);
            } catch (SQLException e) {
                // the other server version's view
            }
        }
        return -1;
    }

    /** What ran between two readings. */
    record Delta(
            long statements,
            List<QueryCalls> top,
            long transactions,
            long inserted,
            long updated,
            long deleted,
            long checkpoints) {

        /** -1 statements: not counted (no pg_stat_statements). */
        boolean statementsCounted() {
            return statements >= 0;
        }
    }

    /** {@code b - a}, with the {@code topN} statements called most often in between. */
    static Delta between(Snapshot a, Snapshot b, int topN) {
        List<QueryCalls> top = new ArrayList<>();
        for (QueryCalls q : b.byQuery().values()) {
            QueryCalls d = q.minus(a.byQuery().get(q.queryId()));
            if (d.calls() > 0) {
                top.add(d);
            }
        }
        top.sort(Comparator.comparingLong(QueryCalls::calls).reversed());
        return new Delta(
                a.statements() < 0 || b.statements() < 0 ? -1 : b.statements() - a.statements(),
                List.copyOf(top.subList(0, Math.min(topN, top.size()))),
                b.transactions() - a.transactions(),
                b.inserted() - a.inserted(),
                b.updated() - a.updated(),
                b.deleted() - a.deleted(),
                a.checkpoints() < 0 || b.checkpoints() < 0 ? -1 : b.checkpoints() - a.checkpoints());
    }
}
