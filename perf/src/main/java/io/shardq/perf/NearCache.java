package io.shardq.perf;

import io.shardq.broker.Broker;
import io.shardq.broker.kv.Codec;
import io.shardq.broker.kv.KvCache;
import java.util.List;

/**
 * The near-cache row of {@code perf cache-read} (issue 11: a near-cache hit's p50 under one
 * microsecond): {@code KvCache#get} on a second instance whose near cache ({@code
 * shardq.kv.near-max-bytes}) holds the whole data set, while {@link KvReadSystem} reads through an
 * instance with the near cache off, so it keeps measuring the miss served from PostgreSQL. Both
 * read the same cache, loaded once by {@link KvReadSystem}; this system's load step reads each
 * batch back once, which fills its near cache, so the window's reads are near hits, which {@link
 * #servedCount()} shows from the cache's own counter.
 */
final class NearCache implements ReadSystem {
    static final String NAME = "near";

    private final Broker broker;
    private volatile KvCache<String, byte[]> cache;

    NearCache(Broker broker) {
        this.broker = broker;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String describe() {
        return "KvCache#get served from this instance's near cache (Caffeine, holding every entry), the same"
                + " cache as shardq's, read by a second instance";
    }

    @Override
    public void setUp() {
        // the cache is made (and emptied) by KvReadSystem, which comes first
    }

    /**
     * The data was written once, by KvReadSystem: this reads the batch just written with {@code
     * getAll}, which fills the near cache, until a pass finds it all there (a pass in the new
     * instance's first three heartbeats fills nothing), so the timed reads measure a warm near
     * cache (the warm-up alone could not read a million keys through it at 80 us per miss).
     */
    @Override
    public void load(List<String> keys, List<byte[]> values) {
        KvCache<String, byte[]> c = view();
        // a new instance fills its near cache only after three heartbeats (until the others count
        // it, it could miss their invalidations): read the batch again until it comes from memory
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
        while (true) {
            long before = c.localStats().nearHits();
            c.getAll(keys);
            if (c.localStats().nearHits() - before == keys.size() || System.nanoTime() > deadline) {
                return;
            }
            c.getAll(keys); // fills what the first pass could not
        }
    }

    @Override
    public long stored() {
        return broker.admin().caches().stats(KvReadSystem.CACHE).entries();
    }

    @Override
    public Reader reader() {
        KvCache<String, byte[]> c = view();
        return c::get;
    }

    private synchronized KvCache<String, byte[]> view() {
        if (cache == null) {
            cache = broker.cache(KvReadSystem.CACHE, Codec.utf8(), Codec.bytes())
                    .withMaxBatchSize(KvReadSystem.LOAD_BATCH);
        }
        return cache;
    }

    /** This instance's near-cache hits. */
    @Override
    public long servedCount() {
        KvCache<String, byte[]> c = cache;
        return c == null ? 0 : c.localStats().nearHits();
    }

    @Override
    public void close() {}
}
