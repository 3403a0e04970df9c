package io.shardq.broker.cache;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.shardq.broker.message.BrokerMessage;
import java.util.concurrent.atomic.LongAdder;

/**
 * The per-instance message cache, bounded in bytes (Caffeine, weighed by message size).
 *
 * <p>Keys are (destination, shard, sequence). Because sequences are gapless per shard, the
 * next message for a cursor at position p is simply key p+1: no ordered structure is needed.
 * Messages whose body is larger than the threshold are not cached at all (the dequeue path
 * reads them with their slice neighbours), so a few large payloads cannot flush the cache.
 */
public final class MessageCache {
    private final Cache<Key, BrokerMessage> cache;
    private final int largePayloadBytes;
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();

    public MessageCache(long maxBytes, int largePayloadBytes) {
        this.largePayloadBytes = largePayloadBytes;
        this.cache = Caffeine.newBuilder()
                .maximumWeight(maxBytes)
                .weigher((Key k, BrokerMessage m) -> m.estimatedSize() + 48)
                .build();
    }

    record Key(int destination, int shard, long seq) {}

    public void put(int destination, int shard, long seq, BrokerMessage m) {
        if (m.body().length <= largePayloadBytes) {
            cache.put(new Key(destination, shard, seq), m);
        }
    }

    public BrokerMessage get(int destination, int shard, long seq) {
        BrokerMessage m = cache.getIfPresent(new Key(destination, shard, seq));
        (m == null ? misses : hits).increment();
        return m;
    }

    /** True if the message is cached; does not count as a hit or miss. */
    public boolean contains(int destination, int shard, long seq) {
        return cache.getIfPresent(new Key(destination, shard, seq)) != null;
    }

    /** Drops a consumed message: the cache holds what is still to be delivered. */
    public void remove(int destination, int shard, long seq) {
        cache.invalidate(new Key(destination, shard, seq));
    }

    public long hits() {
        return hits.sum();
    }

    public long misses() {
        return misses.sum();
    }

    public long estimatedSize() {
        return cache.estimatedSize();
    }
}
