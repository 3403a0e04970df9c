package io.shardq.perf;

import java.sql.SQLException;
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

    private final KeyValueTable table;

    UpsertPutAllSystem(DataSource dataSource) {
        this.table = new KeyValueTable(dataSource, "kv_upsert");
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void setUp() throws SQLException {
        table.recreate();
    }

    @Override
    public void putAll(List<byte[]> keys, List<byte[]> values) throws SQLException {
        table.upsert(keys.toArray(new byte[0][]), values);
    }

    @Override
    public long stored() throws SQLException {
        return table.count();
    }

    @Override
    public void close() throws SQLException {
        table.drop();
    }
}
