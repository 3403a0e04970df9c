package io.shardq.jcache;

import io.shardq.broker.Broker;
import io.shardq.broker.kv.Codec;
import io.shardq.broker.kv.KvCache;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.CacheEntryListenerConfiguration;
import javax.cache.configuration.CompleteConfiguration;
import javax.cache.configuration.Configuration;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.expiry.ExpiryPolicy;
import javax.cache.integration.CacheLoader;
import javax.cache.integration.CacheWriter;
import javax.cache.integration.CacheWriterException;
import javax.cache.integration.CompletionListener;
import javax.cache.processor.EntryProcessor;
import javax.cache.processor.EntryProcessorException;
import javax.cache.processor.EntryProcessorResult;
import javax.management.ObjectName;

/**
 * A JCache {@link Cache} over one ShardQ key/value cache.
 *
 * <p><b>Reads</b> use the engine's unbound view: the near cache, then PostgreSQL. <b>Every
 * change</b> is one database transaction (a transacted engine session): a transaction-level
 * advisory lock per key in this layer's own lock space ({@code (hash of "shardq.jcache/" + name,
 * hash of the encoded key)}, ascending, so multi-key calls never deadlock), then a read of the
 * current entries, the CacheWriter, the engine's writes, COMMIT. That makes {@code getAndPut},
 * {@code replace(k, old, new)}, {@code invoke} and the rest atomic against every JCache caller in
 * every JVM, and gives listeners their old values; it costs about five round trips a change
 * rather than the engine's one (its group commit is for {@link KvCache} itself, from {@link
 * #unwrap}). Events fire after the commit (see {@link Listeners}).
 *
 * <p>This class is the JCache API: argument checks, statistics, and the order of read-through,
 * write-through and the engine's writes in each call. Its parts: {@link StoredEntries} (the
 * entries with their expiry, and the transaction of a change), {@link ReadWriteThrough} (the
 * loader and the writer), {@link EntryProcessing} ({@code invoke}), {@link EntryCodec} (types,
 * codecs and error translation), {@link Listeners} (events).
 *
 * <p><b>Expiry</b> is kept per entry in this layer ({@link Stored}) and judged by the manager's
 * clock, which must be the broker's; the engine's TTL is the same instant plus {@link Expiries#GRACE}.
 * An entry found expired is removed under its lock and an EXPIRED event fires; entries no JVM
 * reads again go when the engine drops their partition, without an event.
 */
final class ShardQCache<K, V> implements Cache<K, V> {
    /** Keys per page of {@link #iterator()} and {@link #removeAll()}. */
    static final int PAGE = 100;

    private final ShardQCacheManager manager;
    private final String name;
    /** The ShardQ cache's name (see {@link ShardQCacheManager#storeName}). */
    private final String storeName;

    private final MutableConfiguration<K, V> config;
    private final Broker broker;
    private final EntryCodec<K, V> codec;
    private final KvCache<K, byte[]> kv;
    private final ExpiryPolicy expiry;
    private final JCacheStatistics stats;
    private final Listeners<K, V> listeners;
    private final StoredEntries<K, V> entries;
    private final ReadWriteThrough<K, V> through;
    private final EntryProcessing<K, V> processing;
    private final ObjectName statsName;
    private final ObjectName configName;
    private volatile boolean closed;

    ShardQCache(ShardQCacheManager manager, String name, MutableConfiguration<K, V> config) {
        this.manager = manager;
        this.name = name;
        this.storeName = ShardQCacheManager.storeName(name);
        this.config = config;
        this.broker = manager.broker();
        this.codec = new EntryCodec<>(
                name,
                config.getKeyType(),
                config.getValueType(),
                Codecs.forType(config.getKeyType(), manager.serialAllow()),
                Codecs.forType(config.getValueType(), manager.serialAllow()));
        this.kv = codec.call(() -> broker.cache(storeName, codec.keys(), Codec.bytes()));
        this.expiry = config.getExpiryPolicyFactory().create();
        CacheLoader<K, V> loader = config.getCacheLoaderFactory() == null
                ? null
                : config.getCacheLoaderFactory().create();
        CacheWriter<K, V> writer = config.getCacheWriterFactory() == null ? null : writer(config);
        this.listeners = new Listeners<>("shardq-jcache-" + name + "-listeners");
        for (CacheEntryListenerConfiguration<K, V> l : config.getCacheEntryListenerConfigurations()) {
            listeners.register(l);
        }
        String uri = manager.getURI().toString();
        this.statsName = MBeans.name(MBeans.STATISTICS, uri, name);
        this.configName = MBeans.name(MBeans.CONFIGURATION, uri, name);
        this.stats = new JCacheStatistics(
                config::isStatisticsEnabled,
                () -> broker.admin().caches().get(storeName).evictions());
        this.entries =
                new StoredEntries<>(this, codec, broker, kv, storeName, manager.clock(), expiry, stats, listeners);
        this.through = new ReadWriteThrough<>(codec, config, loader, writer, entries);
        this.processing = new EntryProcessing<>(codec, entries, through, stats);
        if (config.isStatisticsEnabled()) {
            MBeans.register(stats, statsName);
        }
        if (config.isManagementEnabled()) {
            MBeans.register(new JCacheConfigurationBean(this), configName);
        }
    }

    /** JCache types the writer {@code CacheWriter<? super K, ? super V>}; it is called with K and V only. */
    @SuppressWarnings("unchecked")
    private static <K, V> CacheWriter<K, V> writer(MutableConfiguration<K, V> config) {
        return (CacheWriter<K, V>) config.getCacheWriterFactory().create();
    }

    CompleteConfiguration<K, V> configuration() {
        return config;
    }

    // ---------------------------------------------------------------- reads

    @Override
    public V get(K key) {
        checkOpen();
        requireKey(key);
        long t0 = System.nanoTime();
        Stored s = entries.readLive(key);
        V v;
        if (s != null) {
            stats.hits(1);
            v = decode(s);
            entries.accessed(key, s);
        } else {
            stats.misses(1);
            v = through.readThrough() ? through.loadAndStore(key) : null;
        }
        stats.getTime(t0);
        return v;
    }

    @Override
    public Map<K, V> getAll(Set<? extends K> keySet) {
        checkOpen();
        Objects.requireNonNull(keySet, "keys");
        keySet.forEach(this::requireKey);
        long t0 = System.nanoTime();
        Map<K, byte[]> raw = call(() -> kv.getAll(keySet));
        Map<K, V> out = new LinkedHashMap<>();
        List<K> missing = new ArrayList<>();
        long now = entries.now();
        for (K k : keySet) {
            byte[] r = raw.get(k);
            Stored s = r == null ? null : codec.stored(r);
            if (s != null && s.expired(now)) {
                entries.expire(k);
                s = null;
            }
            if (s == null) {
                missing.add(k);
            } else {
                out.put(k, decode(s));
                entries.accessed(k, s);
            }
        }
        stats.hits(out.size());
        stats.misses(missing.size());
        if (through.readThrough() && !missing.isEmpty()) {
            Map<K, V> loaded = through.loadAll(missing);
            out.putAll(through.storeLoaded(loaded, false));
        }
        stats.getTime(t0);
        return out;
    }

    @Override
    public boolean containsKey(K key) {
        checkOpen();
        requireKey(key);
        return entries.readLive(key) != null;
    }

    /**
     * The entry of {@code key} when its value equals {@code expected}, else null: the conditional
     * remove and replace. Counts a hit or a miss; a comparison that fails is an access (JSR-107).
     */
    private Stored holding(StoredEntries<K, V>.Tx tx, K key, V expected) {
        Stored cur = tx.current(key);
        if (cur == null) {
            stats.misses(1);
            return null;
        }
        stats.hits(1);
        if (!decode(cur).equals(expected)) {
            entries.accessedIn(tx, key, cur);
            return null;
        }
        return cur;
    }

    @Override
    public void loadAll(Set<? extends K> keySet, boolean replaceExistingValues, CompletionListener listener) {
        checkOpen();
        Objects.requireNonNull(keySet, "keys");
        keySet.forEach(this::requireKey);
        through.loadAllInBackground(keySet, replaceExistingValues, listener);
    }

    // ---------------------------------------------------------------- writes

    @Override
    public void put(K key, V value) {
        checkOpen();
        requireKey(key);
        requireValue(value);
        long t0 = System.nanoTime();
        entries.change(List.of(key), tx -> {
            Stored cur = tx.current(key);
            through.write(key, value);
            stats.puts(entries.store(tx, key, value, cur, entries.now()) ? 1 : 0);
            return null;
        });
        stats.putTime(t0);
    }

    @Override
    public V getAndPut(K key, V value) {
        checkOpen();
        requireKey(key);
        requireValue(value);
        long t0 = System.nanoTime();
        V old = entries.change(List.of(key), tx -> {
            Stored cur = tx.current(key);
            through.write(key, value);
            stats.puts(entries.store(tx, key, value, cur, entries.now()) ? 1 : 0);
            return cur == null ? null : decode(cur);
        });
        if (old == null) {
            stats.misses(1);
        } else {
            stats.hits(1);
        }
        stats.putTime(t0);
        stats.getTime(t0);
        return old;
    }

    @Override
    public void putAll(Map<? extends K, ? extends V> map) {
        checkOpen();
        Objects.requireNonNull(map, "map");
        map.forEach((k, v) -> {
            requireKey(k);
            requireValue(v);
        });
        long t0 = System.nanoTime();
        Map<K, V> copy = new LinkedHashMap<>(map);
        CacheWriterException failed = entries.change(copy.keySet(), tx -> {
            Map<K, Stored> cur = tx.current(copy.keySet());
            CacheWriterException writerFailed = null;
            Map<K, V> write = copy;
            if (through.writeThrough()) {
                Collection<Cache.Entry<? extends K, ? extends V>> toWrite = new ArrayList<>();
                copy.forEach((k, v) -> toWrite.add(new JCacheEntry<>(k, v)));
                try {
                    through.writeAll(toWrite);
                } catch (CacheWriterException e) {
                    // JSR-107: what the writer wrote (took out of the collection) is cached, the rest not
                    writerFailed = e;
                    write = new LinkedHashMap<>(copy);
                    for (Cache.Entry<? extends K, ? extends V> left : toWrite) {
                        write.remove(left.getKey());
                    }
                }
            }
            long now = entries.now();
            int n = 0;
            for (Map.Entry<K, V> e : write.entrySet()) {
                n += entries.store(tx, e.getKey(), e.getValue(), cur.get(e.getKey()), now) ? 1 : 0;
            }
            stats.puts(n);
            return writerFailed;
        });
        stats.putTime(t0);
        if (failed != null) {
            throw failed;
        }
    }

    @Override
    public boolean putIfAbsent(K key, V value) {
        checkOpen();
        requireKey(key);
        requireValue(value);
        long t0 = System.nanoTime();
        boolean done = entries.change(List.of(key), tx -> {
            if (tx.current(key) != null) {
                return false;
            }
            through.write(key, value);
            stats.puts(entries.store(tx, key, value, null, entries.now()) ? 1 : 0);
            return true;
        });
        if (done) {
            stats.misses(1);
        } else {
            stats.hits(1);
        }
        stats.putTime(t0);
        return done;
    }

    @Override
    public boolean remove(K key) {
        checkOpen();
        requireKey(key);
        long t0 = System.nanoTime();
        boolean removed = entries.change(List.of(key), tx -> {
            Stored cur = tx.current(key);
            through.delete(key);
            return cur != null && entries.remove(tx, key, cur);
        });
        stats.removeTime(t0);
        return removed;
    }

    @Override
    public boolean remove(K key, V oldValue) {
        checkOpen();
        requireKey(key);
        requireValue(oldValue);
        long t0 = System.nanoTime();
        boolean removed = entries.change(List.of(key), tx -> {
            Stored cur = holding(tx, key, oldValue);
            if (cur == null) {
                return false;
            }
            through.delete(key);
            return entries.remove(tx, key, cur);
        });
        stats.removeTime(t0);
        return removed;
    }

    @Override
    public V getAndRemove(K key) {
        checkOpen();
        requireKey(key);
        long t0 = System.nanoTime();
        V old = entries.change(List.of(key), tx -> {
            Stored cur = tx.current(key);
            through.delete(key);
            if (cur == null) {
                return null;
            }
            V v = decode(cur);
            entries.remove(tx, key, cur);
            return v;
        });
        if (old == null) {
            stats.misses(1);
        } else {
            stats.hits(1);
        }
        stats.removeTime(t0);
        stats.getTime(t0);
        return old;
    }

    @Override
    public boolean replace(K key, V oldValue, V newValue) {
        checkOpen();
        requireKey(key);
        requireValue(oldValue);
        requireValue(newValue);
        long t0 = System.nanoTime();
        boolean done = entries.change(List.of(key), tx -> {
            Stored cur = holding(tx, key, oldValue);
            if (cur == null) {
                return false;
            }
            through.write(key, newValue);
            stats.puts(entries.store(tx, key, newValue, cur, entries.now()) ? 1 : 0);
            return true;
        });
        stats.putTime(t0);
        return done;
    }

    @Override
    public boolean replace(K key, V value) {
        return getAndReplace(key, value, false) != null;
    }

    @Override
    public V getAndReplace(K key, V value) {
        return getAndReplace(key, value, true);
    }

    private V getAndReplace(K key, V value, boolean getStats) {
        checkOpen();
        requireKey(key);
        requireValue(value);
        long t0 = System.nanoTime();
        V old = entries.change(List.of(key), tx -> {
            Stored cur = tx.current(key);
            if (cur == null) {
                return null;
            }
            V v = decode(cur);
            through.write(key, value);
            stats.puts(entries.store(tx, key, value, cur, entries.now()) ? 1 : 0);
            return v;
        });
        if (old == null) {
            stats.misses(1);
        } else {
            stats.hits(1);
        }
        stats.putTime(t0);
        if (getStats) {
            stats.getTime(t0);
        }
        return old;
    }

    @Override
    public void removeAll(Set<? extends K> keySet) {
        checkOpen();
        Objects.requireNonNull(keySet, "keys");
        keySet.forEach(this::requireKey);
        long t0 = System.nanoTime();
        Set<K> all = new LinkedHashSet<>(keySet);
        CacheWriterException failed = entries.change(all, tx -> {
            Map<K, Stored> cur = tx.current(all);
            CacheWriterException writerFailed = null;
            if (through.writeThrough()) {
                Collection<Object> pending = new ArrayList<>(all);
                try {
                    through.deleteAll(pending);
                } catch (CacheWriterException e) {
                    // JSR-107: what the writer deleted (took out of the collection) is removed, the rest not
                    writerFailed = e;
                    cur.keySet().removeIf(pending::contains);
                }
            }
            for (Map.Entry<K, Stored> e : cur.entrySet()) {
                entries.remove(tx, e.getKey(), e.getValue());
            }
            return writerFailed;
        });
        stats.removeTime(t0);
        if (failed != null) {
            throw failed;
        }
    }

    /**
     * Removes every entry as {@link #removeAll(Set)} does (CacheWriter, REMOVED events, statistics),
     * a page of {@value #PAGE} keys at a time from the engine's key listing, each page one
     * transaction: not atomic as a whole, and entries written meanwhile may stay. {@link #clear()}
     * is the fast way (one TRUNCATE, no writer, no events).
     */
    @Override
    public void removeAll() {
        checkOpen();
        K after = null;
        while (true) {
            K from = after;
            List<K> page = call(() -> kv.keys(from, PAGE));
            if (page.isEmpty()) {
                return;
            }
            removeAll(new LinkedHashSet<>(page));
            after = page.get(page.size() - 1);
        }
    }

    /** Empties the cache for every JVM (a TRUNCATE): no CacheWriter call, no events, as JCache says. */
    @Override
    public void clear() {
        checkOpen();
        call(() -> {
            kv.clear();
            return null;
        });
    }

    // ---------------------------------------------------------------- entry processors

    @Override
    public <T> T invoke(K key, EntryProcessor<K, V, T> processor, Object... arguments) {
        checkOpen();
        requireKey(key);
        Objects.requireNonNull(processor, "processor");
        return processing.invoke(key, processor, arguments);
    }

    @Override
    public <T> Map<K, EntryProcessorResult<T>> invokeAll(
            Set<? extends K> keySet, EntryProcessor<K, V, T> processor, Object... arguments) {
        checkOpen();
        Objects.requireNonNull(keySet, "keys");
        keySet.forEach(this::requireKey);
        Objects.requireNonNull(processor, "processor");
        Map<K, EntryProcessorResult<T>> out = new LinkedHashMap<>();
        for (K k : keySet) {
            try {
                T r = invoke(k, processor, arguments);
                if (r != null) {
                    out.put(k, () -> r);
                }
            } catch (EntryProcessorException e) {
                out.put(k, () -> {
                    throw e;
                });
            }
        }
        return out;
    }

    // ---------------------------------------------------------------- listeners

    @Override
    public void registerCacheEntryListener(CacheEntryListenerConfiguration<K, V> listenerConfiguration) {
        checkOpen();
        Objects.requireNonNull(listenerConfiguration, "listenerConfiguration");
        listeners.register(listenerConfiguration);
        config.addCacheEntryListenerConfiguration(listenerConfiguration);
    }

    @Override
    public void deregisterCacheEntryListener(CacheEntryListenerConfiguration<K, V> listenerConfiguration) {
        checkOpen();
        Objects.requireNonNull(listenerConfiguration, "listenerConfiguration");
        listeners.deregister(listenerConfiguration);
        config.removeCacheEntryListenerConfiguration(listenerConfiguration);
    }

    // ---------------------------------------------------------------- statistics

    synchronized void setStatisticsEnabled(boolean enabled) {
        if (enabled && !config.isStatisticsEnabled()) {
            MBeans.register(stats, statsName);
        } else if (!enabled && config.isStatisticsEnabled()) {
            MBeans.unregister(statsName);
        }
        config.setStatisticsEnabled(enabled);
    }

    synchronized void setManagementEnabled(boolean enabled) {
        if (enabled && !config.isManagementEnabled()) {
            MBeans.register(new JCacheConfigurationBean(this), configName);
        } else if (!enabled && config.isManagementEnabled()) {
            MBeans.unregister(configName);
        }
        config.setManagementEnabled(enabled);
    }

    // ---------------------------------------------------------------- the rest of Cache

    /**
     * The live entries, read a page of {@value #PAGE} keys at a time in the order of their encoded
     * bytes (the engine's {@link KvCache#keys}), then their values: not a snapshot, entries written
     * meanwhile may or may not be seen. Each entry returned counts as a hit and is an access for
     * the expiry policy; {@code remove()} removes through {@link #remove(Object)}.
     */
    @Override
    public Iterator<Cache.Entry<K, V>> iterator() {
        checkOpen();
        return new EntryIterator<>(
                after -> {
                    checkOpen();
                    return call(() -> kv.keys(after, PAGE));
                },
                PAGE,
                this::livePage,
                this::visited,
                this::remove);
    }

    /** An entry the iterator will return, with what was stored (for its access expiry). */
    private record Visit<K, V>(JCacheEntry<K, V> entry, Stored stored) {}

    /** The live entries among a page of listed keys (expired ones removed, EXPIRED fired). */
    private List<Visit<K, V>> livePage(List<K> page) {
        Map<K, byte[]> raw = call(() -> kv.getAll(page));
        List<Visit<K, V>> out = new ArrayList<>();
        long now = entries.now();
        for (K k : page) {
            byte[] r = raw.get(k);
            if (r == null) {
                continue; // removed since the listing
            }
            Stored s = codec.stored(r);
            if (s.expired(now)) {
                entries.expire(k);
                continue;
            }
            out.add(new Visit<>(new JCacheEntry<>(k, decode(s)), s));
        }
        return out;
    }

    /** An entry the iterator returns: a hit, and an access for the expiry policy. */
    private Cache.Entry<K, V> visited(Visit<K, V> v) {
        stats.hits(1);
        entries.accessed(v.entry().getKey(), v.stored());
        return v.entry();
    }

    @Override
    public String getName() {
        return name;
    }

    @Override
    public CacheManager getCacheManager() {
        return manager;
    }

    @Override
    public <C extends Configuration<K, V>> C getConfiguration(Class<C> clazz) {
        MutableConfiguration<K, V> copy = new MutableConfiguration<>(config);
        if (clazz.isInstance(copy)) {
            return clazz.cast(copy);
        }
        throw new IllegalArgumentException("the configuration of a ShardQ cache is a "
                + MutableConfiguration.class.getName() + ", not a " + clazz.getName());
    }

    /**
     * This cache, or the ShardQ {@link KvCache} under it (values in this layer's own codec; what it
     * writes has no JCache expiry of its own, only the engine's TTL; it sees entries up to {@link
     * #GRACE} past their JCache expiry), or the {@link Broker}.
     */
    @Override
    public <T> T unwrap(Class<T> clazz) {
        if (clazz.isInstance(this)) {
            return clazz.cast(this);
        }
        if (clazz == KvCache.class) {
            return clazz.cast(broker.cache(storeName, codec.keys(), new JCacheValueCodec<>(codec.values())));
        }
        if (clazz.isInstance(broker)) {
            return clazz.cast(broker);
        }
        throw new IllegalArgumentException("a ShardQ JCache cache unwraps to itself, to " + KvCache.class.getName()
                + " or to " + Broker.class.getName() + ", not to " + clazz.getName());
    }

    @Override
    public void close() {
        closeLocal();
        manager.forget(this);
    }

    /** Closes this JVM's handle: MBeans, listeners, loads, and closeable factories' products. */
    synchronized void closeLocal() {
        if (closed) {
            return;
        }
        closed = true;
        MBeans.unregister(statsName);
        MBeans.unregister(configName);
        listeners.close();
        through.close(); // waits for a loadAll in flight, then closes the loader and the writer
        ReadWriteThrough.closeQuietly(expiry);
    }

    @Override
    public boolean isClosed() {
        return closed || manager.isClosed();
    }

    // ---------------------------------------------------------------- helpers

    private void checkOpen() {
        if (isClosed()) {
            throw new IllegalStateException("cache \"" + name + "\" is closed");
        }
    }

    private void requireKey(K key) {
        codec.requireKey(key);
    }

    private void requireValue(V value) {
        codec.requireValue(value);
    }

    private V decode(Stored s) {
        return codec.decode(s);
    }

    private <R> R call(Supplier<R> engine) {
        return codec.call(engine);
    }

    @Override
    public String toString() {
        return "ShardQCache[" + name + "]";
    }
}
