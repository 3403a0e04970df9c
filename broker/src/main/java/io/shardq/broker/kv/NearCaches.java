package io.shardq.broker.kv;

import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.Query;
import io.shardq.broker.shard.BrokerSession;
import io.shardq.broker.shard.TransactionSynchronizations;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This instance's near caches, one per key/value cache (none when {@code shardq.kv.near-max-bytes}
 * is 0), and how writes invalidate them: locally after commit, on other instances by one {@code
 * pg_notify('shardq_kv', payload)} per transaction and cache, sent as the transaction's last
 * statement before COMMIT (NOTIFY is transactional: delivered on commit only). Not API.
 *
 * <p>Payload: {@code <cache id>:<base64 of the keys' 64-bit hashes>}, at most {@link #MAX_HASHES}
 * hashes each (under PostgreSQL's 8,000-byte payload limit); a transaction that wrote more keys
 * sends several, all from one statement, up to {@link #MAX_NOTIFIES} (10,240 keys), and beyond
 * that {@code <cache id>:*}, the whole cache. (One notification for more than 640 keys used to
 * empty other instances' near caches at every bulk load.) The NOTIFY is skipped when no other instance is alive, except for writes on an
 * application's connection: this instance cannot see when the application commits, so it relies
 * on its own NOTIFY, received through its LISTEN connection like everyone else's.
 *
 * <p>Notifications sent while the LISTEN connection was down are lost: {@link #onListening} (every
 * (re)connect) drops every near entry.
 */
public final class NearCaches {
    private static final Logger LOG = LoggerFactory.getLogger(NearCaches.class);
    public static final String CHANNEL = "shardq_kv";
    /** 640 hashes: 5,120 bytes, 6,828 in base64. */
    static final int MAX_HASHES = 640;
    /** Notifications one transaction sends per cache before it invalidates the whole cache instead. */
    static final int MAX_NOTIFIES = 16;

    private final long maxBytes;
    private final BooleanSupplier othersAlive;
    private final Map<Integer, NearCache> byId = new ConcurrentHashMap<>();
    /** Measurement hook (KvNotifyCostTest): false sends no NOTIFY at all. */
    volatile boolean notifying = true;
    /** No fill before this (System.nanoTime): until the other instances count this one as alive. */
    private volatile long fillsFromNanos = System.nanoTime();

    /**
     * @param maxBytes weight bound of each cache's near cache; 0 turns near caches off
     * @param othersAlive whether another instance is alive (one that might hold near entries)
     */
    public NearCaches(long maxBytes, BooleanSupplier othersAlive) {
        this.maxBytes = Math.max(0, maxBytes);
        this.othersAlive = othersAlive;
    }

    /**
     * No near cache fills for {@code graceMs} from now. Another instance skips the NOTIFY while it
     * counts no other instance alive, and it counts at its heartbeat: a fill before every instance
     * has counted this one could install a value whose invalidation is never sent. The broker
     * passes three heartbeat intervals.
     */
    public NearCaches fillsAfter(long graceMs) {
        this.fillsFromNanos = System.nanoTime() + graceMs * 1_000_000;
        return this;
    }

    /** The near cache of {@code cacheId}, or null when near caches are off. */
    NearCache of(int cacheId) {
        return maxBytes == 0
                ? null
                : byId.computeIfAbsent(
                        cacheId, id -> new NearCache(maxBytes, () -> System.nanoTime() - fillsFromNanos >= 0));
    }

    boolean mustNotify(boolean applicationConnection) {
        return notifying && (applicationConnection || othersAlive.getAsBoolean());
    }

    /** Drops entries locally (null hashes: all of the cache's). */
    void invalidate(int cacheId, long[] hashes) {
        NearCache n = byId.get(cacheId);
        if (n != null) {
            n.invalidate(hashes);
        }
    }

    void unsettle(int cacheId, long[] hashes) {
        NearCache n = of(cacheId);
        if (n != null) {
            n.unsettle(hashes);
        }
    }

    /** Sends the invalidation of {@code hashes} (null: the whole cache) in {@code c}'s transaction. */
    void send(Connection c, int cacheId, long[] hashes) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.KV_NOTIFY_INVALIDATIONS))) {
            ps.setString(1, CHANNEL);
            ps.setArray(2, c.createArrayOf("text", payloads(cacheId, hashes).toArray()));
            ps.executeQuery().close();
        }
    }

    /** The notifications of one transaction's writes to a cache: at most {@link #MAX_NOTIFIES}. */
    static java.util.List<String> payloads(int cacheId, long[] hashes) {
        if (hashes == null || hashes.length > MAX_HASHES * MAX_NOTIFIES) {
            return java.util.List.of(cacheId + ":*");
        }
        java.util.List<String> out = new java.util.ArrayList<>();
        for (int from = 0; from < hashes.length; from += MAX_HASHES) {
            int to = Math.min(hashes.length, from + MAX_HASHES);
            ByteBuffer b = ByteBuffer.allocate((to - from) * 8);
            for (int i = from; i < to; i++) {
                b.putLong(hashes[i]);
            }
            out.add(cacheId + ":" + Base64.getEncoder().encodeToString(b.array()));
        }
        return out;
    }

    /**
     * Records a write in {@code session}'s transaction, in the keys this instance keeps as the
     * transaction's resource (see {@link TransactionSynchronizations#resource}): at its first write
     * the transaction gets a before-commit action (one NOTIFY per cache written) and an after-commit
     * action (local invalidation, before {@code commit()} returns). The keys go with the transaction,
     * however it ends.
     */
    void written(BrokerSession session, boolean applicationConnection, int cacheId, long[] hashes) {
        TransactionSynchronizations sync = session.synchronizations();
        Map<Integer, Set<Long>> pending = sync.resource(this, () -> {
            Map<Integer, Set<Long>> fresh = new LinkedHashMap<>();
            sync.beforeCommit(c -> {
                if (mustNotify(applicationConnection)) {
                    for (Map.Entry<Integer, Set<Long>> e : fresh.entrySet()) {
                        send(c, e.getKey(), hashes(e.getValue()));
                    }
                }
            });
            sync.onCommit(() -> {
                for (Map.Entry<Integer, Set<Long>> e : fresh.entrySet()) {
                    invalidate(e.getKey(), hashes(e.getValue()));
                }
            });
            return fresh;
        });
        if (applicationConnection) {
            unsettle(cacheId, hashes);
        }
        Set<Long> keys = pending.computeIfAbsent(cacheId, id -> new LinkedHashSet<>());
        if (hashes == null || keys.contains(null)) {
            keys.clear();
            keys.add(null); // the whole cache
        } else if (keys.size() <= MAX_HASHES * MAX_NOTIFIES) {
            for (long h : hashes) {
                keys.add(h);
            }
        }
    }

    private static long[] hashes(Set<Long> keys) {
        if (keys.contains(null) || keys.size() > MAX_HASHES * MAX_NOTIFIES) {
            return null;
        }
        return keys.stream().mapToLong(Long::longValue).toArray();
    }

    /** The Waker's handler of {@link #CHANNEL}: on its thread, in memory only. */
    public void onNotify(String payload) {
        int colon = payload.indexOf(':');
        try {
            NearCache n = byId.get(Integer.parseInt(payload.substring(0, colon)));
            if (n == null) {
                return;
            }
            String rest = payload.substring(colon + 1);
            if (rest.equals("*")) {
                n.notified(null);
                return;
            }
            ByteBuffer b = ByteBuffer.wrap(Base64.getDecoder().decode(rest));
            long[] hashes = new long[b.remaining() / 8];
            for (int i = 0; i < hashes.length; i++) {
                hashes[i] = b.getLong();
            }
            n.notified(hashes);
        } catch (RuntimeException e) {
            LOG.debug("ignoring malformed cache invalidation {}", payload);
        }
    }

    /** After every LISTEN (re)connect: notifications may have been lost, so every entry goes. */
    public void onListening() {
        for (NearCache n : byId.values()) {
            n.notified(null);
        }
    }
}
