package io.shardq.jcache;

import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.kv.Codec;
import java.util.Objects;
import java.util.function.Supplier;
import javax.cache.CacheException;

/**
 * How one cache's keys and values cross into the engine and its failures come back: keys and
 * values checked against the configured types, encoded and decoded with the cache's codecs, stored
 * values unwrapped ({@link Stored}), and engine errors translated into JCache's exceptions. Every
 * message names the cache.
 *
 * <p>Invariant: immutable, built once per {@link ShardQCache} from its configuration (the types do
 * not change after creation), shared by the parts of that cache; safe from any thread.
 */
final class EntryCodec<K, V> {
    private final String name;
    private final Class<K> keyType;
    private final Class<V> valueType;
    private final Codec<K> keys;
    private final Codec<V> values;

    EntryCodec(String name, Class<K> keyType, Class<V> valueType, Codec<K> keys, Codec<V> values) {
        this.name = name;
        this.keyType = keyType;
        this.valueType = valueType;
        this.keys = keys;
        this.values = values;
    }

    /** The JCache cache's name. */
    String name() {
        return name;
    }

    Codec<K> keys() {
        return keys;
    }

    Codec<V> values() {
        return values;
    }

    void requireKey(K key) {
        Objects.requireNonNull(key, "a key must not be null");
        Class<K> t = keyType;
        if (t != Object.class && !t.isInstance(key)) {
            throw new ClassCastException(
                    "cache \"" + name + "\": a key of type " + key.getClass().getName() + " is not a " + t.getName());
        }
    }

    void requireValue(V value) {
        Objects.requireNonNull(value, "a value must not be null");
        Class<V> t = valueType;
        if (t != Object.class && !t.isInstance(value)) {
            throw new ClassCastException("cache \"" + name + "\": a value of type "
                    + value.getClass().getName() + " is not a " + t.getName());
        }
    }

    byte[] encode(V value) {
        try {
            return values.encode(value);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(
                    "cache \"" + name + "\": cannot store a value of type "
                            + value.getClass().getName() + " (" + values.describe() + "): " + e.getMessage(),
                    e);
        }
    }

    V decode(Stored s) {
        try {
            return values.decode(s.value());
        } catch (RuntimeException e) {
            throw new CacheException(
                    "cache \"" + name + "\": cannot read a stored value (" + values.describe() + "): " + e.getMessage(),
                    e);
        }
    }

    /** A stored value as this layer wrote it; one written another way is refused naming the cache. */
    Stored stored(byte[] raw) {
        try {
            return Stored.of(raw);
        } catch (IllegalArgumentException e) {
            throw new CacheException("cache \"" + name + "\": " + e.getMessage(), e);
        }
    }

    /** Calls the engine, its errors translated. */
    <R> R call(Supplier<R> engine) {
        try {
            return engine.get();
        } catch (ShardQException e) {
            throw translate(e);
        }
    }

    /** An engine error as JCache's exception. */
    RuntimeException translate(ShardQException e) {
        if (e.kind() == ErrorKind.INVALID_ARGUMENT) {
            return new IllegalArgumentException(e.getMessage(), e);
        }
        if (e.kind() == ErrorKind.UNKNOWN_CACHE) {
            return new IllegalStateException(
                    "cache \"" + name + "\" was destroyed (its ShardQ cache is gone): " + e.getMessage(), e);
        }
        return new CacheException(e.getMessage(), e);
    }
}
