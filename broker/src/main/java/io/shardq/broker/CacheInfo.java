package io.shardq.broker;

import java.time.Instant;

/**
 * A key/value cache as {@code shardq.caches()} shows it.
 *
 * @param defaultTtlMillis null: entries put without a TTL do not expire
 * @param maxEntries null: no bound
 * @param maxBytes null: no bound
 * @param bucketMillis width of an expiry bucket (one partition each)
 * @param entriesEstimate PostgreSQL's estimate (0 before the first ANALYZE), expired entries
 *     not yet reclaimed included; {@link CacheAdmin#stats} counts exactly
 * @param bytes on disk, every partition with its indexes
 * @param partitions bucket partitions, the one for entries that never expire included
 * @param evictions entries the maintenance leader evicted for the bounds
 * @param expirations expired entries whose storage the leader reclaimed
 */
public record CacheInfo(
        int id,
        String name,
        boolean durable,
        Long defaultTtlMillis,
        long maxTtlMillis,
        Long maxEntries,
        Long maxBytes,
        long bucketMillis,
        int maxKeyBytes,
        int maxValueBytes,
        long entriesEstimate,
        long bytes,
        int partitions,
        long evictions,
        long expirations,
        Instant createdAt) {}
