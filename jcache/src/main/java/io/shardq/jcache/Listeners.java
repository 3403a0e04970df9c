package io.shardq.jcache;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import javax.cache.configuration.CacheEntryListenerConfiguration;
import javax.cache.event.CacheEntryCreatedListener;
import javax.cache.event.CacheEntryEventFilter;
import javax.cache.event.CacheEntryExpiredListener;
import javax.cache.event.CacheEntryListener;
import javax.cache.event.CacheEntryListenerException;
import javax.cache.event.CacheEntryRemovedListener;
import javax.cache.event.CacheEntryUpdatedListener;
import javax.cache.event.EventType;

/**
 * The entry listeners of one cache in this JVM. Events are those of changes made through this
 * cache manager's cache: listeners do not see changes other JVMs make (the engine's cross-instance
 * NOTIFY carries key hashes for near-cache invalidation, not keys and values). They fire after the
 * change committed: synchronous listeners on the caller's thread before the call returns (an
 * exception reaches the caller as {@link CacheEntryListenerException}; the change stays
 * committed), asynchronous ones on one thread per cache, in commit order.
 */
final class Listeners<K, V> {
    private record Registration<K, V>(
            CacheEntryListenerConfiguration<K, V> config,
            CacheEntryListener<? super K, ? super V> listener,
            CacheEntryEventFilter<? super K, ? super V> filter) {}

    private final List<Registration<K, V>> registrations = new CopyOnWriteArrayList<>();
    private final String threadName;
    private ExecutorService async;

    Listeners(String threadName) {
        this.threadName = threadName;
    }

    void register(CacheEntryListenerConfiguration<K, V> c) {
        for (Registration<K, V> r : registrations) {
            if (r.config().equals(c)) {
                throw new IllegalArgumentException("this listener configuration is registered already");
            }
        }
        if (c.getCacheEntryListenerFactory() == null) {
            throw new IllegalArgumentException("a listener configuration needs a listener factory");
        }
        CacheEntryListener<? super K, ? super V> l =
                c.getCacheEntryListenerFactory().create();
        CacheEntryEventFilter<? super K, ? super V> f = c.getCacheEntryEventFilterFactory() == null
                ? null
                : c.getCacheEntryEventFilterFactory().create();
        registrations.add(new Registration<>(c, l, f));
    }

    void deregister(CacheEntryListenerConfiguration<K, V> c) {
        for (Registration<K, V> r : registrations) {
            if (r.config().equals(c)) {
                registrations.remove(r);
                closeQuietly(r);
            }
        }
    }

    /** A listener or filter that is Closeable is closed with its registration, as JSR-107 asks. */
    private static void closeQuietly(Registration<?, ?> r) {
        for (Object o : new Object[] {r.listener(), r.filter()}) {
            if (o instanceof java.io.Closeable c) {
                try {
                    c.close();
                } catch (java.io.IOException | RuntimeException e) {
                    // best effort
                }
            }
        }
    }

    /** Fires the events of one committed call. */
    void fire(List<JCacheEvent<K, V>> events) {
        if (events.isEmpty() || registrations.isEmpty()) {
            return;
        }
        CacheEntryListenerException failed = null;
        for (Registration<K, V> r : registrations) {
            List<JCacheEvent<K, V>> mine = new ArrayList<>();
            for (JCacheEvent<K, V> e : events) {
                if (wants(r.listener(), e.getEventType())) {
                    mine.add(r.config().isOldValueRequired() ? e : e.withoutOldValue());
                }
            }
            if (mine.isEmpty()) {
                continue;
            }
            if (r.config().isSynchronous()) {
                try {
                    deliver(r, mine);
                } catch (RuntimeException ex) {
                    failed = ex instanceof CacheEntryListenerException cele
                            ? cele
                            : new CacheEntryListenerException("a synchronous listener failed: " + ex, ex);
                }
            } else {
                try {
                    executor().execute(() -> deliver(r, mine));
                } catch (RejectedExecutionException closed) {
                    // the cache was closed meanwhile: its listeners are gone
                }
            }
        }
        if (failed != null) {
            throw failed;
        }
    }

    private static boolean wants(CacheEntryListener<?, ?> l, EventType t) {
        return switch (t) {
            case CREATED -> l instanceof CacheEntryCreatedListener;
            case UPDATED -> l instanceof CacheEntryUpdatedListener;
            case REMOVED -> l instanceof CacheEntryRemovedListener;
            case EXPIRED -> l instanceof CacheEntryExpiredListener;
        };
    }

    @SuppressWarnings("unchecked")
    private void deliver(Registration<K, V> r, List<JCacheEvent<K, V>> events) {
        List<javax.cache.event.CacheEntryEvent<? extends K, ? extends V>> passed = new ArrayList<>();
        for (JCacheEvent<K, V> e : events) {
            if (r.filter() == null || r.filter().evaluate(e)) {
                passed.add(e);
            }
        }
        if (passed.isEmpty()) {
            return;
        }
        EventType t = passed.get(0).getEventType();
        // one call per type, in order: events of one call are of one type, except putAll/invokeAll
        int from = 0;
        for (int i = 1; i <= passed.size(); i++) {
            if (i == passed.size() || passed.get(i).getEventType() != t) {
                List<javax.cache.event.CacheEntryEvent<? extends K, ? extends V>> run = passed.subList(from, i);
                Object l = r.listener();
                switch (t) {
                    case CREATED -> ((CacheEntryCreatedListener<K, V>) l).onCreated(run);
                    case UPDATED -> ((CacheEntryUpdatedListener<K, V>) l).onUpdated(run);
                    case REMOVED -> ((CacheEntryRemovedListener<K, V>) l).onRemoved(run);
                    case EXPIRED -> ((CacheEntryExpiredListener<K, V>) l).onExpired(run);
                }
                if (i < passed.size()) {
                    t = passed.get(i).getEventType();
                    from = i;
                }
            }
        }
    }

    private synchronized ExecutorService executor() {
        if (async == null) {
            async = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, threadName);
                t.setDaemon(true);
                return t;
            });
        }
        return async;
    }

    synchronized void close() {
        for (Registration<K, V> r : registrations) {
            closeQuietly(r);
        }
        registrations.clear();
        if (async != null) {
            async.shutdown();
        }
    }
}
