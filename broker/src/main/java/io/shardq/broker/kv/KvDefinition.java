package io.shardq.broker.kv;

import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * A cache's catalog row ({@code shardq.kv_cache}) as the engine uses it. Not API.
 *
 * @param defaultTtlMs null: entries put without a TTL do not expire
 * @param maxEntries null: no bound
 * @param maxBytes null: no bound
 */
public record KvDefinition(
        int id,
        String name,
        boolean durable,
        Long defaultTtlMs,
        long maxTtlMs,
        Long maxEntries,
        Long maxBytes,
        long bucketMs,
        int maxKeyBytes,
        int maxValueBytes) {

    /**
     * The definition in the row {@code rs} is on: its first ten columns are the catalog's, in this
     * record's order ({@code id, name, durable, default_ttl_ms, max_ttl_ms, max_entries, max_bytes,
     * bucket_ms, max_key_bytes, max_value_bytes}), as the {@code kv_cache_select_*} queries and
     * {@code shardq.caches()} give them; later columns are the caller's.
     */
    public static KvDefinition read(ResultSet rs) throws SQLException {
        return new KvDefinition(
                rs.getInt(1),
                rs.getString(2),
                rs.getBoolean(3),
                (Long) rs.getObject(4),
                rs.getLong(5),
                (Long) rs.getObject(6),
                (Long) rs.getObject(7),
                rs.getLong(8),
                rs.getInt(9),
                rs.getInt(10));
    }

    /** The quoted name of the cache's partitioned entry table. */
    public String table() {
        return "shardq.\"kv_" + id + "\"";
    }

    public boolean bounded() {
        return maxEntries != null || maxBytes != null;
    }

    /** The bucket of an entry expiring at {@code expiresMs}: bucket b holds ((b-1)*w, b*w]. */
    public long bucket(long expiresMs) {
        return Math.floorDiv(expiresMs - 1, bucketMs) + 1;
    }

    /** How far ahead of where default-TTL entries land the leader keeps bucket partitions: two buckets. */
    public long aheadMs() {
        return 2 * bucketMs;
    }
}
