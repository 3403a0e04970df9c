package io.shardq.broker.kv;

import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What one {@link KvCache} view has to do with this instance's write-behind queue of its cache
 * ({@link WriteBehindQueue}): read accepted writes that are not committed yet, flush them before a
 * synchronous write, and encode writes for {@link KvWriteBehind}.
 *
 * <p>Invariants: only an unbound view on pooled connections ({@link KvBinding#pooled()}) reads the
 * queue or gets a write-behind view: a bound view reads its transaction's view of the table, and
 * its writes commit with that transaction. Every synchronous write, removal, clear and listing of
 * a view running on its own first flushes the queue, so a write accepted earlier never lands after
 * a later synchronous one. Puts are encoded and checked, all of them, before any is accepted.
 */
final class WriteBehindBridge<K, V> {
    private final StoredKvCache<K, V> view;
    private final KvCaches caches;
    private final KvBinding binding;

    WriteBehindBridge(StoredKvCache<K, V> view, KvCaches caches, KvBinding binding) {
        this.view = view;
        this.caches = caches;
        this.binding = binding;
    }

    /**
     * This instance's accepted write-behind write of {@code k}, or null: read by unbound views only
     * (a bound view reads its transaction's view of the table).
     */
    WriteBehindQueue.Pending pending(KvDefinition d, ByteKey k) {
        if (!binding.pooled()) {
            return null;
        }
        WriteBehindQueue q = caches.writeBehindIfAny(d.id());
        return q == null ? null : q.lookup(k);
    }

    /** A pending write's value if it is a put that has not expired; null otherwise. */
    byte[] live(WriteBehindQueue.Pending p) {
        if (p.value() == null
                || (p.expires() != null && p.expires() <= caches.clock().millis())) {
            return null;
        }
        return p.value();
    }

    /** Flushes this instance's write-behind queue of the cache first, unless bound to a transaction. */
    void flushQueue(KvDefinition d) {
        if (!binding.autocommit()) {
            return;
        }
        WriteBehindQueue q = caches.writeBehindIfAny(d.id());
        if (q != null && q.size() > 0) {
            q.flush();
        }
    }

    /** The write-behind view of {@link KvCache#writeBehind()}: {@code ILLEGAL_STATE} for a bound view. */
    KvWriteBehind<K, V> writeBehind() {
        if (!binding.pooled()) {
            throw new ShardQException(
                    ErrorKind.ILLEGAL_STATE,
                    "cache \"" + view.name()
                            + "\": write-behind is for writes outside a transaction; this view is bound"
                            + " to one (its writes commit with it)");
        }
        return new KvWriteBehind<>(view, caches.writeBehind(caches.definition(view.name())));
    }

    /** Encodes and checks puts for the write-behind queue (all before any is accepted). */
    Map<ByteKey, WriteBehindQueue.Pending> pendingPuts(Map<? extends K, ? extends V> entries, Duration ttl) {
        KvDefinition d = caches.definition(view.name());
        Long expires = view.expiresAt(d, ttl, caches.clock().millis());
        long bucket = expires == null ? 0L : d.bucket(expires);
        Map<ByteKey, WriteBehindQueue.Pending> out = new LinkedHashMap<>();
        for (Map.Entry<? extends K, ? extends V> e : entries.entrySet()) {
            out.put(
                    view.key(d, e.getKey()),
                    new WriteBehindQueue.Pending(view.value(d, e.getValue()), expires, bucket));
        }
        return out;
    }

    /** Encodes removals for the write-behind queue. */
    Map<ByteKey, WriteBehindQueue.Pending> pendingRemovals(Collection<? extends K> keys) {
        KvDefinition d = caches.definition(view.name());
        Map<ByteKey, WriteBehindQueue.Pending> out = new LinkedHashMap<>();
        for (K k : keys) {
            out.put(view.key(d, k), new WriteBehindQueue.Pending(null, null, 0L));
        }
        return out;
    }
}
