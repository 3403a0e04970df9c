package io.shardq.jcache;

import javax.cache.Cache;

/** A key and a value: what the iterator returns and what a CacheWriter is given. */
record JCacheEntry<K, V>(K key, V value) implements Cache.Entry<K, V> {
    @Override
    public K getKey() {
        return key;
    }

    @Override
    public V getValue() {
        return value;
    }

    @Override
    public <T> T unwrap(Class<T> clazz) {
        if (clazz.isInstance(this)) {
            return clazz.cast(this);
        }
        throw new IllegalArgumentException("a ShardQ cache entry unwraps only to itself, not to " + clazz.getName());
    }
}
