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
 *
 * <p>What is kept: the metadata of every message put here (ids, header fields, properties,
 * priority, expiry, deliver-at, body size), and its body only when the body is at most {@code
 * largePayloadBytes}. A larger body is dropped on {@link #put} and read by the dequeue path when
 * it delivers the message, so a few large payloads can neither flush the cache nor make every
 * consumer re-read them. Eviction runs on the calling thread (not on a pool), so the weighed size
 * is back within {@code maxBytes} when a put returns.
 */
public final class MessageCache {
    /** Weight of a key and the map entry around a value. */
    static final int ENTRY_OVERHEAD = 48;

    private final Cache<Key, BrokerMessage> cache;
    private final long maxBytes;
    private final int largePayloadBytes;
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();

    public MessageCache(long maxBytes, int largePayloadBytes) {
        this.maxBytes = maxBytes;
        this.largePayloadBytes = largePayloadBytes;
        this.cache = Caffeine.newBuilder()
                .maximumWeight(maxBytes)
                .weigher((Key k, BrokerMessage m) -> m.estimatedSize() + ENTRY_OVERHEAD)
                .executor(Runnable::run)
                .build();
    }

    record Key(int destination, int shard, long seq) {}

    /** Caches a message: with its body if that is small, else its metadata only. */
    public void put(int destination, int shard, long seq, BrokerMessage m) {
        BrokerMessage kept = m.bodyLoaded() && m.bodySize() <= largePayloadBytes ? m : m.withoutBody();
        cache.put(new Key(destination, shard, seq), kept);
    }

    /**
     * The cached message, or null. Its body is not loaded when it is larger than {@link
     * #largePayloadBytes()} (or was not read ahead).
     */
    public BrokerMessage get(int destination, int shard, long seq) {
        BrokerMessage m = cache.getIfPresent(new Key(destination, shard, seq));
        (m == null ? misses : hits).increment();
        return m;
    }

    /**
     * The cached message, or null, without counting a hit or miss and without telling the
     * eviction policy about the access (a look at a message's priority is not a use of it).
     */
    public BrokerMessage peek(int destination, int shard, long seq) {
        return cache.policy().getIfPresentQuietly(new Key(destination, shard, seq));
    }

    /** True if the message is cached; does not count as a hit or miss. */
    public boolean contains(int destination, int shard, long seq) {
        return cache.getIfPresent(new Key(destination, shard, seq)) != null;
    }

    /** Drops a consumed message: the cache holds what is still to be delivered. */
    public void remove(int destination, int shard, long seq) {
        cache.invalidate(new Key(destination, shard, seq));
    }

    /**
     * Drops every cached message of a shard that was retired (a shrink, V015): a shard of the same
     * number made by a later grow numbers its messages from 1 again. A scan of the cache, run once
     * per retired shard.
     */
    public void removeShard(int destination, int shard) {
        cache.asMap().keySet().removeIf(k -> k.destination() == destination && k.shard() == shard);
    }

    /** Bodies up to this many bytes are cached; larger ones are read when delivered. */
    public int largePayloadBytes() {
        return largePayloadBytes;
    }

    /** The configured bound of {@link #weightedSize()}. */
    public long maxBytes() {
        return maxBytes;
    }

    /** Sum of the weights of the cached messages (approximate heap bytes), from Caffeine's policy. */
    public long weightedSize() {
        return cache.policy().eviction().map(e -> e.weightedSize().orElse(0)).orElse(0L);
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
