package io.shardq.broker;

/**
 * This instance's message cache (see {@code docs/design/instance.md}, "The message cache").
 *
 * @param hits deliveries served from the cache without a database read
 * @param misses deliveries that had to read the message (read-ahead fills the cache for the next)
 * @param entries messages cached now (an estimate)
 * @param bytes their weight in approximate heap bytes
 * @param maxBytes the bound ({@code shardq.cache.max-bytes})
 */
public record MessageCacheStats(long hits, long misses, long entries, long bytes, long maxBytes) {
    /** Hits over lookups, 0 when there were none. */
    public double hitRatio() {
        long lookups = hits + misses;
        return lookups == 0 ? 0 : (double) hits / lookups;
    }
}
