package io.shardq.metrics;

import io.shardq.broker.Broker;
import io.shardq.broker.CacheStats;
import io.shardq.broker.ShardQException;
import io.shardq.broker.kv.Codec;
import io.shardq.broker.kv.KvCache;
import java.time.Clock;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToDoubleFunction;

/**
 * What the meters and the MBeans read: the broker's in-memory figures (no SQL) and the {@link
 * Snapshots} of the figures that need SQL. Thread-safe.
 */
final class Figures {
    final Broker broker;
    final Snapshots snapshots;
    final Clock clock;
    /** Views of the key/value caches, for their local counters (no SQL but the definition's refresh). */
    private final Map<String, KvCache<byte[], byte[]>> views = new ConcurrentHashMap<>();

    Figures(Broker broker, Snapshots snapshots, Clock clock) {
        this.broker = broker;
        this.snapshots = snapshots;
        this.clock = clock;
    }

    /** A figure of this instance's counters of cache {@code name}; NaN when it is gone. */
    double kv(String name, ToDoubleFunction<CacheStats> figure) {
        try {
            KvCache<byte[], byte[]> view =
                    views.computeIfAbsent(name, n -> broker.cache(n, Codec.bytes(), Codec.bytes()));
            return figure.applyAsDouble(view.localStats());
        } catch (ShardQException e) {
            views.remove(name);
            return Double.NaN; // dropped since the snapshot: its meters go at the next refresh
        }
    }

    /** Forgets the views of caches not in {@code names}. */
    void retainCaches(Set<String> names) {
        views.keySet().retainAll(names);
    }

    /**
     * Since when (clock millis) a slice's truncation has been blocked by a lock, while this
     * instance is the maintenance leader (the only one that truncates); -1 when none is.
     */
    long retirementBlockedSince() {
        return broker.isMaintenanceLeader() ? broker.stats().retireBlockedSinceMillis() : -1;
    }

    /** How long the blocked slice has waited, 0 when none is blocked. */
    long retirementBlockedMillis() {
        long since = retirementBlockedSince();
        return since < 0 ? 0 : Math.max(0, clock.millis() - since);
    }
}
