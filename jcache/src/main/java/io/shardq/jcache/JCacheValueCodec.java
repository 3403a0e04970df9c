package io.shardq.jcache;

import io.shardq.broker.kv.Codec;

/**
 * Values as this layer stores them, for a {@link io.shardq.broker.kv.KvCache} from {@code
 * unwrap}: reads drop the JCache expiry, writes carry none (the engine's TTL alone decides).
 */
final class JCacheValueCodec<V> implements Codec<V> {
    private final Codec<V> values;

    JCacheValueCodec(Codec<V> values) {
        this.values = values;
    }

    @Override
    public byte[] encode(V value) {
        return Stored.wrap(values.encode(value), Stored.ETERNAL);
    }

    @Override
    public V decode(byte[] bytes) {
        return values.decode(Stored.of(bytes).value());
    }

    @Override
    public String describe() {
        return "JCache " + values.describe();
    }
}
