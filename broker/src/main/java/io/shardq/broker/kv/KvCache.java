package io.shardq.broker.kv;

import io.shardq.broker.shard.BrokerSession;
import java.sql.Connection;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * A named key/value cache stored in PostgreSQL, shared by every instance, with per-entry TTL.
 * Obtained from {@link io.shardq.broker.Broker#cache}; thread-safe (each operation borrows a
 * pooled connection), except a view bound to a session or a connection, which is as
 * single-threaded as what it is bound to.
 *
 * <p><b>Transactions.</b> This view runs each operation on its own: one autocommit statement, or
 * one transaction when a batch is split into chunks. {@link #in(BrokerSession)} and {@link
 * #on(Connection)} return views whose operations run in that session's or connection's
 * transaction: they commit and roll back with its messages and the application's own SQL. A
 * failed statement inside a bound transaction aborts that transaction (PostgreSQL's rule): roll
 * it back.
 *
 * <p><b>One key, one row.</b> Every write takes a transaction-level advisory lock per key (in
 * ascending hash order, so two batches never deadlock) before it deletes the key's old row and
 * inserts the new one (named queries {@code kv_lock_keys}, {@code kv_delete_many}, {@code
 * kv_insert_many}). A bound transaction holds those locks until it
 * ends: another writer of the same key waits for it.
 *
 * <p><b>Expiry.</b> Times are this instance's clock: an entry put at {@code t} with TTL {@code d}
 * is returned up to {@code t + d} (exclusive) and never after, whether or not the maintenance
 * leader has reclaimed its partition yet.
 *
 * <p><b>Input.</b> Keys and values are encoded, and checked against the cache's {@code
 * max_key_bytes} and {@code max_value_bytes}, before anything is written: a batch with one bad
 * entry writes none. Null keys and values are refused.
 *
 * <p>An interface, as Caffeine's {@code Cache}: its one implementation is package-private
 * ({@code StoredKvCache}, over {@code KvBinding}, {@code KvRows}, {@code KvLoader} and {@code
 * WriteBehindBridge}).
 */
public interface KvCache<K, V> {
    String name();

    /** Entries per statement of {@link #getAll}, {@link #putAll} and {@link #removeAll}. */
    int maxBatchSize();

    /** This view with another batch size (1..10,000). */
    KvCache<K, V> withMaxBatchSize(int n);

    /**
     * A view whose operations run in {@code session}'s transaction (a TRANSACTED session, on the
     * connection {@link BrokerSession#connection()} shares): {@code session.commit()} commits them
     * with the session's messages, {@code rollback()} discards them.
     */
    KvCache<K, V> in(BrokerSession session);

    /**
     * A view whose operations run on {@code connection}, in whatever transaction the application
     * has open there; the application commits or rolls back. With autocommit on, each statement
     * commits on its own.
     */
    KvCache<K, V> on(Connection connection);

    /**
     * The live value of {@code key}, or null. Outside a transaction, from this instance's near cache
     * when it holds the key (see {@link #invalidate}); in a bound view, always from the database.
     */
    V get(K key);

    /** The live entries among {@code keys} (absent keys are left out), one statement per chunk. */
    Map<K, V> getAll(Collection<? extends K> keys);

    /** True when {@code key} has a live entry (not counted as a hit or miss). */
    boolean containsKey(K key);

    /**
     * A page of live keys in the order of their encoded bytes (unsigned): at most {@code limit}
     * keys after {@code after} (null: from the first). Page on by passing the last key returned;
     * an empty list is the end. Each page is one statement that merges the partitions' primary key
     * indexes in key order and stops at the limit, so a listing costs a read of every live key,
     * never a sort: for callers that must visit every entry (JCache's iterator), not for the hot
     * path. Not a snapshot: keys written or removed between pages may or may not be listed. An
     * unbound view first flushes this instance's write-behind queue of the cache, so its accepted
     * writes are listed.
     */
    List<K> keys(K after, int limit);

    /**
     * Read-through: the live value of {@code key}; on a miss {@code loader} is called and its
     * value stored with the default TTL unless another writer stored one first (then that one is
     * returned). A null from the loader is returned and not stored; an exception from it is
     * passed on and nothing is stored, so the next call tries again.
     *
     * <p><b>Single-flight.</b> Outside a transaction, concurrent callers of a missing key share one
     * loader call: in this JVM they wait on the first caller's load; across instances the loading
     * one holds a session-level advisory lock on (cache, key hash) and the others wait for it
     * (up to {@code shardq.kv.load-timeout-ms}), then read what it stored, or get its error as a
     * {@link KvLoadException}. A loader that runs longer than the load timeout is a failure: its
     * value is not stored. In a bound view every caller that misses loads (no single-flight).
     */
    V get(K key, Function<? super K, ? extends V> loader);

    /** Stores {@code value} under {@code key} with the cache's default TTL (none: it does not expire). */
    void put(K key, V value);

    /** Stores {@code value} under {@code key}, expiring after {@code ttl} (null: the default TTL). */
    void put(K key, V value, Duration ttl);

    /** Stores every entry with the default TTL: multi-row statements per chunk, all or none. */
    void putAll(Map<? extends K, ? extends V> entries);

    /** Stores every entry, expiring after {@code ttl} (null: the default TTL). */
    void putAll(Map<? extends K, ? extends V> entries, Duration ttl);

    /** Stores the entry only when {@code key} has no live entry; true when it did. */
    boolean putIfAbsent(K key, V value);

    boolean putIfAbsent(K key, V value, Duration ttl);

    /** Replaces the value only when {@code key} has a live entry; true when it did. */
    boolean replace(K key, V value);

    boolean replace(K key, V value, Duration ttl);

    /** Removes {@code key}; true when it had a live entry. */
    boolean remove(K key);

    /** Removes every key given; returns how many had a live entry. One statement per chunk. */
    int removeAll(Collection<? extends K> keys);

    /** Removes every entry: a TRUNCATE of the cache's partitions (transactional in a bound view). */
    void clear();

    /**
     * Write-behind writes to this cache: accepted into this instance's queue and committed by a
     * background flusher in coalesced batches (see {@link KvWriteBehind} for what is guaranteed
     * when the JVM dies). Only for a view not bound to a transaction ({@code ILLEGAL_STATE}
     * otherwise: a transaction's writes commit with it).
     */
    KvWriteBehind<K, V> writeBehind();

    /**
     * Drops {@code key} from this instance's near cache; the next read goes to the database. Local
     * only, as in JCache and Caffeine: other instances' near caches and the stored entry are left
     * as they are (writes invalidate everywhere by themselves).
     */
    void invalidate(K key);

    /** Drops every entry of this cache from this instance's near cache (local only, as {@link #invalidate}). */
    void invalidateAll();

    /**
     * This instance's counters only, without a database read: the catalog's figures (evictions,
     * expirations, entries, bytes, expired unreclaimed) are -1.
     */
    io.shardq.broker.CacheStats localStats();

    /** This instance's counters and the catalog's figures for this cache (an exact count: a scan). */
    io.shardq.broker.CacheStats stats();
}
