package io.shardq.perf;

import io.shardq.broker.Broker;
import io.shardq.broker.CacheOptions;
import io.shardq.broker.kv.Codec;
import io.shardq.broker.kv.KvCache;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * ShardQ's key/value cache as an application writes it: {@code KvCache#putAll} of a batch, unbound
 * (each call its own transaction), on a durable cache with no TTL, {@code maxBatchSize} as the
 * scenario says. Keys and values are raw bytes ({@code Codec.bytes()}), as the reference stores them.
 */
final class KvPutAllSystem implements PutAllSystem {
    static final String NAME = "shardq";
    static final String CACHE = "perf_putall";

    private final Broker broker;
    private final int maxBatchSize;
    private volatile KvCache<byte[], byte[]> cache;

    KvPutAllSystem(Broker broker, int maxBatchSize) {
        this.broker = broker;
        this.maxBatchSize = maxBatchSize;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void setUp() {
        drop();
        broker.admin().caches().create(CACHE, CacheOptions.DEFAULTS.withDurable(true));
        cache = broker.cache(CACHE, Codec.bytes(), Codec.bytes()).withMaxBatchSize(maxBatchSize);
    }

    @Override
    public void putAll(List<byte[]> keys, List<byte[]> values) {
        cache.putAll(batch(keys, values));
    }

    /** The batch as the map {@code putAll} takes, in key order. */
    static Map<byte[], byte[]> batch(List<byte[]> keys, List<byte[]> values) {
        Map<byte[], byte[]> batch = new LinkedHashMap<>(keys.size() * 2);
        for (int i = 0; i < keys.size(); i++) {
            batch.put(keys.get(i), values.get(i));
        }
        return batch;
    }

    /** The exact count ({@code shardq.cache_stats}, a scan of the cache's entries). */
    @Override
    public long stored() {
        return broker.admin().caches().stats(CACHE).entries();
    }

    @Override
    public void close() {
        drop();
    }

    private void drop() {
        dropCache(broker, CACHE);
    }

    /** Drops the cache if it exists. */
    static void dropCache(Broker broker, String name) {
        if (broker.admin().caches().list().stream().anyMatch(c -> c.name().equals(name))) {
            broker.admin().caches().drop(name);
        }
    }
}
