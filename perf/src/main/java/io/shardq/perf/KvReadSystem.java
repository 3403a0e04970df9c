package io.shardq.perf;

import io.shardq.broker.Broker;
import io.shardq.broker.CacheOptions;
import io.shardq.broker.kv.Codec;
import io.shardq.broker.kv.KvCache;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * ShardQ's cache, every read served from PostgreSQL: {@code KvCache#get} of a String key (UTF-8)
 * and a byte[] value, unbound (a pooled connection per call, one {@code kv_select_one}), on an
 * instance started with the near cache off ({@code shardq.kv.near-max-bytes=0}), so every read is
 * the miss path; {@link NearCache} reads the same cache through an instance that has one.
 * Loaded with {@code putAll} of {@link #LOAD_BATCH} entries.
 */
class KvReadSystem implements ReadSystem {
    static final String NAME = "shardq";
    static final String CACHE = "perf_read";
    static final int LOAD_BATCH = 1_000;

    private final Broker broker;
    private volatile KvCache<String, byte[]> cache;

    KvReadSystem(Broker broker) {
        this.broker = broker;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String describe() {
        return "KvCache#get, a miss served from PostgreSQL (durable cache, this instance's near cache off)";
    }

    @Override
    public void setUp() {
        KvPutAllSystem.dropCache(broker, CACHE);
        broker.admin().caches().create(CACHE, CacheOptions.DEFAULTS.withDurable(true));
        cache = broker.cache(CACHE, Codec.utf8(), Codec.bytes()).withMaxBatchSize(LOAD_BATCH);
    }

    @Override
    public void load(List<String> keys, List<byte[]> values) {
        Map<String, byte[]> batch = new LinkedHashMap<>(keys.size() * 2);
        for (int i = 0; i < keys.size(); i++) {
            batch.put(keys.get(i), values.get(i));
        }
        cache.putAll(batch);
    }

    @Override
    public long stored() {
        return broker.admin().caches().stats(CACHE).entries();
    }

    @Override
    public Reader reader() {
        KvCache<String, byte[]> c = cache;
        return c::get;
    }

    /** This instance's hit counter: every hit so far was read from PostgreSQL. */
    @Override
    public long servedCount() {
        return cache.localStats().hits();
    }

    @Override
    public void close() {
        KvPutAllSystem.dropCache(broker, CACHE);
    }
}
