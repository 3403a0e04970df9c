package io.shardq.perf;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import javax.sql.DataSource;

/**
 * The reference of {@code perf cache-read}: the same entries in a plain durable table, read as an
 * application reads a row by key without any cache: a pooled connection per read and
 *
 * <pre>{@code
 * select v from shardq_perf.kv_plain where k = ?
 * }</pre>
 *
 * (a primary-key probe; pgjdbc prepares it on the server after five uses per connection, as it
 * does ShardQ's statements).
 */
final class SelectReadSystem implements ReadSystem {
    static final String NAME = "select";
    static final String TABLE = ReferenceTable.SCHEMA + ".kv_plain";
    static final String SELECT = "select v from " + TABLE + " where k = ?";

    private final DataSource dataSource;

    SelectReadSystem(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String describe() {
        return "plain table (k bytea primary key, v bytea), " + SELECT + ", pooled connection per read";
    }

    @Override
    public void setUp() throws SQLException {
        execute("create schema if not exists " + ReferenceTable.SCHEMA);
        execute("drop table if exists " + TABLE);
        execute("create table " + TABLE + " (k bytea primary key, v bytea not null)");
    }

    @Override
    public void load(List<String> keys, List<byte[]> values) throws SQLException {
        byte[][] k = new byte[keys.size()][];
        for (int i = 0; i < k.length; i++) {
            k[i] = keys.get(i).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        }
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement("insert into " + TABLE
                        + " (k, v) select * from unnest(?::bytea[], ?::bytea[]) on conflict (k) do update set v ="
                        + " excluded.v")) {
            ps.setArray(1, c.createArrayOf("bytea", k));
            ps.setArray(2, c.createArrayOf("bytea", values.toArray(new byte[0][])));
            ps.executeUpdate();
        }
    }

    @Override
    public long stored() throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("select count(*) from " + TABLE)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Override
    public Reader reader() {
        return key -> {
            try (Connection c = dataSource.getConnection();
                    PreparedStatement ps = c.prepareStatement(SELECT)) {
                ps.setBytes(1, key.getBytes(java.nio.charset.StandardCharsets.UTF_8));
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? rs.getBytes(1) : null;
                }
            }
        };
    }

    @Override
    public void close() throws SQLException {
        execute("drop table if exists " + TABLE);
    }

    private void execute(String sql) throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
