package io.shardq.broker.catalog;

import io.shardq.broker.internal.BackgroundService;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Keeps this instance's view of the catalog current. A trigger on {@code shardq.destination}
 * (V002) sends NOTIFY {@code shardq_catalog} with the destination's name for every insert,
 * update and delete, whoever makes it (this instance, another one, psql). The instance's
 * {@code Waker} receives it and calls {@link #onNotify}, which only records the name; this
 * service's thread then reads each named destination again and tells the {@link Listener},
 * which replaces or refreshes the in-memory state.
 *
 * <p>NOTIFY can be missed: while the LISTEN connection is down, nothing is queued for it. So
 * after every (re)connect ({@link #onListening}) and, as a slow fallback, every {@code
 * fallbackMillis}, everything is read again ({@link Listener#reloaded}).
 *
 * <p>Threading: one thread, {@code shardq-<instance>-catalog-1}; the callbacks run on it.
 */
public final class CatalogWatcher extends BackgroundService {
    public static final String CHANNEL = "shardq_catalog";

    /** Where changes go; called on the watcher's thread. */
    public interface Listener {
        /** The destination {@code name} changed: {@code fresh} is its new snapshot, or empty if dropped. */
        void changed(String name, Optional<DestinationInfo> fresh);

        /** Every destination, read again after a possible loss of notifications. */
        void reloaded(List<DestinationInfo> all);
    }

    private final Catalog catalog;
    private final Listener listener;
    private final long fallbackNanos;
    private final LongSupplier nanoClock;
    private final Set<String> pending = ConcurrentHashMap.newKeySet();
    private volatile boolean reloadAll;
    private long nextFullNanos;

    public CatalogWatcher(
            Catalog catalog, Listener listener, long fallbackMillis, LongSupplier nanoClock, String threadName) {
        super(threadName);
        this.catalog = catalog;
        this.listener = listener;
        this.fallbackNanos = TimeUnit.MILLISECONDS.toNanos(fallbackMillis);
        this.nanoClock = nanoClock;
        this.nextFullNanos = nanoClock.getAsLong() + fallbackNanos;
    }

    /** A NOTIFY on {@link #CHANNEL}; called on the Waker's thread, so it only records the name. */
    public void onNotify(String name) {
        pending.add(name);
        trigger();
    }

    /** The LISTEN connection was (re)opened: anything sent meanwhile was lost. */
    public void onListening() {
        reloadAll = true;
        trigger();
    }

    @Override
    protected long runOnce() {
        long now = nanoClock.getAsLong();
        if (reloadAll || now - nextFullNanos >= 0) {
            reloadAll = false;
            try {
                listener.reloaded(catalog.all());
            } catch (RuntimeException e) {
                reloadAll = true; // the next round tries again
                throw e;
            }
            nextFullNanos = now + fallbackNanos;
        }
        for (String name : List.copyOf(pending)) {
            pending.remove(name); // before reading: a NOTIFY arriving meanwhile queues it again
            try {
                listener.changed(name, catalog.reload(name));
            } catch (RuntimeException e) {
                pending.add(name);
                throw e;
            }
        }
        return Math.max(1, TimeUnit.NANOSECONDS.toMillis(nextFullNanos - nanoClock.getAsLong()));
    }
}
