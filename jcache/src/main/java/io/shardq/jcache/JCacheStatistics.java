package io.shardq.jcache;

import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import javax.cache.management.CacheStatisticsMXBean;

/**
 * JCache's statistics of one cache in this JVM (this cache manager's calls), with JSR-107's
 * meanings: a get is a hit or a miss; a put counts each entry stored; removals count entries
 * removed. Evictions are the ShardQ cache's, counted by the maintenance leader for every instance
 * (since this bean was made or last cleared). Average times are in microseconds, per call.
 */
final class JCacheStatistics implements CacheStatisticsMXBean {
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final LongAdder puts = new LongAdder();
    private final LongAdder removals = new LongAdder();
    private final LongAdder getCalls = new LongAdder();
    private final LongAdder getNanos = new LongAdder();
    private final LongAdder putCalls = new LongAdder();
    private final LongAdder putNanos = new LongAdder();
    private final LongAdder removeCalls = new LongAdder();
    private final LongAdder removeNanos = new LongAdder();
    private final java.util.function.BooleanSupplier enabled;
    private final LongSupplier evictions;
    private volatile long evictionsBase;

    /** {@code enabled}: the configuration's switch; nothing is counted while it is off. */
    JCacheStatistics(java.util.function.BooleanSupplier enabled, LongSupplier evictions) {
        this.enabled = enabled;
        this.evictions = evictions;
        this.evictionsBase = safe(evictions);
    }

    private static long safe(LongSupplier s) {
        try {
            return s.getAsLong();
        } catch (RuntimeException e) {
            return 0;
        }
    }

    void hits(long n) {
        if (n > 0 && enabled.getAsBoolean()) {
            hits.add(n);
        }
    }

    void misses(long n) {
        if (n > 0 && enabled.getAsBoolean()) {
            misses.add(n);
        }
    }

    void puts(long n) {
        if (n > 0 && enabled.getAsBoolean()) {
            puts.add(n);
        }
    }

    void removals(long n) {
        if (n > 0 && enabled.getAsBoolean()) {
            removals.add(n);
        }
    }

    void getTime(long started) {
        if (enabled.getAsBoolean()) {
            getCalls.increment();
            getNanos.add(System.nanoTime() - started);
        }
    }

    void putTime(long started) {
        if (enabled.getAsBoolean()) {
            putCalls.increment();
            putNanos.add(System.nanoTime() - started);
        }
    }

    void removeTime(long started) {
        if (enabled.getAsBoolean()) {
            removeCalls.increment();
            removeNanos.add(System.nanoTime() - started);
        }
    }

    @Override
    public void clear() {
        for (LongAdder a : new LongAdder[] {
            hits, misses, puts, removals, getCalls, getNanos, putCalls, putNanos, removeCalls, removeNanos
        }) {
            a.reset();
        }
        evictionsBase = safe(evictions);
    }

    @Override
    public long getCacheHits() {
        return hits.sum();
    }

    @Override
    public float getCacheHitPercentage() {
        long gets = getCacheGets();
        return gets == 0 ? 0 : 100f * getCacheHits() / gets;
    }

    @Override
    public long getCacheMisses() {
        return misses.sum();
    }

    @Override
    public float getCacheMissPercentage() {
        long gets = getCacheGets();
        return gets == 0 ? 0 : 100f * getCacheMisses() / gets;
    }

    @Override
    public long getCacheGets() {
        return getCacheHits() + getCacheMisses();
    }

    @Override
    public long getCachePuts() {
        return puts.sum();
    }

    @Override
    public long getCacheRemovals() {
        return removals.sum();
    }

    @Override
    public long getCacheEvictions() {
        return Math.max(0, safe(evictions) - evictionsBase);
    }

    @Override
    public float getAverageGetTime() {
        return average(getNanos, getCalls);
    }

    @Override
    public float getAveragePutTime() {
        return average(putNanos, putCalls);
    }

    @Override
    public float getAverageRemoveTime() {
        return average(removeNanos, removeCalls);
    }

    private static float average(LongAdder nanos, LongAdder calls) {
        long n = calls.sum();
        return n == 0 ? 0 : nanos.sum() / 1000f / n;
    }
}
