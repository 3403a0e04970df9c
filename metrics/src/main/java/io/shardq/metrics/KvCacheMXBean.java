package io.shardq.metrics;

/**
 * One key/value cache ({@code io.shardq:type=KvCache,instance=ID,name=NAME}): this instance's
 * counters (memory), with evictions, expirations, entries and bytes from the catalog (the
 * snapshot). -1 once it is gone.
 */
public interface KvCacheMXBean {
    String getName();

    long getHits();

    long getMisses();

    double getHitRatio();

    long getNearHits();

    long getNearMisses();

    long getLoads();

    long getLoadFailures();

    double getLoadMillisTotal();

    long getPuts();

    long getRemovals();

    long getEvictions();

    long getExpirations();

    long getEntries();

    long getBytes();
}
