package io.shardq.jms;

import io.shardq.broker.ShardQException;
import io.shardq.broker.kv.KvCache;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * {@link SessionCache} over the engine's cache bound to the session: each operation delegates, and
 * an engine error becomes the JMS unchecked exception of its kind ({@link Exceptions}).
 */
final class SessionCacheView<K, V> implements SessionCache<K, V> {
    private final KvCache<K, V> cache;

    SessionCacheView(KvCache<K, V> cache) {
        this.cache = cache;
    }

    private static <T> T call(Supplier<T> op) {
        try {
            return op.get();
        } catch (ShardQException e) {
            throw Exceptions.unchecked(Exceptions.translate(e));
        }
    }

    private static void run(Runnable op) {
        call(() -> {
            op.run();
            return null;
        });
    }

    @Override
    public String name() {
        return cache.name();
    }

    @Override
    public V get(K key) {
        return call(() -> cache.get(key));
    }

    @Override
    public Map<K, V> getAll(Collection<? extends K> keys) {
        return call(() -> cache.getAll(keys));
    }

    @Override
    public boolean containsKey(K key) {
        return call(() -> cache.containsKey(key));
    }

    @Override
    public List<K> keys(K after, int limit) {
        return call(() -> cache.keys(after, limit));
    }

    @Override
    public V get(K key, Function<? super K, ? extends V> loader) {
        return call(() -> cache.get(key, loader));
    }

    @Override
    public void put(K key, V value) {
        run(() -> cache.put(key, value));
    }

    @Override
    public void put(K key, V value, Duration ttl) {
        run(() -> cache.put(key, value, ttl));
    }

    @Override
    public void putAll(Map<? extends K, ? extends V> entries) {
        run(() -> cache.putAll(entries));
    }

    @Override
    public void putAll(Map<? extends K, ? extends V> entries, Duration ttl) {
        run(() -> cache.putAll(entries, ttl));
    }

    @Override
    public boolean putIfAbsent(K key, V value) {
        return call(() -> cache.putIfAbsent(key, value));
    }

    @Override
    public boolean putIfAbsent(K key, V value, Duration ttl) {
        return call(() -> cache.putIfAbsent(key, value, ttl));
    }

    @Override
    public boolean replace(K key, V value) {
        return call(() -> cache.replace(key, value));
    }

    @Override
    public boolean replace(K key, V value, Duration ttl) {
        return call(() -> cache.replace(key, value, ttl));
    }

    @Override
    public boolean remove(K key) {
        return call(() -> cache.remove(key));
    }

    @Override
    public int removeAll(Collection<? extends K> keys) {
        return call(() -> cache.removeAll(keys));
    }

    @Override
    public void clear() {
        run(cache::clear);
    }

    @Override
    public void invalidate(K key) {
        run(() -> cache.invalidate(key));
    }

    @Override
    public void invalidateAll() {
        run(cache::invalidateAll);
    }

    @Override
    public String toString() {
        return "SessionCache[" + cache.name() + "]";
    }
}
