package io.shardq.broker.kv;

import java.util.concurrent.atomic.LongAdder;

/** This instance's counters of one cache, shared by every {@link KvCache} view of it. Not API. */
public final class KvCounters {
    final LongAdder hits = new LongAdder();
    final LongAdder misses = new LongAdder();
    final LongAdder loads = new LongAdder();
    final LongAdder loadFailures = new LongAdder();
    final LongAdder loadNanos = new LongAdder();
    final LongAdder puts = new LongAdder();
    final LongAdder removals = new LongAdder();
    final LongAdder nearHits = new LongAdder();
    final LongAdder nearMisses = new LongAdder();

    /** The counters with the catalog's figures ({@code -1} where not read) and the write-behind queue's. */
    io.shardq.broker.CacheStats snapshot(
            String name,
            long evictions,
            long expirations,
            long entries,
            long bytes,
            long expiredUnreclaimed,
            long writeBehindPending,
            long writeBehindFailures) {
        return new io.shardq.broker.CacheStats(
                name,
                hits.sum(),
                misses.sum(),
                loads.sum(),
                loadFailures.sum(),
                loadNanos.sum(),
                puts.sum(),
                removals.sum(),
                evictions,
                expirations,
                entries,
                bytes,
                expiredUnreclaimed,
                nearHits.sum(),
                nearMisses.sum(),
                writeBehindPending,
                writeBehindFailures);
    }
}
