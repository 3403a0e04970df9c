package io.shardq.broker.kv;

import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.Query;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * The row/lock protocol of a cache's entry table {@code shardq."kv_<id>"}: one static method per
 * named statement (or per round trip that sends several), on a connection the caller chose (see
 * {@link KvBinding}); no state, no near cache, no error translation.
 *
 * <p><b>One key, one row.</b> Every write takes a transaction-level advisory lock per key hash,
 * in ascending hash order ({@link #BY_HASH}: two batches never deadlock), before it deletes the
 * key's old row and inserts the new one ({@code kv_lock_keys}, {@code kv_delete_many}, {@code
 * kv_insert_many}). The delete and the insert run after the lock, each with a snapshot taken when
 * it starts, so they see what an earlier holder of the lock committed: at most one live row per
 * key, whatever the writers' interleaving.
 *
 * <p><b>Expiry.</b> Every read and delete is given {@code now} (this instance's clock, epoch ms):
 * a row whose {@code expires_at} is at or before it is not live, whether or not its partition has
 * been reclaimed yet.
 */
final class KvRows {
    static final int MODE_PUT = 0;
    static final int MODE_IF_ABSENT = 1;
    static final int MODE_REPLACE = 2;
    /** Rows in ascending key-hash order: the order writers take their advisory locks in. */
    static final Comparator<Row> BY_HASH = Comparator.comparingInt(r -> r.key().hash());

    /**
     * One entry to write: encoded key and value, its expiry (epoch ms; null: none) and the bucket
     * that expiry falls in (0: the forever partition).
     */
    record Row(ByteKey key, byte[] value, Long expires, long bucket) {}

    /** A stored value and its expiry (epoch ms; {@code Long.MAX_VALUE}: none). */
    record Stored(byte[] value, long expiresAt) {}

    private KvRows() {}

    /** One key's live value, or null ({@code kv_select_one}: a generic plan, no planning per call). */
    static Stored selectOne(Connection c, KvDefinition d, ByteKey k, long now) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(Queries.withKv(Query.KV_SELECT_ONE, d.id()))) {
            ps.setBytes(1, k.bytes());
            ps.setLong(2, now);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? new Stored(rs.getBytes(1), expiresAt(rs, 2)) : null;
            }
        }
    }

    /**
     * The live entries among {@code all} ({@code kv_select_many}, one statement per chunk of
     * {@code batch}): each found key with its value and expiry goes to {@code found}.
     */
    static void selectMany(
            Connection c, KvDefinition d, List<ByteKey> all, int batch, long now, BiConsumer<ByteKey, Stored> found)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(Queries.withKv(Query.KV_SELECT_MANY, d.id()))) {
            for (int from = 0; from < all.size(); from += batch) {
                ps.setArray(1, c.createArrayOf("bytea", bytes(all.subList(from, Math.min(all.size(), from + batch)))));
                ps.setLong(2, now);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        found.accept(ByteKey.of(rs.getBytes(1)), new Stored(rs.getBytes(2), expiresAt(rs, 3)));
                    }
                }
            }
        }
    }

    /** True when {@code k} has a live row ({@code kv_select_exists}). */
    static boolean exists(Connection c, KvDefinition d, ByteKey k, long now) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(Queries.withKv(Query.KV_SELECT_EXISTS, d.id()))) {
            ps.setBytes(1, k.bytes());
            ps.setLong(2, now);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    /**
     * At most {@code limit} live keys after {@code from} (null: from the first) in the order of
     * their bytes ({@code kv_select_keys_first}, {@code kv_select_keys_after}).
     */
    static List<byte[]> selectKeys(Connection c, KvDefinition d, ByteKey from, long now, int limit)
            throws SQLException {
        List<byte[]> out = new ArrayList<>();
        Query query = from == null ? Query.KV_SELECT_KEYS_FIRST : Query.KV_SELECT_KEYS_AFTER;
        try (PreparedStatement ps = c.prepareStatement(Queries.withKv(query, d.id()))) {
            int i = 1;
            if (from != null) {
                ps.setBytes(i++, from.bytes());
            }
            ps.setLong(i++, now);
            ps.setInt(i, limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getBytes(1));
                }
            }
        }
        return out;
    }

    /**
     * Deletes {@code all} (distinct), one statement per chunk of {@code batch} ({@code
     * kv_delete_one} for a lone key, else {@code kv_delete_many}); returns how many were live.
     */
    static int deleteKeys(Connection c, KvDefinition d, List<ByteKey> all, int batch, long now) throws SQLException {
        int n = 0;
        boolean one = all.size() == 1;
        try (PreparedStatement ps =
                c.prepareStatement(Queries.withKv(one ? Query.KV_DELETE_ONE : Query.KV_DELETE_MANY, d.id()))) {
            for (int from = 0; from < all.size(); from += batch) {
                if (one) {
                    ps.setBytes(1, all.get(0).bytes());
                } else {
                    ps.setArray(
                            1, c.createArrayOf("bytea", bytes(all.subList(from, Math.min(all.size(), from + batch)))));
                }
                ps.setLong(2, now);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        n += rs.getBoolean(2) ? 1 : 0;
                    }
                }
            }
        }
        return n;
    }

    /** Truncates every partition of the cache ({@code kv_clear}). */
    static void clear(Connection c, KvDefinition d) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.KV_CLEAR))) {
            ps.setInt(1, d.id());
            ps.executeQuery().close();
        }
    }

    /**
     * Locks the partition of {@code bucket} ({@code kv_lock_partition}): in a bound transaction the
     * partition may be newer than the transaction's first use of the cache.
     */
    static void lockPartition(Connection c, KvDefinition d, long bucket) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement(Queries.withKvPartition(Query.KV_LOCK_PARTITION, d.id(), bucket))) {
            ps.executeQuery().close();
        }
    }

    /**
     * One chunk, in the transaction the binding opened: the advisory locks (ascending distinct
     * hashes: the chunks of a batch are in ascending order too), then, in later statements with
     * snapshots taken after the locks, the old rows out and the new ones in. Three statements
     * rather than one plpgsql function, with generic plans in a transaction of our own: measured
     * faster (see docs/design/kv-cache.md).
     */
    static int writeChunk(Connection c, boolean ownTransaction, KvDefinition d, int mode, List<Row> chunk, long now)
            throws SQLException {
        int size = chunk.size();
        List<Integer> hashes = new ArrayList<>(size);
        for (Row r : chunk) {
            int h = r.key().hash();
            if (hashes.isEmpty() || hashes.get(hashes.size() - 1) != h) {
                hashes.add(h);
            }
        }
        String lock = Queries.get(ownTransaction ? Query.KV_LOCK_KEYS_GENERIC : Query.KV_LOCK_KEYS);
        if (mode == MODE_PUT) {
            return putChunk(c, lock, d, chunk, hashes, now);
        }
        try (PreparedStatement ps = c.prepareStatement(lock)) {
            ps.setInt(1, d.id());
            ps.setArray(2, c.createArrayOf("integer", hashes.toArray()));
            ps.executeQuery().close();
        }
        List<Row> rows = chunk;
        if (mode == MODE_IF_ABSENT) {
            try (PreparedStatement ps = c.prepareStatement(Queries.withKv(Query.KV_DELETE_EXPIRED, d.id()))) {
                ps.setArray(1, c.createArrayOf("bytea", keys(chunk)));
                ps.setLong(2, now);
                ps.executeUpdate();
            }
        } else {
            Set<ByteKey> live = new java.util.HashSet<>();
            try (PreparedStatement ps = c.prepareStatement(Queries.withKv(Query.KV_DELETE_MANY, d.id()))) {
                ps.setArray(1, c.createArrayOf("bytea", keys(chunk)));
                ps.setLong(2, now);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        if (rs.getBoolean(2)) {
                            live.add(ByteKey.of(rs.getBytes(1)));
                        }
                    }
                }
            }
            if (mode == MODE_REPLACE) {
                rows = new ArrayList<>();
                for (Row r : chunk) {
                    if (live.contains(r.key())) {
                        rows.add(r);
                    }
                }
                if (rows.isEmpty()) {
                    return 0;
                }
            }
        }
        Query insert = mode == MODE_IF_ABSENT ? Query.KV_INSERT_ABSENT : Query.KV_INSERT_MANY;
        try (PreparedStatement ps = c.prepareStatement(Queries.withKv(insert, d.id()))) {
            bindInsert(c, ps, 1, rows, now);
            return ps.executeUpdate();
        }
    }

    /** Binds kv_insert_many's (or kv_insert_absent's) five parameters from {@code first} on. */
    private static void bindInsert(Connection c, PreparedStatement ps, int first, List<Row> rows, long now)
            throws SQLException {
        int n = rows.size();
        byte[][] vs = new byte[n][];
        Long[] es = new Long[n];
        Long[] bs = new Long[n];
        for (int i = 0; i < n; i++) {
            Row r = rows.get(i);
            vs[i] = r.value();
            es[i] = r.expires();
            bs[i] = r.bucket();
        }
        ps.setLong(first, now);
        ps.setArray(first + 1, c.createArrayOf("bytea", keys(rows)));
        ps.setArray(first + 2, c.createArrayOf("bytea", vs));
        ps.setArray(first + 3, c.createArrayOf("bigint", es));
        ps.setArray(first + 4, c.createArrayOf("bigint", bs));
    }

    /**
     * A put's chunk as one round trip: the lock, the delete and the insert sent together (pgjdbc
     * sends the statements of one prepared string with a single Sync). PostgreSQL still runs them
     * one after another, each with a snapshot taken when it starts, so the delete sees what an
     * earlier holder of the locks committed, as with three round trips; outside a transaction the
     * three form one implicit transaction, committed at the Sync, so a lone putAll chunk is one
     * round trip and one commit (it was four: lock, delete, insert, COMMIT).
     */
    private static int putChunk(
            Connection c, String lock, KvDefinition d, List<Row> chunk, List<Integer> hashes, long now)
            throws SQLException {
        String sql = lock + ";\n" + Queries.withKv(Query.KV_DELETE_MANY, d.id()) + ";\n"
                + Queries.withKv(Query.KV_INSERT_MANY, d.id());
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setInt(1, d.id());
            ps.setArray(2, c.createArrayOf("integer", hashes.toArray()));
            ps.setArray(3, c.createArrayOf("bytea", keys(chunk)));
            ps.setLong(4, now);
            bindInsert(c, ps, 5, chunk, now);
            boolean resultSet = ps.execute();
            int inserted = 0;
            while (true) {
                if (!resultSet) {
                    int count = ps.getUpdateCount();
                    if (count == -1) {
                        break;
                    }
                    inserted = count; // the insert's, the last statement's
                }
                resultSet = ps.getMoreResults();
            }
            return inserted;
        }
    }

    private static byte[][] keys(List<Row> rows) {
        byte[][] out = new byte[rows.size()][];
        for (int i = 0; i < out.length; i++) {
            out[i] = rows.get(i).key().bytes();
        }
        return out;
    }

    static byte[][] bytes(List<ByteKey> keys) {
        byte[][] out = new byte[keys.size()][];
        for (int i = 0; i < out.length; i++) {
            out[i] = keys.get(i).bytes();
        }
        return out;
    }

    /** The keys' 64-bit hashes, as near caches and their NOTIFYs name them. */
    static long[] hashes(Collection<ByteKey> keys) {
        long[] out = new long[keys.size()];
        int i = 0;
        for (ByteKey k : keys) {
            out[i++] = NearCache.hash64(k.bytes());
        }
        return out;
    }

    private static long expiresAt(ResultSet rs, int column) throws SQLException {
        long ms = rs.getLong(column);
        return rs.wasNull() ? Long.MAX_VALUE : ms;
    }
}
