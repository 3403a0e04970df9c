package io.shardq.perf;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import javax.sql.DataSource;

/**
 * The reference of {@code perf cache-putall}: what an application would write by hand, one
 * multi-row upsert per batch from two arrays into a plain durable table with a bytea primary key,
 * in autocommit (one statement, one round trip, one commit per batch), on a pooled connection:
 *
 * <pre>{@code
 * insert into shardq_perf.kv_upsert (k, v) select * from unnest(?::bytea[], ?::bytea[])
 * on conflict (k) do update set v = excluded.v
 * }</pre>
 */
final class UpsertPutAllSystem implements PutAllSystem {
    static final String NAME = "upsert";
    static final String TABLE = ReferenceTable.SCHEMA + ".kv_upsert";
    static final String UPSERT = "insert into " + TABLE + " (k, v) select * from unnest(?::bytea[], ?::bytea[])"
            + " on conflict (k) do update set v = excluded.v";

    private final DataSource dataSource;

    UpsertPutAllSystem(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void setUp() throws SQLException {
        execute("create schema if not exists " + ReferenceTable.SCHEMA);
        execute("drop table if exists " + TABLE);
        execute("create table " + TABLE + " (k bytea primary key, v bytea not null)");
    }

    @Override
    public void putAll(List<byte[]> keys, List<byte[]> values) throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(UPSERT)) {
            ps.setArray(1, c.createArrayOf("bytea", keys.toArray(new byte[0][])));
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
