package io.shardq.broker.kv;

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
