package io.shardq.broker.kv;

import io.shardq.broker.CacheStats;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.catalog.Names;
import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.Query;
import io.shardq.broker.internal.SqlErrors;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * The key/value caches as one instance sees them: their catalog rows (read on first use and again
 * after {@link #REFRESH_NANOS}, or at once when this instance changed or dropped one), this
 * instance's counters per cache, and the keys its reads served since the last touch flush. Not
 * API: {@link io.shardq.broker.Broker#cache} hands out {@link KvCache}s made here.
 *
 * <p><b>Touches.</b> A read records the keys it served in memory (bounded caches only; an
 * unbounded cache never evicts, so nothing reads {@code touched_at}); {@link #flushTouches}
 * writes them set-based, one UPDATE per cache and chunk, and the UPDATE skips rows touched within
 * the touch interval, so a hot key costs one row update per interval, not one per read.
 */
public final class KvCaches {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(KvCaches.class);
    /** How long a catalog row is trusted before it is read again (another instance may alter it). */
    static final long REFRESH_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** Keys remembered per cache between flushes; beyond it reads stop recording (eviction is approximate). */
    static final int MAX_TOUCHED = 100_000;

    private final DataSource dataSource;
    private final Clock clock;
    private final long touchIntervalMs;
    private final int defaultBatch;
    private final Runnable partitionMissing;
    private final Map<String, Loaded> definitions = new ConcurrentHashMap<>();
    private final Map<String, KvCounters> counters = new ConcurrentHashMap<>();
    private final Map<Integer, Set<ByteKey>> touched = new ConcurrentHashMap<>();

    private record Loaded(KvDefinition definition, long atNanos) {}

    private volatile NearCaches near = new NearCaches(0, () -> false);
    private volatile long loadTimeoutMs = 30_000;
    /** A transacted session's plain puts are held back to its commit, which may then share a transaction. */
    private volatile boolean sharedSessionPuts = true;

    private final Map<Integer, KvLoads> loads = new ConcurrentHashMap<>();
    private final Map<Integer, KvPutGroup[]> putGroups = new ConcurrentHashMap<>();
    /** Per cache, the buckets this instance knows have a partition (made ahead, or asked for). */
    private final Map<Integer, Set<Long>> buckets = new ConcurrentHashMap<>();

    private final Map<Integer, WriteBehindQueue> writeBehind = new ConcurrentHashMap<>();
    private volatile int writeBehindMaxPending = 10_000;
    private volatile long writeBehindBlockMs = 30_000;
    private volatile Runnable writeBehindFull = () -> {};
    /**
     * Put groups per cache that may write at once: one per core, at least two (measured with 20
     * writer threads on 2 cores: one group left a core idle while it waited for its commit).
     */
    static final int PUT_GROUPS = Math.max(2, Runtime.getRuntime().availableProcessors());

    /**
     * @param clock the clock that decides expiry (tests set it)
     * @param partitionMissing told when a write found no partition for its bucket (wakes the leader)
     */
    public KvCaches(
            DataSource dataSource, Clock clock, long touchIntervalMs, int defaultBatch, Runnable partitionMissing) {
        this.dataSource = dataSource;
        this.clock = clock;
        this.touchIntervalMs = touchIntervalMs;
        this.defaultBatch = Math.max(1, defaultBatch);
        this.partitionMissing = partitionMissing;
    }

    /** A view of cache {@code name}; {@code UNKNOWN_CACHE} naming it when it does not exist. */
    public <K, V> KvCache<K, V> open(String name, Codec<K> keys, Codec<V> values) {
        definition(Names.checkCache(name));
        return new StoredKvCache<>(this, name, keys, values, KvBinding.AUTOCOMMIT, defaultBatch);
    }

    /** Sets the near caches (the broker wires their NOTIFY handler to its LISTEN connection). */
    public KvCaches near(NearCaches near) {
        this.near = near;
        return this;
    }

    NearCaches near() {
        return near;
    }

    /** Sets whether a transacted session's plain puts wait for its commit to share it ({@link SessionPuts}). */
    public KvCaches sharedSessionPuts(boolean on) {
        this.sharedSessionPuts = on;
        return this;
    }

    boolean sharedSessionPuts() {
        return sharedSessionPuts;
    }

    /** Sets how long a read-through load may take and be waited for. */
    public KvCaches loadTimeoutMs(long ms) {
        this.loadTimeoutMs = Math.max(1, ms);
        return this;
    }

    long loadTimeoutMs() {
        return loadTimeoutMs;
    }

    /** The loads in flight of cache {@code id} in this instance. */
    KvLoads loads(int id) {
        return loads.computeIfAbsent(id, i -> new KvLoads());
    }

    /**
     * The group commit this thread's puts of cache {@code id} join in this instance (threads are
     * spread over {@link #PUT_GROUPS} groups by id, so that groups also write in parallel).
     */
    KvPutGroup putGroup(int id) {
        KvPutGroup[] g = putGroups.computeIfAbsent(id, i -> {
            KvPutGroup[] a = new KvPutGroup[PUT_GROUPS];
            for (int j = 0; j < a.length; j++) {
                a[j] = new KvPutGroup(defaultBatch);
            }
            return a;
        });
        return g[(int) (Thread.currentThread().getId() % g.length)];
    }

    /**
     * Sets the write-behind queues' bound (keys per cache), how long a writer waits for room, and
     * what wakes the flusher.
     */
    public KvCaches writeBehind(int maxPending, long blockMs, Runnable full) {
        this.writeBehindMaxPending = Math.max(1, maxPending);
        this.writeBehindBlockMs = Math.max(0, blockMs);
        this.writeBehindFull = full;
        return this;
    }

    /** Cache {@code d}'s write-behind queue in this instance, made on first use. */
    WriteBehindQueue writeBehind(KvDefinition d) {
        return writeBehind.computeIfAbsent(
                d.id(),
                id -> new WriteBehindQueue(
                        new StoredKvCache<>(
                                this, d.name(), Codec.bytes(), Codec.bytes(), KvBinding.AUTOCOMMIT, defaultBatch),
                        writeBehindMaxPending,
                        writeBehindBlockMs,
                        () -> writeBehindFull.run()));
    }

    /** Cache {@code id}'s write-behind queue, or null when nothing in this instance used one. */
    WriteBehindQueue writeBehindIfAny(int id) {
        return writeBehind.isEmpty() ? null : writeBehind.get(id);
    }

    /**
     * Flushes every write-behind queue holding writes; returns how many failed (each keeps its
     * writes and records why). The flusher's round.
     */
    public int flushWriteBehind() {
        int failed = 0;
        for (WriteBehindQueue q : writeBehind.values()) {
            if (q.size() == 0) {
                continue;
            }
            try {
                q.flush();
            } catch (RuntimeException e) {
                failed++;
                LOG.warn(
                        "cache \"{}\": write-behind flush failed ({} writes kept, retried): {}",
                        q.name(),
                        q.size(),
                        e.getMessage());
            }
        }
        return failed;
    }

    /**
     * At a clean stop: flushes every queue (a few tries), then closes them; writes that still
     * could not be committed are logged at ERROR with their number: they are lost.
     */
    public void closeWriteBehind() {
        for (int attempt = 0; attempt < 3 && flushWriteBehind() > 0; attempt++) {
            // tried again at once: a stop does not wait for back-off
        }
        for (WriteBehindQueue q : writeBehind.values()) {
            int lost = q.close();
            if (lost > 0) {
                LOG.error(
                        "cache \"{}\": {} accepted write-behind writes could not be committed before the instance"
                                + " stopped and are lost: {}",
                        q.name(),
                        lost,
                        q.lastError());
            }
        }
    }

    DataSource dataSource() {
        return dataSource;
    }

    public Clock clock() {
        return clock;
    }

    KvDefinition definition(String name) {
        Loaded l = definitions.get(name);
        if (l != null && System.nanoTime() - l.atNanos() < REFRESH_NANOS) {
            return l.definition();
        }
        KvDefinition d = load(name)
                .orElseThrow(
                        () -> new ShardQException(ErrorKind.UNKNOWN_CACHE, "cache \"" + name + "\" does not exist"));
        definitions.put(name, new Loaded(d, System.nanoTime()));
        return d;
    }

    /** Reads the cache's row again on next use (this instance altered or dropped it). */
    public void changed(String name) {
        definitions.remove(name);
    }

    /** A write found no partition for its bucket: forget what this instance knew, wake the leader. */
    void partitionMissing(int id) {
        buckets.remove(id);
        partitionMissing.run();
    }

    /**
     * Makes sure bucket {@code b} of cache {@code d} has a partition before an entry is written to
     * it: known to this instance, nothing to do; else {@code shardq.kv_need_bucket} on a pooled
     * connection of its own (a short DDL transaction, never the caller's), once per bucket and
     * instance. Bucket 0, the forever partition, always exists. {@code liveAtMs} is a moment, by
     * this instance's clock, at which an entry of the bucket was live: when it was stamped, or
     * just before it expired if the clock has passed that since (a put group's or write-behind's
     * row written after its bucket ended still needs the partition: it replaces the key's old
     * value). The database refuses a bucket that ended before that moment or begins beyond the
     * max TTL after it.
     */
    void needBucket(KvDefinition d, long b, long liveAtMs) {
        if (b == 0) {
            return;
        }
        Set<Long> known = buckets.computeIfAbsent(d.id(), id -> ConcurrentHashMap.newKeySet());
        if (known.contains(b)) {
            return;
        }
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.KV_NEED_BUCKET))) {
            ps.setInt(1, d.id());
            ps.setLong(2, b);
            ps.setLong(3, liveAtMs);
            ps.executeQuery().close();
        } catch (SQLException e) {
            if ("42704".equals(e.getSQLState())) {
                changed(d.name());
                throw new ShardQException(
                        ErrorKind.UNKNOWN_CACHE, "cache \"" + d.name() + "\" does not exist (it was dropped)", e);
            }
            if ("22023".equals(e.getSQLState())) {
                throw new ShardQException(
                        ErrorKind.ILLEGAL_STATE,
                        "cache \"" + d.name() + "\": "
                                + SqlErrors.translate(e, "making a partition").getMessage(),
                        e);
            }
            throw SqlErrors.translate(e, "making a partition of cache " + d.name());
        }
        if (known.size() > 64) { // ended buckets are dropped by the leader and never written again
            long now = clock.millis();
            known.removeIf(x -> x * d.bucketMs() < now);
        }
        known.add(b);
    }

    public KvCounters counters(String name) {
        return counters.computeIfAbsent(name, n -> new KvCounters());
    }

    /** This instance's counters with the catalog's exact figures ({@code shardq.cache_stats}). */
    public CacheStats stats(String name) {
        Names.checkCache(name);
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.ADMIN_SELECT_CACHE_STATS))) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return snapshot(name, rs.getLong(4), rs.getLong(5), rs.getLong(1), rs.getLong(2), rs.getLong(3));
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "reading the stats of cache " + name);
        }
    }

    /** This instance's counters only, without a database read (catalog figures -1). */
    CacheStats localStats(String name) {
        return snapshot(name, -1, -1, -1, -1, -1);
    }

    private CacheStats snapshot(
            String name, long evictions, long expirations, long entries, long bytes, long expiredUnreclaimed) {
        WriteBehindQueue q = writeBehind.get(definition(name).id());
        return counters(name)
                .snapshot(
                        name,
                        evictions,
                        expirations,
                        entries,
                        bytes,
                        expiredUnreclaimed,
                        q == null ? 0 : q.size(),
                        q == null ? 0 : q.failures());
    }

    void touched(KvDefinition d, ByteKey key) {
        Set<ByteKey> keys = touched.computeIfAbsent(d.id(), id -> ConcurrentHashMap.newKeySet());
        if (keys.size() < MAX_TOUCHED) {
            keys.add(key);
        }
    }

    /**
     * Writes the recorded touches: {@code touched_at} = now for each key served since the last
     * flush and not touched within the touch interval. Returns the rows updated.
     */
    public int flushTouches() throws SQLException {
        int updated = 0;
        long now = clock.millis();
        for (Integer id : List.copyOf(touched.keySet())) {
            Set<ByteKey> keys = touched.remove(id);
            if (keys == null || keys.isEmpty()) {
                continue;
            }
            List<ByteKey> all = new ArrayList<>(keys);
            try (Connection c = dataSource.getConnection();
                    PreparedStatement ps = c.prepareStatement(Queries.withKv(Query.KV_TOUCH_MANY, id))) {
                for (int from = 0; from < all.size(); from += 1000) {
                    List<ByteKey> chunk = all.subList(from, Math.min(all.size(), from + 1000));
                    ps.setLong(1, now);
                    ps.setArray(2, c.createArrayOf("bytea", KvRows.bytes(chunk)));
                    ps.setLong(3, now - touchIntervalMs);
                    updated += ps.executeUpdate();
                }
            } catch (SQLException e) {
                if (!"42P01".equals(e.getSQLState())) { // a dropped cache has nothing to touch
                    throw e;
                }
            }
        }
        return updated;
    }

    /** Every cache's catalog row, by id. */
    public List<KvDefinition> all() throws SQLException {
        List<KvDefinition> out = new ArrayList<>();
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.KV_CACHE_SELECT_ALL));
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(KvDefinition.read(rs));
            }
        }
        return out;
    }

    private Optional<KvDefinition> load(String name) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.KV_CACHE_SELECT_BY_NAME))) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(KvDefinition.read(rs)) : Optional.empty();
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "reading cache " + name);
        }
    }
}
