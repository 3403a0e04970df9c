package io.shardq.jms;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * A key/value cache as a JMS session sees it ({@link ShardQSession#cache}): in a transacted session
 * every operation joins the session's transaction, so {@link ShardQSession#commit()} makes the
 * entries, the messages and the application's SQL durable together and {@link
 * ShardQSession#rollback()} discards all three, and other instances see a value only after the
 * commit; in any other session each operation commits on its own. For one thread at a time, as
 * the session is.
 *
 * <p>Errors are Jakarta Messaging's unchecked exceptions, as the simplified API's: a {@link
 * jakarta.jms.JMSRuntimeException} (or the subclass of the matching kind) whose message names the
 * problem (an oversized key or value, a dropped cache, a lost connection) and whose error code is
 * the engine's kind of error. What a loader throws reaches the caller as the engine passes it on.
 *
 * <p>What the engine's cache offers beyond this (write-behind, binding to another transaction,
 * statistics) is for applications that use the engine's API ({@code Broker#cache}); a session's
 * view is the session's transaction and nothing else.
 */
public interface SessionCache<K, V> {
    /** The cache's name. */
    String name();

    /** The value of {@code key}, or null when it has none (or its entry expired). */
    V get(K key);

    /** The values of those of {@code keys} that have one. */
    Map<K, V> getAll(Collection<? extends K> keys);

    boolean containsKey(K key);

    /** Up to {@code limit} keys after {@code after} (null: from the first), in key order. */
    List<K> keys(K after, int limit);

    /** The value of {@code key}, loaded with {@code loader} and stored when it has none. */
    V get(K key, Function<? super K, ? extends V> loader);

    /** Stores {@code value} with the cache's default time to live. */
    void put(K key, V value);

    void put(K key, V value, Duration ttl);

    void putAll(Map<? extends K, ? extends V> entries);

    void putAll(Map<? extends K, ? extends V> entries, Duration ttl);

    /** Stores {@code value} only when {@code key} has none; true when it did. */
    boolean putIfAbsent(K key, V value);

    boolean putIfAbsent(K key, V value, Duration ttl);

    /** Stores {@code value} only when {@code key} has one; true when it did. */
    boolean replace(K key, V value);

    boolean replace(K key, V value, Duration ttl);

    /** Removes {@code key}'s entry; true when it had one. */
    boolean remove(K key);

    /** Removes the entries of {@code keys}; returns how many there were. */
    int removeAll(Collection<? extends K> keys);

    /** Removes every entry. */
    void clear();

    /** Drops {@code key} from this instance's near cache only; the stored entry stays. */
    void invalidate(K key);

    /** Empties this instance's near cache of this cache. */
    void invalidateAll();
}
