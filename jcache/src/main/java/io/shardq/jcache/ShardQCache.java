package io.shardq.jcache;

import io.shardq.broker.Broker;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.kv.Codec;
import io.shardq.broker.kv.KvCache;
import io.shardq.broker.shard.BrokerSession;
import java.io.Closeable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import java.util.function.Supplier;
import javax.cache.Cache;
import javax.cache.CacheException;
import javax.cache.CacheManager;
import javax.cache.configuration.CacheEntryListenerConfiguration;
import javax.cache.configuration.CompleteConfiguration;
import javax.cache.configuration.Configuration;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.event.EventType;
import javax.cache.expiry.ExpiryPolicy;
import javax.cache.integration.CacheLoader;
import javax.cache.integration.CacheLoaderException;
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
 * <p><b>Expiry</b> is kept per entry in this layer ({@link Stored}) and judged by the manager's
 * clock, which must be the broker's; the engine's TTL is the same instant plus {@link Expiries#GRACE}.
 * An entry found expired is removed under its lock and an EXPIRED event fires; entries no JVM
 * reads again go when the engine drops their partition, without an event.
 */
final class ShardQCache<K, V> implements Cache<K, V> {
    /** Keys per page of {@link #iterator()} and {@link #removeAll()}. */
    static final int PAGE = 100;

    private static final String LOCK_SQL = "SELECT count(pg_advisory_xact_lock(?, h)) FROM unnest(?::integer[]) AS h";

    private final ShardQCacheManager manager;
    private final String name;
    /** The ShardQ cache's name (see {@link ShardQCacheManager#storeName}). */
    private final String storeName;

    private final MutableConfiguration<K, V> config;
    private final Broker broker;
    private final Clock clock;
    private final Codec<K> keys;
    private final Codec<V> values;
    private final KvCache<K, byte[]> kv;
    private final ExpiryPolicy expiry;
    private final CacheLoader<K, V> loader;
    private final CacheWriter<K, V> writer;
    private final JCacheStatistics stats;
    private final Listeners<K, V> listeners;
    private final int lockSpace;
    private final ObjectName statsName;
    private final ObjectName configName;
    private ExecutorService loads;
    private volatile boolean closed;

    ShardQCache(ShardQCacheManager manager, String name, MutableConfiguration<K, V> config) {
        this.manager = manager;
        this.name = name;
        this.storeName = ShardQCacheManager.storeName(name);
        this.config = config;
        this.broker = manager.broker();
        this.clock = manager.clock();
        this.keys = Codecs.forType(config.getKeyType(), manager.serialAllow());
        this.values = Codecs.forType(config.getValueType(), manager.serialAllow());
        try {
            this.kv = broker.cache(storeName, keys, Codec.bytes());
        } catch (ShardQException e) {
            throw translate(e);
        }
        this.expiry = config.getExpiryPolicyFactory().create();
        this.loader = config.getCacheLoaderFactory() == null
                ? null
                : config.getCacheLoaderFactory().create();
        this.writer = config.getCacheWriterFactory() == null ? null : writer(config);
        this.lockSpace = ("shardq.jcache/" + storeName).hashCode();
        this.listeners = new Listeners<>("shardq-jcache-" + name + "-listeners");
        for (CacheEntryListenerConfiguration<K, V> l : config.getCacheEntryListenerConfigurations()) {
            listeners.register(l);
        }
        String uri = manager.getURI().toString();
        this.statsName = MBeans.name(MBeans.STATISTICS, uri, name);
        this.configName = MBeans.name(MBeans.CONFIGURATION, uri, name);
        this.stats = new JCacheStatistics(
                config::isStatisticsEnabled,
                () -> broker.admin().cache(storeName).evictions());
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
        Stored s = readLive(key);
        V v;
        if (s != null) {
            stats.hits(1);
            v = decode(s);
            accessed(key, s);
        } else {
            stats.misses(1);
            v = readThrough() ? loadAndStore(key) : null;
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
        long now = now();
        for (K k : keySet) {
            byte[] r = raw.get(k);
            Stored s = r == null ? null : stored(r);
            if (s != null && s.expired(now)) {
                expire(k);
                s = null;
            }
            if (s == null) {
                missing.add(k);
            } else {
                out.put(k, decode(s));
                accessed(k, s);
            }
        }
        stats.hits(out.size());
        stats.misses(missing.size());
        if (readThrough() && !missing.isEmpty()) {
            Map<K, V> loaded = loadAllFromLoader(missing);
            out.putAll(storeLoaded(loaded, false));
        }
        stats.getTime(t0);
        return out;
    }

    @Override
    public boolean containsKey(K key) {
        checkOpen();
        requireKey(key);
        return readLive(key) != null;
    }

    /** The key's live entry outside a transaction; an expired one is removed (EXPIRED) and null returned. */
    private Stored readLive(K key) {
        byte[] raw = call(() -> kv.get(key));
        if (raw == null) {
            return null;
        }
        Stored s = stored(raw);
        if (s.expired(now())) {
            expire(key);
            return null;
        }
        return s;
    }

    /** Removes the key if its entry is still expired, firing EXPIRED. */
    private void expire(K key) {
        mutate(List.of(key), tx -> tx.current(key));
    }

    /** Applies the access expiry to an entry just read, unless it changed meanwhile. */
    private void accessed(K key, Stored read) {
        long now = now();
        long at = Expiries.at(expiry::getExpiryForAccess, now);
        if (at == Expiries.UNCHANGED || at == read.expiresAt()) {
            return;
        }
        mutate(List.of(key), tx -> {
            byte[] raw = tx.view.get(key);
            if (raw == null || !Arrays.equals(raw, read.raw())) {
                return null; // changed: its own expiry stands
            }
            setExpiry(tx, key, read, at, now);
            return null;
        });
    }

    /** Applies the access expiry to an entry read inside a change that leaves it as it is. */
    /**
     * The entry of {@code key} when its value equals {@code expected}, else null: the conditional
     * remove and replace. Counts a hit or a miss; a comparison that fails is an access (JSR-107).
     */
    private Stored holding(Tx tx, K key, V expected) {
        Stored cur = tx.current(key);
        if (cur == null) {
            stats.misses(1);
            return null;
        }
        stats.hits(1);
        if (!decode(cur).equals(expected)) {
            accessedIn(tx, key, cur);
            return null;
        }
        return cur;
    }

    private void accessedIn(Tx tx, K key, Stored cur) {
        long now = now();
        long at = Expiries.at(expiry::getExpiryForAccess, now);
        if (at != Expiries.UNCHANGED && at != cur.expiresAt()) {
            setExpiry(tx, key, cur, at, now);
        }
    }

    private void setExpiry(Tx tx, K key, Stored cur, long at, long now) {
        if (at <= now) {
            tx.view.remove(key);
            V old = decode(cur);
            tx.events.add(event(EventType.EXPIRED, key, old, old));
        } else {
            tx.view.put(key, Stored.wrap(cur.value(), at), Expiries.ttl(at, now));
        }
    }

    // ---------------------------------------------------------------- read-through

    private boolean readThrough() {
        return config.isReadThrough() && loader != null;
    }

    private V loadAndStore(K key) {
        V v = loadFromLoader(key);
        if (v == null) {
            return null;
        }
        return mutate(List.of(key), tx -> {
            Stored cur = tx.current(key);
            if (cur != null) {
                return decode(cur); // stored by someone else meanwhile
            }
            store(tx, key, v, null, now());
            return v;
        });
    }

    private V loadFromLoader(K key) {
        try {
            V v = loader.load(key);
            if (v != null) {
                requireValue(v);
            }
            return v;
        } catch (CacheLoaderException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new CacheLoaderException("the loader of cache \"" + name + "\" failed: " + e, e);
        } catch (Exception e) {
            throw new CacheLoaderException("the loader of cache \"" + name + "\" failed: " + e, e);
        }
    }

    private Map<K, V> loadAllFromLoader(Collection<K> wanted) {
        Map<K, V> loaded;
        try {
            loaded = loader.loadAll(wanted);
        } catch (CacheLoaderException e) {
            throw e;
        } catch (Exception e) {
            throw new CacheLoaderException("the loader of cache \"" + name + "\" failed: " + e, e);
        }
        Map<K, V> out = new LinkedHashMap<>();
        if (loaded != null) {
            loaded.forEach((k, v) -> {
                if (k != null && v != null) {
                    out.put(k, v);
                }
            });
        }
        return out;
    }

    /** Stores loaded values (no CacheWriter: they came from the store); returns what is now cached. */
    private Map<K, V> storeLoaded(Map<K, V> loaded, boolean replaceExisting) {
        if (loaded.isEmpty()) {
            return loaded;
        }
        return mutate(loaded.keySet(), tx -> {
            Map<K, Stored> cur = tx.current(loaded.keySet());
            Map<K, V> out = new LinkedHashMap<>();
            long now = now();
            for (Map.Entry<K, V> e : loaded.entrySet()) {
                Stored c = cur.get(e.getKey());
                if (c != null && !replaceExisting) {
                    out.put(e.getKey(), decode(c));
                } else {
                    store(tx, e.getKey(), e.getValue(), c, now);
                    out.put(e.getKey(), e.getValue());
                }
            }
            return out;
        });
    }

    @Override
    public void loadAll(Set<? extends K> keySet, boolean replaceExistingValues, CompletionListener listener) {
        checkOpen();
        Objects.requireNonNull(keySet, "keys");
        keySet.forEach(this::requireKey);
        if (loader == null) {
            if (listener != null) {
                listener.onCompletion();
            }
            return;
        }
        List<K> all = new ArrayList<>(keySet);
        loadExecutor().execute(() -> {
            try {
                List<K> wanted = new ArrayList<>();
                for (K k : all) {
                    if (replaceExistingValues || readLive(k) == null) {
                        wanted.add(k);
                    }
                }
                if (!wanted.isEmpty()) {
                    storeLoaded(loadAllFromLoader(wanted), replaceExistingValues);
                }
                if (listener != null) {
                    listener.onCompletion();
                }
            } catch (Exception e) {
                if (listener != null) {
                    listener.onException(e);
                }
            }
        });
    }

    private synchronized ExecutorService loadExecutor() {
        if (loads == null) {
            loads = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "shardq-jcache-" + name + "-loadAll");
                t.setDaemon(true);
                return t;
            });
        }
        return loads;
    }

    // ---------------------------------------------------------------- writes

    @Override
    public void put(K key, V value) {
        checkOpen();
        requireKey(key);
        requireValue(value);
        long t0 = System.nanoTime();
        mutate(List.of(key), tx -> {
            Stored cur = tx.current(key);
            writeThrough(key, value);
            stats.puts(store(tx, key, value, cur, now()) ? 1 : 0);
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
        V old = mutate(List.of(key), tx -> {
            Stored cur = tx.current(key);
            writeThrough(key, value);
            stats.puts(store(tx, key, value, cur, now()) ? 1 : 0);
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
        CacheWriterException failed = mutate(copy.keySet(), tx -> {
            Map<K, Stored> cur = tx.current(copy.keySet());
            CacheWriterException writerFailed = null;
            Map<K, V> write = copy;
            if (writeThrough()) {
                Collection<Cache.Entry<? extends K, ? extends V>> entries = new ArrayList<>();
                copy.forEach((k, v) -> entries.add(new JCacheEntry<>(k, v)));
                try {
                    through(() -> writer.writeAll(entries));
                } catch (CacheWriterException e) {
                    // JSR-107: what the writer wrote (took out of the collection) is cached, the rest not
                    writerFailed = e;
                    write = new LinkedHashMap<>(copy);
                    for (Cache.Entry<? extends K, ? extends V> left : entries) {
                        write.remove(left.getKey());
                    }
                }
            }
            long now = now();
            int n = 0;
            for (Map.Entry<K, V> e : write.entrySet()) {
                n += store(tx, e.getKey(), e.getValue(), cur.get(e.getKey()), now) ? 1 : 0;
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
        boolean done = mutate(List.of(key), tx -> {
            if (tx.current(key) != null) {
                return false;
            }
            writeThrough(key, value);
            stats.puts(store(tx, key, value, null, now()) ? 1 : 0);
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
        boolean removed = mutate(List.of(key), tx -> {
            Stored cur = tx.current(key);
            deleteThrough(key);
            return cur != null && removeStored(tx, key, cur);
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
        boolean removed = mutate(List.of(key), tx -> {
            Stored cur = holding(tx, key, oldValue);
            if (cur == null) {
                return false;
            }
            deleteThrough(key);
            return removeStored(tx, key, cur);
        });
        stats.removeTime(t0);
        return removed;
    }

    @Override
    public V getAndRemove(K key) {
        checkOpen();
        requireKey(key);
        long t0 = System.nanoTime();
        V old = mutate(List.of(key), tx -> {
            Stored cur = tx.current(key);
            deleteThrough(key);
            if (cur == null) {
                return null;
            }
            V v = decode(cur);
            removeStored(tx, key, cur);
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
        boolean done = mutate(List.of(key), tx -> {
            Stored cur = holding(tx, key, oldValue);
            if (cur == null) {
                return false;
            }
            writeThrough(key, newValue);
            stats.puts(store(tx, key, newValue, cur, now()) ? 1 : 0);
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
        V old = mutate(List.of(key), tx -> {
            Stored cur = tx.current(key);
            if (cur == null) {
                return null;
            }
            V v = decode(cur);
            writeThrough(key, value);
            stats.puts(store(tx, key, value, cur, now()) ? 1 : 0);
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
        CacheWriterException failed = mutate(all, tx -> {
            Map<K, Stored> cur = tx.current(all);
            CacheWriterException writerFailed = null;
            if (writeThrough()) {
                Collection<Object> pending = new ArrayList<>(all);
                try {
                    through(() -> writer.deleteAll(pending));
                } catch (CacheWriterException e) {
                    // JSR-107: what the writer deleted (took out of the collection) is removed, the rest not
                    writerFailed = e;
                    cur.keySet().removeIf(pending::contains);
                }
            }
            for (Map.Entry<K, Stored> e : cur.entrySet()) {
                removeStored(tx, e.getKey(), e.getValue());
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
        try {
            return mutate(List.of(key), tx -> process(tx, key, processor, arguments));
        } catch (EntryProcessorException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new EntryProcessorException(e);
        }
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

    private <T> T process(Tx tx, K key, EntryProcessor<K, V, T> processor, Object[] arguments) {
        Stored cur = tx.current(key);
        V old = cur == null ? null : decode(cur);
        // JSR-107 (and its TCK): finding the key is the hit or miss, whatever the processor does
        if (cur != null) {
            stats.hits(1);
        } else {
            stats.misses(1);
        }
        ProcessorEntry<K, V> e =
                new ProcessorEntry<>(key, old, readThrough() ? this::loadFromLoader : null, this::requireValue);
        T result;
        try {
            result = processor.process(e, arguments);
        } catch (EntryProcessorException ex) {
            throw ex;
        } catch (Exception ex) {
            throw new EntryProcessorException(ex);
        }
        long now = now();
        switch (e.op()) {
            case NONE -> {
                if (e.read() && cur != null && e.value() != null) {
                    accessedIn(tx, key, cur);
                }
            }
            case LOAD -> {
                store(tx, key, e.value(), null, now);
            }
            case CREATE, UPDATE -> {
                writeThrough(key, e.value());
                stats.puts(store(tx, key, e.value(), cur, now) ? 1 : 0);
            }
            case REMOVE -> {
                deleteThrough(key); // also for an absent entry, as remove(key) does
                if (cur != null) {
                    removeStored(tx, key, cur);
                }
            }
        }
        return result;
    }

    // ---------------------------------------------------------------- the transaction of a change

    /** One change: a transacted engine session with the keys' locks held, and its events. */
    private final class Tx implements AutoCloseable {
        final BrokerSession session;
        final KvCache<K, byte[]> view;
        final List<JCacheEvent<K, V>> events = new ArrayList<>();

        Tx(Collection<? extends K> lockKeys) {
            session = broker.openSession(BrokerSession.Mode.TRANSACTED);
            try {
                view = kv.in(session);
                lock(lockKeys);
            } catch (RuntimeException e) {
                session.close();
                throw e;
            }
        }

        private void lock(Collection<? extends K> lockKeys) {
            int[] hashes = lockKeys.stream()
                    .mapToInt(k -> Arrays.hashCode(keys.encode(k)))
                    .distinct()
                    .sorted()
                    .toArray();
            if (hashes.length == 0) {
                return;
            }
            Connection c = session.connection();
            try (PreparedStatement ps = c.prepareStatement(LOCK_SQL)) {
                ps.setInt(1, lockSpace);
                ps.setArray(
                        2,
                        c.createArrayOf("integer", Arrays.stream(hashes).boxed().toArray()));
                ps.executeQuery().close();
            } catch (SQLException e) {
                throw new CacheException("cache \"" + name + "\": cannot lock the keys of a change: " + e, e);
            }
        }

        /** The key's live entry in this transaction; an expired one is removed here (EXPIRED). */
        Stored current(K key) {
            byte[] raw = view.get(key);
            return raw == null ? null : live(key, stored(raw));
        }

        Map<K, Stored> current(Collection<K> wanted) {
            Map<K, Stored> out = new LinkedHashMap<>();
            view.getAll(wanted).forEach((k, raw) -> {
                Stored s = live(k, stored(raw));
                if (s != null) {
                    out.put(k, s);
                }
            });
            return out;
        }

        private Stored live(K key, Stored s) {
            if (!s.expired(now())) {
                return s;
            }
            view.remove(key);
            V old = decode(s);
            events.add(event(EventType.EXPIRED, key, old, old));
            return null;
        }

        @Override
        public void close() {
            session.close();
        }
    }

    /** Runs a change in its transaction, commits, then fires its events. */
    private <R> R mutate(Collection<? extends K> lockKeys, Function<Tx, R> work) {
        R r;
        List<JCacheEvent<K, V>> events;
        try (Tx tx = new Tx(lockKeys)) {
            r = work.apply(tx);
            tx.session.commit();
            events = tx.events;
        } catch (ShardQException e) {
            throw translate(e);
        }
        listeners.fire(events);
        return r;
    }

    /**
     * Stores {@code value} given the key's current entry {@code cur} (null: none) with the creation
     * or update expiry, and records CREATED or UPDATED; false when the expiry said the entry is
     * expired already (a zero duration: nothing stored on creation, removed on update).
     */
    private boolean store(Tx tx, K key, V value, Stored cur, long now) {
        long at;
        if (cur == null) {
            at = Expiries.at(expiry::getExpiryForCreation, now);
            if (at == Expiries.UNCHANGED) {
                at = Stored.ETERNAL;
            }
            if (at <= now) {
                return false;
            }
        } else {
            at = Expiries.at(expiry::getExpiryForUpdate, now);
            if (at == Expiries.UNCHANGED) {
                at = cur.expiresAt();
            }
            if (at <= now) {
                tx.view.remove(key);
                V old = decode(cur);
                tx.events.add(event(EventType.EXPIRED, key, old, old));
                return false;
            }
        }
        tx.view.put(key, Stored.wrap(encode(value), at), Expiries.ttl(at, now));
        tx.events.add(
                cur == null
                        ? event(EventType.CREATED, key, value, null)
                        : event(EventType.UPDATED, key, value, decode(cur)));
        return true;
    }

    private boolean removeStored(Tx tx, K key, Stored cur) {
        tx.view.remove(key);
        V old = decode(cur);
        tx.events.add(event(EventType.REMOVED, key, old, old));
        stats.removals(1);
        return true;
    }

    private JCacheEvent<K, V> event(EventType type, K key, V value, V old) {
        return new JCacheEvent<>(this, type, key, value, old);
    }

    // ---------------------------------------------------------------- write-through

    private boolean writeThrough() {
        return config.isWriteThrough() && writer != null;
    }

    private void writeThrough(K key, V value) {
        if (writeThrough()) {
            through(() -> writer.write(new JCacheEntry<>(key, value)));
        }
    }

    private void deleteThrough(K key) {
        if (writeThrough()) {
            through(() -> writer.delete(key));
        }
    }

    private void through(Runnable call) {
        try {
            call.run();
        } catch (CacheWriterException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new CacheWriterException("the writer of cache \"" + name + "\" failed: " + e, e);
        }
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
        long now = now();
        for (K k : page) {
            byte[] r = raw.get(k);
            if (r == null) {
                continue; // removed since the listing
            }
            Stored s = stored(r);
            if (s.expired(now)) {
                expire(k);
                continue;
            }
            out.add(new Visit<>(new JCacheEntry<>(k, decode(s)), s));
        }
        return out;
    }

    /** An entry the iterator returns: a hit, and an access for the expiry policy. */
    private Cache.Entry<K, V> visited(Visit<K, V> v) {
        stats.hits(1);
        accessed(v.entry().getKey(), v.stored());
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
            return clazz.cast(broker.cache(storeName, keys, new JCacheValueCodec<>(values)));
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
        if (loads != null) {
            // a loadAll in flight finishes before its loader is closed (it would use it after)
            loads.shutdown();
            try {
                if (!loads.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS)) {
                    loads.shutdownNow();
                }
            } catch (InterruptedException e) {
                loads.shutdownNow();
                Thread.currentThread().interrupt();
            }
        }
        for (Object o : new Object[] {loader, writer, expiry}) {
            if (o instanceof Closeable c) {
                try {
                    c.close();
                } catch (java.io.IOException | RuntimeException e) {
                    // closing is best effort, as the spec asks
                }
            }
        }
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
        Objects.requireNonNull(key, "a key must not be null");
        Class<K> t = config.getKeyType();
        if (t != Object.class && !t.isInstance(key)) {
            throw new ClassCastException(
                    "cache \"" + name + "\": a key of type " + key.getClass().getName() + " is not a " + t.getName());
        }
    }

    private void requireValue(V value) {
        Objects.requireNonNull(value, "a value must not be null");
        Class<V> t = config.getValueType();
        if (t != Object.class && !t.isInstance(value)) {
            throw new ClassCastException("cache \"" + name + "\": a value of type "
                    + value.getClass().getName() + " is not a " + t.getName());
        }
    }

    private long now() {
        return clock.millis();
    }

    private byte[] encode(V value) {
        try {
            return values.encode(value);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(
                    "cache \"" + name + "\": cannot store a value of type "
                            + value.getClass().getName() + " (" + values.describe() + "): " + e.getMessage(),
                    e);
        }
    }

    private V decode(Stored s) {
        try {
            return values.decode(s.value());
        } catch (RuntimeException e) {
            throw new CacheException(
                    "cache \"" + name + "\": cannot read a stored value (" + values.describe() + "): " + e.getMessage(),
                    e);
        }
    }

    /** A stored value as this layer wrote it; one written another way is refused naming the cache. */
    private Stored stored(byte[] raw) {
        try {
            return Stored.of(raw);
        } catch (IllegalArgumentException e) {
            throw new CacheException("cache \"" + name + "\": " + e.getMessage(), e);
        }
    }

    private <R> R call(Supplier<R> engine) {
        try {
            return engine.get();
        } catch (ShardQException e) {
            throw translate(e);
        }
    }

    private RuntimeException translate(ShardQException e) {
        if (e.kind() == ErrorKind.INVALID_ARGUMENT) {
            return new IllegalArgumentException(e.getMessage(), e);
        }
        if (e.kind() == ErrorKind.UNKNOWN_CACHE) {
            return new IllegalStateException(
                    "cache \"" + name + "\" was destroyed (its ShardQ cache is gone): " + e.getMessage(), e);
        }
        return new CacheException(e.getMessage(), e);
    }

    @Override
    public String toString() {
        return "ShardQCache[" + name + "]";
    }
}
