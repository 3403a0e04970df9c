package io.shardq.jcache;

import java.io.Closeable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javax.cache.Cache;
import javax.cache.configuration.CompleteConfiguration;
import javax.cache.integration.CacheLoader;
import javax.cache.integration.CacheLoaderException;
import javax.cache.integration.CacheWriter;
import javax.cache.integration.CacheWriterException;
import javax.cache.integration.CompletionListener;

/**
 * One cache's integration with the application's store: its {@link CacheLoader} (read-through and
 * {@code loadAll}) and its {@link CacheWriter} (write-through), and the thread that runs {@code
 * loadAll}.
 *
 * <p>Invariants: a loader or writer failure reaches the caller as {@link CacheLoaderException} or
 * {@link CacheWriterException}, whatever it threw; the writer is called inside the change's
 * transaction, before the engine's writes, so a writer failure leaves the cache as it was; loaded
 * values are stored without the writer (they came from the store). The loadAll thread is started on
 * first use, and {@link #close()} lets a load in flight finish before the loader is closed.
 */
final class ReadWriteThrough<K, V> {
    private final EntryCodec<K, V> codec;
    private final CompleteConfiguration<K, V> config;
    private final CacheLoader<K, V> loader;
    private final CacheWriter<K, V> writer;
    private final StoredEntries<K, V> entries;
    private ExecutorService loads;

    /** {@code loader}, {@code writer}: from the configuration's factories, null when it has none. */
    ReadWriteThrough(
            EntryCodec<K, V> codec,
            CompleteConfiguration<K, V> config,
            CacheLoader<K, V> loader,
            CacheWriter<K, V> writer,
            StoredEntries<K, V> entries) {
        this.codec = codec;
        this.config = config;
        this.loader = loader;
        this.writer = writer;
        this.entries = entries;
    }

    // ---------------------------------------------------------------- read-through

    boolean readThrough() {
        return config.isReadThrough() && loader != null;
    }

    /** Loads the key and stores what the loader gave, unless it was stored meanwhile: what is now cached. */
    V loadAndStore(K key) {
        V v = load(key);
        if (v == null) {
            return null;
        }
        return entries.change(List.of(key), tx -> {
            Stored cur = tx.current(key);
            if (cur != null) {
                return codec.decode(cur); // stored by someone else meanwhile
            }
            entries.store(tx, key, v, null, entries.now());
            return v;
        });
    }

    /** The loader's value for the key (null: none), checked as a value. */
    V load(K key) {
        try {
            V v = loader.load(key);
            if (v != null) {
                codec.requireValue(v);
            }
            return v;
        } catch (CacheLoaderException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new CacheLoaderException("the loader of cache \"" + codec.name() + "\" failed: " + e, e);
        } catch (Exception e) {
            throw new CacheLoaderException("the loader of cache \"" + codec.name() + "\" failed: " + e, e);
        }
    }

    /** The loader's values for {@code wanted}, null keys and values left out. */
    Map<K, V> loadAll(Collection<K> wanted) {
        Map<K, V> loaded;
        try {
            loaded = loader.loadAll(wanted);
        } catch (CacheLoaderException e) {
            throw e;
        } catch (Exception e) {
            throw new CacheLoaderException("the loader of cache \"" + codec.name() + "\" failed: " + e, e);
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
    Map<K, V> storeLoaded(Map<K, V> loaded, boolean replaceExisting) {
        if (loaded.isEmpty()) {
            return loaded;
        }
        return entries.change(loaded.keySet(), tx -> {
            Map<K, Stored> cur = tx.current(loaded.keySet());
            Map<K, V> out = new LinkedHashMap<>();
            long now = entries.now();
            for (Map.Entry<K, V> e : loaded.entrySet()) {
                Stored c = cur.get(e.getKey());
                if (c != null && !replaceExisting) {
                    out.put(e.getKey(), codec.decode(c));
                } else {
                    entries.store(tx, e.getKey(), e.getValue(), c, now);
                    out.put(e.getKey(), e.getValue());
                }
            }
            return out;
        });
    }

    /**
     * {@link Cache#loadAll}, its arguments checked: on the loadAll thread, loads the keys (only the
     * absent ones unless {@code replaceExistingValues}) and stores them, then tells {@code listener}.
     */
    void loadAllInBackground(Set<? extends K> keySet, boolean replaceExistingValues, CompletionListener listener) {
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
                    if (replaceExistingValues || entries.readLive(k) == null) {
                        wanted.add(k);
                    }
                }
                if (!wanted.isEmpty()) {
                    storeLoaded(loadAll(wanted), replaceExistingValues);
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
                Thread t = new Thread(r, "shardq-jcache-" + codec.name() + "-loadAll");
                t.setDaemon(true);
                return t;
            });
        }
        return loads;
    }

    // ---------------------------------------------------------------- write-through

    boolean writeThrough() {
        return config.isWriteThrough() && writer != null;
    }

    /** Writes the entry to the store when the cache writes through. */
    void write(K key, V value) {
        if (writeThrough()) {
            through(() -> writer.write(new JCacheEntry<>(key, value)));
        }
    }

    /** Deletes the key from the store when the cache writes through. */
    void delete(K key) {
        if (writeThrough()) {
            through(() -> writer.delete(key));
        }
    }

    /** The writer's {@code writeAll}: it takes out of {@code entries} what it wrote. Only when {@link #writeThrough()}. */
    void writeAll(Collection<Cache.Entry<? extends K, ? extends V>> entries) {
        through(() -> writer.writeAll(entries));
    }

    /** The writer's {@code deleteAll}: it takes out of {@code keys} what it deleted. Only when {@link #writeThrough()}. */
    void deleteAll(Collection<Object> keys) {
        through(() -> writer.deleteAll(keys));
    }

    private void through(Runnable call) {
        try {
            call.run();
        } catch (CacheWriterException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new CacheWriterException("the writer of cache \"" + codec.name() + "\" failed: " + e, e);
        }
    }

    // ---------------------------------------------------------------- closing

    /** Waits for a loadAll in flight (10 s at most), then closes the loader and the writer if closeable. */
    synchronized void close() {
        if (loads != null) {
            // a loadAll in flight finishes before its loader is closed (it would use it after)
            loads.shutdown();
            try {
                if (!loads.awaitTermination(10, TimeUnit.SECONDS)) {
                    loads.shutdownNow();
                }
            } catch (InterruptedException e) {
                loads.shutdownNow();
                Thread.currentThread().interrupt();
            }
        }
        closeQuietly(loader);
        closeQuietly(writer);
    }

    /** Closes {@code o} if it is {@link Closeable}: best effort, as the spec asks. */
    static void closeQuietly(Object o) {
        if (o instanceof Closeable c) {
            try {
                c.close();
            } catch (java.io.IOException | RuntimeException e) {
                // closing is best effort, as the spec asks
            }
        }
    }
}
