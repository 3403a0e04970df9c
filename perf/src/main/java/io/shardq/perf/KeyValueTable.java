package io.shardq.perf;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import javax.sql.DataSource;

/**
 * The plain key/value table the cache benchmarks' references use, in schema {@code shardq_perf}:
 * {@code k bytea primary key, v bytea}, durable, written by one multi-row upsert from two arrays
 * (one statement, one round trip, one commit per batch in autocommit), read by a primary-key probe.
 */
final class KeyValueTable {
    private final DataSource dataSource;
    private final String table;
    private final String upsert;
    private final String select;

    KeyValueTable(DataSource dataSource, String name) {
        if (!name.matches("[a-z][a-z0-9_]{0,47}")) {
            throw new IllegalArgumentException("table name \"" + name + "\" is invalid: expected [a-z][a-z0-9_]{0,47}");
        }
        this.dataSource = dataSource;
        this.table = ReferenceTable.SCHEMA + "." + name;
        this.upsert = "insert into " + table + " (k, v) select * from unnest(?::bytea[], ?::bytea[])"
                + " on conflict (k) do update set v = excluded.v";
        this.select = "select v from " + table + " where k = ?";
    }

    /** The upsert statement, as the report describes it. */
    String upsertSql() {
        return upsert;
    }

    /** The read statement, as the report describes it. */
    String selectSql() {
        return select;
    }

    void recreate() throws SQLException {
        execute("create schema if not exists " + ReferenceTable.SCHEMA);
        execute("drop table if exists " + table);
        execute("create table " + table + " (k bytea primary key, v bytea not null)");
    }

    void upsert(byte[][] keys, List<byte[]> values) throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(upsert)) {
            ps.setArray(1, c.createArrayOf("bytea", keys));
            ps.setArray(2, c.createArrayOf("bytea", values.toArray(new byte[0][])));
            ps.executeUpdate();
        }
    }

    /** The value of {@code key}, or null: a pooled connection per read, as an application without a cache. */
    byte[] read(byte[] key) throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(select)) {
            ps.setBytes(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getBytes(1) : null;
            }
        }
    }

    long count() throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("select count(*) from " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    void drop() throws SQLException {
        execute("drop table if exists " + table);
    }

    private void execute(String sql) throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
