package io.shardq.perf;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import javax.sql.DataSource;

/**
 * The one table of a reference system, in schema {@code shardq_perf}: {@code id bigserial primary
 * key, payload bytea, created_at timestamptz}, UNLOGGED for non-persistent runs. Enqueue is one
 * multi-row INSERT with one bind parameter per payload, in autocommit: one statement, one
 * transaction, one commit per batch, the least work PostgreSQL can do to store a batch.
 */
final class ReferenceTable {
    static final String SCHEMA = "shardq_perf";

    private final DataSource dataSource;
    private final String qualifiedName;
    private volatile InsertSql insertSql = new InsertSql(0, "");

    ReferenceTable(DataSource dataSource, String table) {
        if (!table.matches("[a-z][a-z0-9_]{0,47}")) {
            throw new IllegalArgumentException(
                    "table name \"" + table + "\" is invalid: expected [a-z][a-z0-9_]{0,47}");
        }
        this.dataSource = dataSource;
        this.qualifiedName = SCHEMA + "." + table;
    }

    String qualifiedName() {
        return qualifiedName;
    }

    void recreate(boolean persistent) throws SQLException {
        execute("create schema if not exists " + SCHEMA);
        execute("drop table if exists " + qualifiedName);
        execute("create " + (persistent ? "" : "unlogged ") + "table " + qualifiedName
                + " (id bigserial primary key, payload bytea not null,"
                + " created_at timestamptz not null default now())");
    }

    void drop() throws SQLException {
        execute("drop table if exists " + qualifiedName);
        try {
            execute("drop schema if exists " + SCHEMA); // restrict: stays while another table is in it
        } catch (SQLException stillInUse) {
            // another reference table lives there; whoever drops last removes the schema
        }
    }

    /** Inserts the payloads as one statement in its own transaction. */
    void insert(List<byte[]> payloads) throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(insertSql(payloads.size()))) {
            for (int i = 0; i < payloads.size(); i++) {
                ps.setBytes(i + 1, payloads.get(i));
            }
            ps.executeUpdate();
        }
    }

    long count() throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("select count(*) from " + qualifiedName)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** {@code insert into t (payload) values (?),(?),...}; remembered, as the batch size rarely changes. */
    String insertSql(int rows) {
        if (rows < 1) {
            throw new IllegalArgumentException("batch of " + rows + " payloads is invalid: expected at least 1");
        }
        InsertSql cached = insertSql;
        if (cached.rows() != rows) {
            StringBuilder sb =
                    new StringBuilder("insert into ").append(qualifiedName).append(" (payload) values (?)");
            for (int i = 1; i < rows; i++) {
                sb.append(",(?)");
            }
            cached = new InsertSql(rows, sb.toString());
            insertSql = cached;
        }
        return cached.sql();
    }

    private record InsertSql(int rows, String sql) {}

    private void execute(String sql) throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
