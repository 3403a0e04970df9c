package io.shardq.jcache;

import javax.cache.Cache;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.EventType;

/** One change, as listeners see it. For REMOVED and EXPIRED the value is the old value. */
final class JCacheEvent<K, V> extends CacheEntryEvent<K, V> {
    private final K key;
    private final V value;
    private final V oldValue;

    JCacheEvent(Cache<K, V> source, EventType type, K key, V value, V oldValue) {
        super(source, type);
        this.key = key;
        this.value = value;
        this.oldValue = oldValue;
    }

    @Override
    public K getKey() {
        return key;
    }

    @Override
    public V getValue() {
        return value;
    }

    @Override
    public V getOldValue() {
        return oldValue;
    }

    @Override
    public boolean isOldValueAvailable() {
        return oldValue != null;
    }

    /** The same event without the old value, for a listener that did not ask for it. */
    JCacheEvent<K, V> withoutOldValue() {
        V v = getEventType() == EventType.REMOVED || getEventType() == EventType.EXPIRED ? null : value;
        return new JCacheEvent<>(getSource(), getEventType(), key, v, null);
    }

    @Override
    public <T> T unwrap(Class<T> clazz) {
        if (clazz.isInstance(this)) {
            return clazz.cast(this);
        }
        throw new IllegalArgumentException("a ShardQ cache event unwraps only to itself, not " + clazz.getName());
    }

    @Override
    public String toString() {
        return getEventType() + " " + key;
    }
}
