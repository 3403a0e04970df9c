package io.shardq.perf;

import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
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

    private final KeyValueTable table;

    SelectReadSystem(DataSource dataSource) {
        this.table = new KeyValueTable(dataSource, "kv_plain");
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String describe() {
        return "plain table (k bytea primary key, v bytea), " + table.selectSql() + ", pooled connection per read";
    }

    @Override
    public void setUp() throws SQLException {
        table.recreate();
    }

    @Override
    public void load(List<String> keys, List<byte[]> values) throws SQLException {
        byte[][] k = new byte[keys.size()][];
        for (int i = 0; i < k.length; i++) {
            k[i] = keys.get(i).getBytes(StandardCharsets.UTF_8);
        }
        table.upsert(k, values);
    }

    @Override
    public long stored() throws SQLException {
        return table.count();
    }

    @Override
    public Reader reader() {
        return key -> table.read(key.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public void close() throws SQLException {
        table.drop();
    }
}
