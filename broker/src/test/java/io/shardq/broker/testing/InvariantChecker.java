package io.shardq.broker.testing;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks the invariants of a ShardQ database that no single test asserts but every test must
 * leave true: cursors at or below their shard's head, no lease held by a stopped instance, no
 * dequeue-log run at or below its cursor, no message a cursor still needs retired, no passed
 * slice left once the fleet is gone, no draining shard owned or written for enqueue, shard rows
 * that match the shard count. Modelled on Caffeine's {@code CacheValidationInterceptor}: {@link
 * PgExtension} runs it after every {@code @PgTest} class, before the class's database is
 * dropped, and fails the class with what it found.
 *
 * <p>The checks are named SQL blocks in {@code io/shardq/broker/testing/invariants.sql} (one
 * block per invariant, its rows the violations), run through plain JDBC in one REPEATABLE READ
 * transaction that is rolled back, so they see one consistent snapshot and change nothing. A
 * block whose tables or columns the schema lacks is skipped: a test that never started a
 * broker has no {@code shardq} schema, a migration test may stop at an old version.
 *
 * <p>A test can call {@link #check(Connection)} itself, inside its own transaction: that is how
 * {@code InvariantCheckerTest} corrupts a database, sees the report and rolls the corruption
 * back so its own class passes.
 */
public final class InvariantChecker {
    private static final String RESOURCE = "/io/shardq/broker/testing/invariants.sql";
    private static final int MAX_ROWS_REPORTED = 20;
    private static final List<Check> CHECKS = load();

    private InvariantChecker() {}

    /** One invariant: its name, what must hold, its SQL, what it needs of the schema. */
    record Check(String name, String invariant, String sql, List<String> requires, String when, boolean note) {}

    /** An invariant that does not hold, and the rows that break it (column label to value). */
    public record Violation(String invariant, String description, List<Map<String, Object>> rows, int rowCount) {
        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder();
            sb.append(invariant).append(" (").append(description).append("): ").append(rowCount);
            sb.append(rowCount == 1 ? " row" : " rows");
            for (Map<String, Object> row : rows) {
                sb.append("\n    ").append(row);
            }
            if (rowCount > rows.size()) {
                sb.append("\n    ... ").append(rowCount - rows.size()).append(" more");
            }
            return sb.toString();
        }
    }

    /**
     * What one run found: {@code violations} fail a class; {@code notes} are rows of a
     * {@code severity: note} block, reported but not failing; {@code skipped} names the blocks
     * that did not run (schema lacking, or their condition false); {@code instanceAlive} whether
     * some instance was alive (not stopped, a heartbeat within a minute).
     */
    public record Report(
            List<Violation> violations,
            List<Violation> notes,
            List<String> checked,
            List<String> skipped,
            boolean instanceAlive) {
        public boolean ok() {
            return violations.isEmpty();
        }

        /** The violation of {@code invariant}, or null. */
        public Violation violation(String invariant) {
            return find(violations, invariant);
        }

        /** The note of {@code invariant}, or null. */
        public Violation note(String invariant) {
            return find(notes, invariant);
        }

        private static Violation find(List<Violation> list, String invariant) {
            return list.stream()
                    .filter(v -> v.invariant().equals(invariant))
                    .findFirst()
                    .orElse(null);
        }

        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder();
            if (violations.isEmpty()) {
                sb.append("invariants hold (")
                        .append(checked)
                        .append("; skipped ")
                        .append(skipped)
                        .append(')');
            } else {
                sb.append(violations.size()).append(violations.size() == 1 ? " invariant" : " invariants");
                sb.append(" violated:");
                for (Violation v : violations) {
                    sb.append("\n  ").append(v);
                }
            }
            for (Violation n : notes) {
                sb.append("\n  note, not a failure: ").append(n);
            }
            return sb.toString();
        }
    }

    /** The names of every invariant, in the file's order. */
    public static List<String> invariants() {
        return CHECKS.stream()
                .filter(c -> !c.invariant().isEmpty())
                .map(Check::name)
                .toList();
    }

    /**
     * Checks the database {@code c} is connected to, in {@code c}'s current transaction when
     * auto-commit is off (the caller ends it), else in a REPEATABLE READ transaction of its own
     * that is rolled back.
     */
    public static Report check(Connection c) throws SQLException {
        if (!c.getAutoCommit()) {
            return run(c);
        }
        int isolation = c.getTransactionIsolation();
        c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        c.setAutoCommit(false);
        try {
            return run(c);
        } finally {
            c.rollback();
            c.setAutoCommit(true);
            c.setTransactionIsolation(isolation);
        }
    }

    /**
     * Checks {@code db} in a fresh connection. When an instance is still alive (a test left a
     * broker running, or killed a child JVM a moment ago) and something was found, checks once
     * more in a new snapshot and reports that: a live leader may retire a slice between this
     * snapshot and the row count (TRUNCATE is not MVCC-safe: an older snapshot sees the table
     * empty), after cursors this snapshot is too old to see moved past it. A real violation
     * stays in the second snapshot; that race does not.
     */
    public static Report check(TestDatabase db) throws SQLException {
        Report report = checkOnce(db);
        return report.ok() || !report.instanceAlive() ? report : checkOnce(db);
    }

    private static Report checkOnce(TestDatabase db) throws SQLException {
        for (int attempt = 1; ; attempt++) {
            try (Connection c = db.connect()) {
                return check(c);
            } catch (SQLException e) {
                // 40001: a row locked FOR UPDATE was changed after the snapshot (by an instance
                // a test left running); a fresh snapshot settles it
                if (!"40001".equals(e.getSQLState()) || attempt == 3) {
                    throw e;
                }
            }
        }
    }

    private static Report run(Connection c) throws SQLException {
        List<Violation> violations = new ArrayList<>();
        List<Violation> notes = new ArrayList<>();
        List<String> checked = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        boolean noLiveInstance = !schemaHas(c, List.of("shardq.instance")) || noLiveInstance(c);
        for (Check check : CHECKS) {
            if (check.invariant().isEmpty()) {
                continue; // a helper block (a condition), not an invariant
            }
            if (!schemaHas(c, check.requires())) {
                skipped.add(check.name());
                continue;
            }
            if ("no_live_instance".equals(check.when())) {
                if (!noLiveInstance) {
                    skipped.add(check.name() + " (an instance is alive)");
                    continue;
                }
            }
            Violation v;
            Savepoint sp = c.setSavepoint();
            try {
                v = runCheck(c, check);
                c.releaseSavepoint(sp);
            } catch (SQLException e) {
                // 42P01/42703: a schema older than the check (a migration test stopped at an
                // earlier version); InvariantCheckerTest runs every check on the current schema
                if (!"42P01".equals(e.getSQLState()) && !"42703".equals(e.getSQLState())) {
                    throw e;
                }
                c.rollback(sp);
                skipped.add(check.name() + " (schema older than the check)");
                continue;
            }
            checked.add(check.name());
            if (v != null) {
                (check.note() ? notes : violations).add(v);
            }
        }
        return new Report(
                List.copyOf(violations),
                List.copyOf(notes),
                List.copyOf(checked),
                List.copyOf(skipped),
                !noLiveInstance);
    }

    /**
     * A check as the server can run it: on a Citus coordinator (the citus extension installed)
     * without its {@code FOR UPDATE OF x SKIP LOCKED} line, which Citus refuses in a statement over
     * several shards; it only skips rows a prepared (XA) transaction holds, and ShardQ on Citus
     * refuses XA.
     */
    private static String forServer(Connection c, String sql) throws SQLException {
        try (PreparedStatement ps =
                        c.prepareStatement("select exists (select 1 from pg_extension where extname = 'citus')");
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getBoolean(1) ? sql.replaceAll("(?m)^\\s*FOR UPDATE OF \\w+ SKIP LOCKED\\s*$", "") : sql;
        }
    }

    private static Violation runCheck(Connection c, Check check) throws SQLException {
        List<Map<String, Object>> rows = new ArrayList<>();
        int count = 0;
        try (PreparedStatement ps = c.prepareStatement(forServer(c, check.sql()));
                ResultSet rs = ps.executeQuery()) {
            ResultSetMetaData md = rs.getMetaData();
            while (rs.next()) {
                count++;
                if (rows.size() < MAX_ROWS_REPORTED) {
                    Map<String, Object> row = new LinkedHashMap<>();
                    for (int i = 1; i <= md.getColumnCount(); i++) {
                        row.put(md.getColumnLabel(i), rs.getObject(i));
                    }
                    rows.add(row);
                }
            }
        } catch (SQLException e) {
            throw new SQLException(
                    "invariant check " + check.name() + " failed to run: " + e.getMessage(), e.getSQLState(), e);
        }
        return count == 0 ? null : new Violation(check.name(), check.invariant(), List.copyOf(rows), count);
    }

    private static boolean noLiveInstance(Connection c) throws SQLException {
        Check cond = CHECKS.stream()
                .filter(k -> k.name().equals("no_live_instance"))
                .findFirst()
                .orElseThrow();
        try (PreparedStatement ps = c.prepareStatement(cond.sql());
                ResultSet rs = ps.executeQuery()) {
            return rs.next() && rs.getBoolean(1);
        }
    }

    /** Whether every {@code schema.table} or {@code schema.table.column} exists. */
    private static boolean schemaHas(Connection c, List<String> requires) throws SQLException {
        for (String r : requires) {
            String[] p = r.split("\\.");
            try (PreparedStatement ps = c.prepareStatement(
                    p.length == 2
                            ? "SELECT 1 FROM information_schema.tables WHERE table_schema = ? AND table_name = ?"
                            : "SELECT 1 FROM information_schema.columns WHERE table_schema = ? AND table_name = ?"
                                    + " AND column_name = ?")) {
                for (int i = 0; i < p.length; i++) {
                    ps.setString(i + 1, p[i]);
                }
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return false;
                    }
                }
            }
        }
        return true;
    }

    private static List<Check> load() {
        String text;
        try (InputStream in = InvariantChecker.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " missing from the class path");
            }
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + RESOURCE, e);
        }
        List<Check> out = new ArrayList<>();
        String name = null;
        StringBuilder invariant = new StringBuilder();
        StringBuilder sql = new StringBuilder();
        List<String> requires = new ArrayList<>();
        String when = null;
        boolean note = false;
        for (String line : text.split("\n")) {
            if (line.startsWith("-- name: ")) {
                if (name != null) {
                    out.add(new Check(
                            name, invariant.toString(), sql.toString().strip(), List.copyOf(requires), when, note));
                }
                name = line.substring("-- name: ".length()).strip();
                invariant.setLength(0);
                sql.setLength(0);
                requires.clear();
                when = null;
                note = false;
            } else if (name == null) {
                continue; // the file's header
            } else if (line.startsWith("-- invariant: ")) {
                invariant
                        .append(invariant.isEmpty() ? "" : " ")
                        .append(line.substring("-- invariant: ".length()).strip());
            } else if (line.startsWith("-- requires: ")) {
                requires.add(line.substring("-- requires: ".length()).strip());
            } else if (line.startsWith("-- severity: ")) {
                note = line.substring("-- severity: ".length()).strip().equals("note");
            } else if (line.startsWith("-- when: ")) {
                when = line.substring("-- when: ".length()).strip();
            } else if (!line.startsWith("--")) {
                sql.append(line).append('\n');
            }
        }
        if (name != null) {
            out.add(new Check(name, invariant.toString(), sql.toString().strip(), List.copyOf(requires), when, note));
        }
        return List.copyOf(out);
    }
}
