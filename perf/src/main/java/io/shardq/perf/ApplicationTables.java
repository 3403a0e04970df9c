package io.shardq.perf;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * The application's own tables in the {@code mixed} scenario, in schema {@code shardq_perf}:
 * {@code accounts} (N rows; {@code update-account} adds to a balance and counts the update) and
 * {@code audit} (one row per {@code insert-audit}). The workers' statements run on the JDBC
 * connection of their JMS session's transaction, so they commit or roll back with the messages;
 * setting up, counting and dropping use the harness's own pool.
 */
final class ApplicationTables {
    static final String ACCOUNTS = ReferenceTable.SCHEMA + ".accounts";
    static final String AUDIT = ReferenceTable.SCHEMA + ".audit";

    private static final String UPDATE_ACCOUNT =
            "update " + ACCOUNTS + " set balance = balance + ?, updates = updates + 1 where id = ?";
    private static final String INSERT_AUDIT =
            "insert into " + AUDIT + " (template, user_no, messages) values (?, ?, ?)";

    private final DataSource dataSource;

    ApplicationTables(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /** Drops what a previous run left, then creates both tables with {@code accounts} rows. */
    void recreate(int accounts) throws SQLException {
        execute("create schema if not exists " + ReferenceTable.SCHEMA);
        execute("drop table if exists " + ACCOUNTS + ", " + AUDIT);
        execute("create table " + ACCOUNTS
                + " (id int primary key, balance bigint not null default 0, updates bigint not null default 0)");
        execute("insert into " + ACCOUNTS + " (id) select generate_series(1, " + accounts + ")");
        execute("create table " + AUDIT + " (id bigserial primary key, template text not null,"
                + " user_no int not null, messages int not null, created_at timestamptz not null default now())");
        execute("analyze " + ACCOUNTS);
    }

    /** {@code update-account}, on the caller's (the session's) connection; returns rows changed. */
    static int updateAccount(Connection c, int accountId, long amount) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(UPDATE_ACCOUNT)) {
            ps.setLong(1, amount);
            ps.setInt(2, accountId);
            return ps.executeUpdate();
        }
    }

    /** {@code insert-audit}, on the caller's (the session's) connection. */
    static void insertAudit(Connection c, String template, int user, int messages) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(INSERT_AUDIT)) {
            ps.setString(1, template);
            ps.setInt(2, user);
            ps.setInt(3, messages);
            ps.executeUpdate();
        }
    }

    /** Updates ever committed on accounts: the sum of their update counters. */
    long accountUpdates() throws SQLException {
        return single("select coalesce(sum(updates), 0) from " + ACCOUNTS);
    }

    long auditRows() throws SQLException {
        return single("select count(*) from " + AUDIT);
    }

    /** Drops both tables, and the schema when nothing else is left in it. */
    void drop() throws SQLException {
        execute("drop table if exists " + ACCOUNTS + ", " + AUDIT);
        try {
            execute("drop schema if exists " + ReferenceTable.SCHEMA); // restrict: stays if not empty
        } catch (SQLException stillInUse) {
            // a reference system's table is still there; whoever drops last removes the schema
        }
    }

    private long single(String sql) throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private void execute(String sql) throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
