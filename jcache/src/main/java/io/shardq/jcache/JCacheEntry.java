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
        throw new IllegalArgumentException("a ShardQ cache entry does not unwrap to " + clazz.getName());
    }
}
