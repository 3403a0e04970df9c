package io.shardq.broker;

import java.time.Duration;

/**
 * How a key/value cache is created ({@code shardq.create_cache}). Defaults: durable, no default
 * TTL (entries live until removed or evicted), maximum TTL one day, no bound on entries or bytes,
 * keys up to 1 KiB, values up to 1 MiB.
 *
 * @param durable false makes the cache's tables UNLOGGED: faster writes, but PostgreSQL empties
 *     them after a crash or an unclean restart, and they are not replicated to standbys
 * @param defaultTtl the TTL of an entry put without one; null: such entries do not expire
 * @param maxTtl the longest TTL an entry may have (fixed at creation; sets the expiry bucket width
 *     to max(60 s, maxTtl / 16)); null: the default TTL, else one day
 * @param maxEntries a soft bound: beyond it the maintenance leader evicts the least recently used
 *     entries (see docs/design/kv-cache.md); null: no bound
 * @param maxBytes a soft bound on the stored key and value bytes, enforced the same way; null: none
 * @param maxKeyBytes the largest encoded key accepted, 1..65,536
 * @param maxValueBytes the largest encoded value accepted, 1..268,435,456
 */
public record CacheOptions(
        boolean durable,
        Duration defaultTtl,
        Duration maxTtl,
        Long maxEntries,
        Long maxBytes,
        int maxKeyBytes,
        int maxValueBytes) {
    public static final CacheOptions DEFAULTS = new CacheOptions(true, null, null, null, null, 1024, 1 << 20);

    public CacheOptions withDurable(boolean d) {
        return new CacheOptions(d, defaultTtl, maxTtl, maxEntries, maxBytes, maxKeyBytes, maxValueBytes);
    }

    public CacheOptions withDefaultTtl(Duration ttl) {
        return new CacheOptions(durable, ttl, maxTtl, maxEntries, maxBytes, maxKeyBytes, maxValueBytes);
    }

    public CacheOptions withMaxTtl(Duration ttl) {
        return new CacheOptions(durable, defaultTtl, ttl, maxEntries, maxBytes, maxKeyBytes, maxValueBytes);
    }

    public CacheOptions withMaxEntries(Long n) {
        return new CacheOptions(durable, defaultTtl, maxTtl, n, maxBytes, maxKeyBytes, maxValueBytes);
    }

    public CacheOptions withMaxBytes(Long n) {
        return new CacheOptions(durable, defaultTtl, maxTtl, maxEntries, n, maxKeyBytes, maxValueBytes);
    }

    public CacheOptions withMaxKeyBytes(int n) {
        return new CacheOptions(durable, defaultTtl, maxTtl, maxEntries, maxBytes, n, maxValueBytes);
    }

    public CacheOptions withMaxValueBytes(int n) {
        return new CacheOptions(durable, defaultTtl, maxTtl, maxEntries, maxBytes, maxKeyBytes, n);
    }
}
