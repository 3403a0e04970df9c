package io.shardq.broker.kv;

import java.time.Duration;
import java.util.Collection;
import java.util.Collections;
import java.util.Map;

/**
 * Write-behind writes to a key/value cache: {@link #put}, {@link #putAll}, {@link #remove} and
 * {@link #removeAll} return once the write is <em>accepted</em> into this instance's queue for the
 * cache, and a background flusher commits the queue every {@code shardq.kv.write-behind-flush-ms}
 * (sooner when it holds a batch) as grouped multi-row statements. Obtained from {@link
 * KvCache#writeBehind()}; thread-safe.
 *
 * <p><b>Coalescing.</b> The queue keeps one write per key: a key written ten times between two
 * flushes is written to PostgreSQL once, with its last value (or removed, if the last write was a
 * removal).
 *
 * <p><b>Reads.</b> Every unbound view of the cache in this instance ({@code get}, {@code getAll},
 * {@code containsKey}) sees accepted writes at once, before they are flushed. Other instances, and
 * views bound to a transaction, see them after the flush commits (other instances' near caches
 * are invalidated at that commit as for any write).
 *
 * <p><b>Order.</b> A synchronous write or {@code clear()} through an unbound view of the same cache
 * in this instance first flushes the queue, so writes of one instance reach the database in the
 * order they were made. A write in a transaction (a bound view) does not wait for the queue (it
 * could hold locks the flush needs); between it and a pending write of the same key, the later
 * commit wins.
 *
 * <p><b>Back-pressure.</b> The queue holds at most {@code shardq.kv.write-behind-max-pending} keys.
 * A write that would exceed it waits for a flush to make room, up to {@code
 * shardq.kv.write-behind-block-ms}, then fails with {@code RESOURCE_EXHAUSTED} naming the cache and
 * the last flush error: it was not accepted.
 *
 * <p><b>What is guaranteed.</b> A flush that fails (the database is unreachable, a partition is
 * missing) keeps its writes queued and is retried with back-off; nothing accepted is dropped
 * while the instance lives, except the pending writes of a cache that is dropped. {@link #flush()}
 * returns only when every write accepted before it is committed, and throws otherwise. A clean
 * {@code Broker.close()} flushes the queue (writes it still cannot commit are logged at ERROR with
 * their number). <b>When the JVM dies</b> (kill -9, a crash, power), writes accepted but not yet
 * flushed are lost: at most the writes of the last flush interval, and never more than the queue's
 * bound per cache. Callers that need a write to survive the JVM use {@code flush()} or the
 * synchronous {@link KvCache} methods.
 */
public final class KvWriteBehind<K, V> {
    private final StoredKvCache<K, V> cache;
    private final WriteBehindQueue queue;

    KvWriteBehind(StoredKvCache<K, V> cache, WriteBehindQueue queue) {
        this.cache = cache;
        this.queue = queue;
    }

    /** The synchronous view of the same cache (reads see this queue's accepted writes). */
    public KvCache<K, V> cache() {
        return cache;
    }

    /** Accepts a put with the cache's default TTL. */
    public void put(K key, V value) {
        put(key, value, null);
    }

    /** Accepts a put expiring {@code ttl} after now (null: the default TTL). */
    public void put(K key, V value, Duration ttl) {
        putAll(Collections.singletonMap(key, value), ttl);
    }

    /** Accepts every entry with the default TTL: all or none (each is checked first). */
    public void putAll(Map<? extends K, ? extends V> entries) {
        putAll(entries, null);
    }

    /** Accepts every entry, expiring {@code ttl} after now (null: the default TTL). */
    public void putAll(Map<? extends K, ? extends V> entries, Duration ttl) {
        queue.accept(cache.pendingPuts(entries, ttl));
    }

    /** Accepts a removal of {@code key}. */
    public void remove(K key) {
        removeAll(Collections.singletonList(key));
    }

    /** Accepts removals of every key given. */
    public void removeAll(Collection<? extends K> keys) {
        queue.accept(cache.pendingRemovals(keys));
    }

    /** Commits every write accepted before this call; throws (they stay queued) when it cannot. */
    public void flush() {
        queue.flush();
    }

    /** Writes accepted and not yet committed, in this instance. */
    public int pending() {
        return queue.size();
    }
}
