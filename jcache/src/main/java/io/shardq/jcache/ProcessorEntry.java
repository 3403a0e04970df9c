package io.shardq.jcache;

import java.util.function.Consumer;
import java.util.function.Function;
import javax.cache.processor.MutableEntry;

/**
 * The entry an EntryProcessor sees. It records what the processor did; the cache applies the
 * last of it ({@link #op()}) when {@code process} returns, in the call's transaction.
 */
final class ProcessorEntry<K, V> implements MutableEntry<K, V> {
    enum Op {
        /** Nothing to write (read only, or set then removed). */
        NONE,
        /** Absent, loaded by {@code getValue()} through the loader: stored without the writer. */
        LOAD,
        CREATE,
        UPDATE,
        REMOVE
    }

    private final K key;
    private final V original;
    private final Function<K, V> loader;
    private final Consumer<V> check;
    private V value;
    private Op op = Op.NONE;
    private boolean read;

    /** {@code loader}: null unless the cache reads through; {@code check}: refuses a bad value. */
    ProcessorEntry(K key, V original, Function<K, V> loader, Consumer<V> check) {
        this.key = key;
        this.original = original;
        this.loader = loader;
        this.check = check;
        this.value = original;
    }

    Op op() {
        return op;
    }

    V value() {
        return value;
    }

    /** True when the processor read the value (a hit or a miss in the statistics). */
    boolean read() {
        return read;
    }

    @Override
    public K getKey() {
        return key;
    }

    @Override
    public V getValue() {
        read = true;
        if (value == null && op == Op.NONE && loader != null) {
            value = loader.apply(key);
            if (value != null) {
                op = Op.LOAD;
            }
        }
        return value;
    }

    @Override
    public boolean exists() {
        return value != null;
    }

    @Override
    public void remove() {
        value = null;
        // undoing a create or a load leaves nothing to do; otherwise the entry is removed (and the
        // writer told, even when it was absent, as remove(key) does)
        op = op == Op.CREATE || op == Op.LOAD ? Op.NONE : Op.REMOVE;
    }

    @Override
    public void setValue(V v) {
        check.accept(v);
        value = v;
        op = original != null ? Op.UPDATE : Op.CREATE;
    }

    @Override
    public <T> T unwrap(Class<T> clazz) {
        if (clazz.isInstance(this)) {
            return clazz.cast(this);
        }
        throw new IllegalArgumentException("a ShardQ MutableEntry unwraps only to itself, not to " + clazz.getName());
    }
}
