package io.shardq.broker;

/**
 * Statistics of one key/value cache: this instance's counters since it started (hits, misses,
 * loads, puts, removals) and the cluster-wide ones the maintenance leader keeps in the catalog
 * (evictions, expirations) with the exact size ({@code shardq.cache_stats}).
 *
 * @param hits keyed reads that found a live entry
 * @param misses keyed reads that found none
 * @param loads calls of a read-through loader
 * @param loadFailures loader calls that threw
 * @param loadNanos time spent in loaders
 * @param puts entries written
 * @param removals entries removed by remove/removeAll
 * @param entries live entries now (-1 when not read)
 * @param bytes their key and value bytes (-1 when not read)
 * @param expiredUnreclaimed expired entries whose storage is not reclaimed yet (-1 when not read)
 * @param nearHits keyed reads outside a transaction served by this instance's near cache (also hits)
 * @param nearMisses keyed reads outside a transaction the near cache could not serve
 * @param writeBehindPending write-behind writes accepted by this instance and not committed yet
 * @param writeBehindFailures write-behind flushes of this instance that failed (their writes were
 *     kept and retried)
 */
public record CacheStats(
        String name,
        long hits,
        long misses,
        long loads,
        long loadFailures,
        long loadNanos,
        long puts,
        long removals,
        long evictions,
        long expirations,
        long entries,
        long bytes,
        long expiredUnreclaimed,
        long nearHits,
        long nearMisses,
        long writeBehindPending,
        long writeBehindFailures) {
    /** Without near-cache figures (none read). */
    public CacheStats(
            String name,
            long hits,
            long misses,
            long loads,
            long loadFailures,
            long loadNanos,
            long puts,
            long removals,
            long evictions,
            long expirations,
            long entries,
            long bytes,
            long expiredUnreclaimed) {
        this(
                name,
                hits,
                misses,
                loads,
                loadFailures,
                loadNanos,
                puts,
                removals,
                evictions,
                expirations,
                entries,
                bytes,
                expiredUnreclaimed,
                0,
                0,
                0,
                0);
    }

    /** Near-cache hits over near-cache lookups, 0 when there were none. */
    public double nearHitRatio() {
        long reads = nearHits + nearMisses;
        return reads == 0 ? 0 : (double) nearHits / reads;
    }

    /** Hits over keyed reads, 0 when there were none. */
    public double hitRatio() {
        long reads = hits + misses;
        return reads == 0 ? 0 : (double) hits / reads;
    }
}
