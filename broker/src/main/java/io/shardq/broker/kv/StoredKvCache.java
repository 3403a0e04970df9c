package io.shardq.broker.kv;

import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.internal.SqlErrors;
import io.shardq.broker.shard.BrokerSession;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * The one implementation of {@link KvCache}: the API's encoding of keys and values and its
 * bounds, over a {@link KvBinding} (where each operation runs: on its own, in a session, on an
 * application's connection), {@link KvRows} (the statements and the lock order), {@link KvLoader}
 * (single-flight read-through loading) and {@link WriteBehindBridge} (this instance's write-behind
 * queue). Package-private: applications hold the interface.
 */
final class StoredKvCache<K, V> implements KvCache<K, V> {
    private final KvCaches caches;
    private final String name;
    private final Codec<K> keys;
    private final Codec<V> values;
    private final KvBinding binding;
    private final int maxBatchSize;
    private final KvCounters counters;
    private final KvLoader<K, V> loader;
    private final WriteBehindBridge<K, V> queue;

    StoredKvCache(KvCaches caches, String name, Codec<K> keys, Codec<V> values, KvBinding binding, int maxBatchSize) {
        this.caches = caches;
        this.name = name;
        this.keys = Objects.requireNonNull(keys, "keys");
        this.values = Objects.requireNonNull(values, "values");
        this.binding = binding;
        this.maxBatchSize = maxBatchSize;
        this.counters = caches.counters(name);
        this.loader = new KvLoader<>(this, caches, counters);
        this.queue = new WriteBehindBridge<>(this, caches, binding);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int maxBatchSize() {
        return maxBatchSize;
    }

    @Override
    public KvCache<K, V> withMaxBatchSize(int n) {
        if (n < 1 || n > 10_000) {
            throw new ShardQException(ErrorKind.INVALID_ARGUMENT, "maxBatchSize " + n + " is out of range 1..10000");
        }
        return new StoredKvCache<>(caches, name, keys, values, binding, n);
    }

    @Override
    public KvCache<K, V> in(BrokerSession session) {
        if (session.mode() != BrokerSession.Mode.TRANSACTED) {
            throw new ShardQException(
                    ErrorKind.ILLEGAL_STATE,
                    "cache \"" + name + "\" can join only a transacted session (this one is " + session.mode() + ")");
        }
        return new StoredKvCache<>(caches, name, keys, values, new KvBinding.InSession(session), maxBatchSize);
    }

    @Override
    public KvCache<K, V> on(Connection connection) {
        return new StoredKvCache<>(
                caches,
                name,
                keys,
                values,
                new KvBinding.OnConnection(Objects.requireNonNull(connection)),
                maxBatchSize);
    }

    // ---------------------------------------------------------------- reads

    @Override
    public V get(K key) {
        KvDefinition d = caches.definition(name);
        ByteKey k = key(d, key);
        NearCache near = near(d);
        WriteBehindQueue.Pending p = queue.pending(d, k);
        byte[] v;
        if (p != null) {
            v = queue.live(p);
        } else if (near == null) {
            v = selectOne(d, k);
        } else {
            v = near.get(k, caches.clock().millis());
            if (v != null) {
                counters.nearHits.increment();
            } else {
                counters.nearMisses.increment();
                long e0 = near.epoch();
                KvRows.Stored s = run(
                        d,
                        "reading",
                        false,
                        c -> KvRows.selectOne(c, d, k, caches.clock().millis()));
                if (s != null) {
                    near.fill(k, s.value(), s.expiresAt(), e0);
                    v = s.value();
                }
            }
        }
        if (v == null) {
            counters.misses.increment();
            return null;
        }
        counters.hits.increment();
        if (d.bounded()) {
            caches.touched(d, k);
        }
        return decode(v);
    }

    /** One key's stored value, or null ({@code kv_select_one}: a generic plan, no planning per call). */
    byte[] selectOne(KvDefinition d, ByteKey k) {
        KvRows.Stored s = run(
                d,
                "reading",
                false,
                c -> KvRows.selectOne(c, d, k, caches.clock().millis()));
        return s == null ? null : s.value();
    }
    /** This view's near cache: null in a bound view (it may see its own uncommitted writes) or when off. */
    private NearCache near(KvDefinition d) {
        return binding.pooled() ? caches.near().of(d.id()) : null;
    }

    /** The cache's catalog row as this instance knows it. */
    KvDefinition definition() {
        return caches.definition(name);
    }

    /** Test hook: the cache's id (its entry table is {@code shardq."kv_<id>"}). */
    int cacheId() {
        return caches.definition(name).id();
    }

    /** Test hook: this instance's near caches. */
    NearCaches nearCaches() {
        return caches.near();
    }

    /** Test hook: this cache's near cache in this instance (null when off). */
    NearCache nearCache() {
        return caches.near().of(caches.definition(name).id());
    }

    @Override
    public Map<K, V> getAll(Collection<? extends K> keys) {
        KvDefinition d = caches.definition(name);
        Map<ByteKey, K> wanted = new LinkedHashMap<>();
        for (K k : keys) {
            wanted.put(key(d, k), k);
        }
        if (wanted.isEmpty()) {
            return new LinkedHashMap<>();
        }
        long now = caches.clock().millis();
        Map<ByteKey, byte[]> found = new LinkedHashMap<>();
        NearCache near = near(d);
        List<ByteKey> all = new ArrayList<>();
        int fromQueue = 0;
        for (ByteKey k : wanted.keySet()) {
            WriteBehindQueue.Pending p = queue.pending(d, k);
            if (p != null) {
                byte[] v = queue.live(p);
                if (v != null) {
                    found.put(k, v);
                }
                fromQueue++;
                continue;
            }
            byte[] v = near == null ? null : near.get(k, now);
            if (v != null) {
                found.put(k, v);
            } else {
                all.add(k);
            }
        }
        if (near != null) {
            counters.nearHits.add(wanted.size() - fromQueue - all.size());
            counters.nearMisses.add(all.size());
        }
        long e0 = near == null ? 0 : near.epoch();
        run(d, "reading", false, c -> {
            if (all.isEmpty()) {
                return null; // every key from the near cache
            }
            KvRows.selectMany(c, d, all, maxBatchSize, now, (k, s) -> {
                found.put(k, s.value());
                if (near != null) {
                    near.fill(k, s.value(), s.expiresAt(), e0);
                }
            });
            return null;
        });
        Map<K, V> out = new LinkedHashMap<>();
        for (Map.Entry<ByteKey, K> e : wanted.entrySet()) {
            byte[] v = found.get(e.getKey());
            if (v != null) {
                out.put(e.getValue(), decode(v));
                if (d.bounded()) {
                    caches.touched(d, e.getKey());
                }
            }
        }
        counters.hits.add(out.size());
        counters.misses.add(wanted.size() - out.size());
        return out;
    }

    @Override
    public boolean containsKey(K key) {
        KvDefinition d = caches.definition(name);
        ByteKey k = key(d, key);
        WriteBehindQueue.Pending p = queue.pending(d, k);
        if (p != null) {
            return queue.live(p) != null;
        }
        long now = caches.clock().millis();
        return run(d, "reading", false, c -> KvRows.exists(c, d, k, now));
    }

    @Override
    public List<K> keys(K after, int limit) {
        if (limit < 1 || limit > 10_000) {
            throw new ShardQException(ErrorKind.INVALID_ARGUMENT, "limit " + limit + " is out of range 1..10000");
        }
        KvDefinition d = caches.definition(name);
        ByteKey from = after == null ? null : key(d, after);
        queue.flushQueue(d);
        long now = caches.clock().millis();
        List<byte[]> raw = run(d, "listing keys of", false, c -> KvRows.selectKeys(c, d, from, now, limit));
        List<K> out = new ArrayList<>(raw.size());
        for (byte[] b : raw) {
            try {
                out.add(keys.decode(b));
            } catch (RuntimeException e) {
                throw codecFailure("decode a stored key", keys, e);
            }
        }
        return out;
    }

    @Override
    public V get(K key, Function<? super K, ? extends V> loader) {
        V v = get(key);
        return v != null ? v : this.loader.load(binding, key, loader);
    }

    /** Test hook: this cache's loads in flight in this instance. */
    KvLoads loads() {
        return caches.loads(caches.definition(name).id());
    }

    // ---------------------------------------------------------------- writes

    @Override
    public void put(K key, V value) {
        put(key, value, null);
    }

    @Override
    public void put(K key, V value, Duration ttl) {
        write(KvRows.MODE_PUT, java.util.Collections.singletonMap(key, value), ttl);
    }

    @Override
    public void putAll(Map<? extends K, ? extends V> entries) {
        putAll(entries, null);
    }

    @Override
    public void putAll(Map<? extends K, ? extends V> entries, Duration ttl) {
        write(KvRows.MODE_PUT, entries, ttl);
    }

    @Override
    public boolean putIfAbsent(K key, V value) {
        return putIfAbsent(key, value, null);
    }

    @Override
    public boolean putIfAbsent(K key, V value, Duration ttl) {
        return write(KvRows.MODE_IF_ABSENT, java.util.Collections.singletonMap(key, value), ttl) == 1;
    }

    @Override
    public boolean replace(K key, V value) {
        return replace(key, value, null);
    }

    @Override
    public boolean replace(K key, V value, Duration ttl) {
        return write(KvRows.MODE_REPLACE, java.util.Collections.singletonMap(key, value), ttl) == 1;
    }

    @Override
    public boolean remove(K key) {
        return removeAll(java.util.Collections.singletonList(key)) == 1;
    }

    @Override
    public int removeAll(Collection<? extends K> keys) {
        KvDefinition d = caches.definition(name);
        Set<ByteKey> distinct = new java.util.LinkedHashSet<>();
        for (K k : keys) {
            distinct.add(key(d, k));
        }
        if (distinct.isEmpty()) {
            return 0;
        }
        queue.flushQueue(d);
        int removed = removeKeys(d, new ArrayList<>(distinct));
        counters.removals.add(removed);
        return removed;
    }

    /** Deletes {@code all} (distinct), one statement per chunk; returns how many were live. */
    int removeKeys(KvDefinition d, List<ByteKey> all) {
        long now = caches.clock().millis();
        return writing(
                d,
                "removing entries",
                all.size() > maxBatchSize,
                KvRows.hashes(all),
                c -> KvRows.deleteKeys(c, d, all, maxBatchSize, now));
    }

    @Override
    public void clear() {
        KvDefinition d = caches.definition(name);
        queue.flushQueue(d); // older than the clear: written, then truncated with everything else
        writing(d, "clearing", false, null, c -> {
            KvRows.clear(c, d);
            return null;
        });
    }

    @Override
    public KvWriteBehind<K, V> writeBehind() {
        return queue.writeBehind();
    }

    /** Encodes and checks puts for the write-behind queue (all before any is accepted). */
    Map<ByteKey, WriteBehindQueue.Pending> pendingPuts(Map<? extends K, ? extends V> entries, Duration ttl) {
        Map<ByteKey, WriteBehindQueue.Pending> out = queue.pendingPuts(entries, ttl);
        counters.puts.add(out.size());
        return out;
    }

    /** Encodes removals for the write-behind queue. */
    Map<ByteKey, WriteBehindQueue.Pending> pendingRemovals(Collection<? extends K> keys) {
        return queue.pendingRemovals(keys);
    }

    long now() {
        return caches.clock().millis();
    }

    @Override
    public void invalidate(K key) {
        KvDefinition d = caches.definition(name);
        caches.near()
                .invalidate(d.id(), new long[] {NearCache.hash64(key(d, key).bytes())});
    }

    @Override
    public void invalidateAll() {
        caches.near().invalidate(caches.definition(name).id(), null);
    }

    @Override
    public io.shardq.broker.CacheStats localStats() {
        return caches.localStats(name);
    }

    @Override
    public io.shardq.broker.CacheStats stats() {
        return caches.stats(name);
    }

    /** Encodes and checks everything first, then writes in ascending hash order; returns rows written. */
    private int write(int mode, Map<? extends K, ? extends V> entries, Duration ttl) {
        KvDefinition d = caches.definition(name);
        queue.flushQueue(d);
        long now = caches.clock().millis();
        Long expires = expiresAt(d, ttl, now);
        long bucket = expires == null ? 0L : d.bucket(expires);
        Map<ByteKey, KvRows.Row> rows = new LinkedHashMap<>();
        for (Map.Entry<? extends K, ? extends V> e : entries.entrySet()) {
            ByteKey k = key(d, e.getKey());
            rows.put(k, new KvRows.Row(k, value(d, e.getValue()), expires, bucket));
        }
        if (rows.isEmpty()) {
            return 0;
        }
        List<KvRows.Row> sorted = new ArrayList<>(rows.values());
        sorted.sort(KvRows.BY_HASH);
        caches.needBucket(d, bucket, now);
        if (mode == KvRows.MODE_PUT && binding.pooled() && sorted.size() <= KvPutGroup.MAX_REQUEST_ROWS) {
            caches.putGroup(d.id()).put(this, d, sorted, maxBatchSize); // group commit with concurrent puts
            counters.puts.add(sorted.size());
            return sorted.size();
        }
        if (mode == KvRows.MODE_PUT
                && caches.sharedSessionPuts()
                && binding instanceof KvBinding.InSession in
                && !in.session().onApplicationConnection()) {
            // held back until the session's commit, which may share a transaction with others'
            SessionPuts.of(in.session()).add(this, d, sorted, maxBatchSize);
            counters.puts.add(sorted.size());
            return sorted.size();
        }
        int written = writeSorted(d, mode, sorted, now);
        counters.puts.add(written);
        return written;
    }

    /** Writes {@code sorted} (ascending hash, distinct keys) where this view's operations run. */
    private int writeSorted(KvDefinition d, int mode, List<KvRows.Row> sorted, long now) {
        long bucket = sorted.get(0).bucket(); // one TTL for the whole call: one bucket
        List<ByteKey> keys = new ArrayList<>(sorted.size());
        for (KvRows.Row r : sorted) {
            keys.add(r.key());
        }
        // one chunk of puts is atomic by itself (one implicit transaction, see putChunk)
        boolean atomic = mode != KvRows.MODE_PUT || sorted.size() > maxBatchSize;
        return writing(d, "writing", atomic, KvRows.hashes(keys), c -> {
            if (!binding.autocommit() && bucket != 0) {
                // the partition may be newer than this transaction's first use of the cache
                KvRows.lockPartition(c, d, bucket);
            }
            int n = 0;
            for (int from = 0; from < sorted.size(); from += maxBatchSize) {
                n += KvRows.writeChunk(
                        c,
                        binding.autocommit(),
                        d,
                        mode,
                        sorted.subList(from, Math.min(sorted.size(), from + maxBatchSize)),
                        now);
            }
            return n;
        });
    }

    /**
     * Writes a session's held-back puts ({@link SessionPuts}) into its transaction, as {@link #putAll}
     * would have at once: grouped by bucket (a held-back batch may hold several TTLs' buckets).
     */
    void writeHeldBack(KvDefinition d, List<KvRows.Row> sorted) {
        Map<Long, List<KvRows.Row>> byBucket = new java.util.TreeMap<>();
        for (KvRows.Row r : sorted) {
            byBucket.computeIfAbsent(r.bucket(), b -> new ArrayList<>()).add(r);
        }
        long now = caches.clock().millis();
        for (List<KvRows.Row> rows : byBucket.values()) {
            writeSorted(d, KvRows.MODE_PUT, rows, now);
        }
    }

    KvCaches caches() {
        return caches;
    }

    /** This cache's view with no binding: what a held-back put's shared commit writes through. */
    StoredKvCache<K, V> unbound() {
        return new StoredKvCache<>(caches, name, keys, values, KvBinding.AUTOCOMMIT, maxBatchSize);
    }

    /**
     * Writes put rows (ascending hash order, distinct keys) on their own, in chunks of {@code
     * batch}: one transaction (a lone chunk without a NOTIFY is one round trip), near caches
     * invalidated as for any write. The put group's and write-behind's way in; an unbound view.
     */
    void putRows(KvDefinition d, List<KvRows.Row> sorted, int batch) {
        long now = caches.clock().millis();
        List<ByteKey> keys = new ArrayList<>(sorted.size());
        Set<Long> buckets = new java.util.HashSet<>();
        for (KvRows.Row r : sorted) {
            keys.add(r.key());
            if (buckets.add(r.bucket())) {
                // judged while the entry was live: the clock may have passed its expiry since it was stamped
                caches.needBucket(d, r.bucket(), r.expires() == null ? now : Math.min(now, r.expires() - 1));
            }
        }
        try {
            writing(d, "writing", sorted.size() > batch, KvRows.hashes(keys), c -> {
                for (int from = 0; from < sorted.size(); from += batch) {
                    KvRows.writeChunk(
                            c,
                            true,
                            d,
                            KvRows.MODE_PUT,
                            sorted.subList(from, Math.min(sorted.size(), from + batch)),
                            now);
                }
                return null;
            });
        } catch (ShardQException e) {
            if (!(e.getCause() instanceof SQLException se && isNoPartition(se)) || !allExpired(sorted)) {
                throw e;
            }
            // dead on arrival: their bucket ended and the leader dropped its partition while they were on
            // their way (stamped before the clock passed their expiry). What the put owes is what a put
            // of an expired entry leaves: no older value of these keys (see KvExpiryTest)
            removeKeys(d, keys);
        }
    }

    /** Every row has an expiry and the clock has passed it. */
    private boolean allExpired(List<KvRows.Row> rows) {
        long now = caches.clock().millis();
        for (KvRows.Row r : rows) {
            if (r.expires() == null || r.expires() > now) {
                return false;
            }
        }
        return true;
    }

    /** PostgreSQL found no partition for a row (its bucket's partition is gone). */
    private static boolean isNoPartition(SQLException e) {
        return "23514".equals(e.getSQLState()) && String.valueOf(e.getMessage()).contains("no partition");
    }

    Long expiresAt(KvDefinition d, Duration ttl, long now) {
        Long ms = ttl != null ? Long.valueOf(ttlMillis(ttl)) : d.defaultTtlMs();
        if (ms == null) {
            return null;
        }
        if (ms <= 0) {
            throw new ShardQException(
                    ErrorKind.INVALID_ARGUMENT, "cache \"" + name + "\": a TTL must be at least 1 ms, got " + ttl);
        }
        if (ms > d.maxTtlMs()) {
            throw new ShardQException(
                    ErrorKind.INVALID_ARGUMENT,
                    "cache \"" + name + "\": TTL " + Duration.ofMillis(ms) + " (" + ms + " ms) is above the cache's"
                            + " maximum TTL of " + Duration.ofMillis(d.maxTtlMs()) + " (max_ttl_ms "
                            + d.maxTtlMs() + ", fixed when the cache was created)");
        }
        return now + ms;
    }

    private static long ttlMillis(Duration ttl) {
        try {
            return ttl.toMillis();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    ByteKey key(KvDefinition d, K key) {
        if (key == null) {
            throw new ShardQException(ErrorKind.INVALID_ARGUMENT, "cache \"" + name + "\": a key must not be null");
        }
        byte[] b;
        try {
            b = keys.encode(key);
        } catch (RuntimeException e) {
            throw codecFailure("encode a key", keys, e);
        }
        if (b.length > d.maxKeyBytes()) {
            throw new ShardQException(
                    ErrorKind.INVALID_ARGUMENT,
                    "cache \"" + name + "\": a key of " + b.length + " bytes is longer than its limit of "
                            + d.maxKeyBytes() + " bytes (max_key_bytes)");
        }
        return ByteKey.of(b);
    }

    byte[] value(KvDefinition d, V value) {
        if (value == null) {
            throw new ShardQException(ErrorKind.INVALID_ARGUMENT, "cache \"" + name + "\": a value must not be null");
        }
        byte[] b;
        try {
            b = values.encode(value);
        } catch (RuntimeException e) {
            throw codecFailure("encode a value", values, e);
        }
        if (b.length > d.maxValueBytes()) {
            throw new ShardQException(
                    ErrorKind.INVALID_ARGUMENT,
                    "cache \"" + name + "\": a value of " + b.length + " bytes is longer than its limit of "
                            + d.maxValueBytes() + " bytes (max_value_bytes)");
        }
        return b;
    }

    V decode(byte[] v) {
        try {
            return values.decode(v);
        } catch (RuntimeException e) {
            throw codecFailure("decode a stored value", values, e);
        }
    }

    private ShardQException codecFailure(String what, Codec<?> codec, RuntimeException e) {
        return new ShardQException(
                ErrorKind.INVALID_ARGUMENT,
                "cache \"" + name + "\": cannot " + what + " (" + codec.describe() + " codec): " + e.getMessage(),
                e);
    }

    // ---------------------------------------------------------------- connections

    /** This view on {@code c}, on its own (the single-flight loader's connection, which holds the load lock). */
    StoredKvCache<K, V> lentTo(Connection c) {
        return new StoredKvCache<>(caches, name, keys, values, new KvBinding.Own(c), maxBatchSize);
    }

    /** Runs a write of the keys {@code hashes} (null: the whole cache) as the binding requires (see {@code KvBinding}). */
    private <R> R writing(KvDefinition d, String what, boolean atomic, long[] hashes, KvBinding.Work<R> work) {
        try {
            return binding.writing(caches, d.id(), atomic, hashes, work);
        } catch (SQLException e) {
            throw translate(e, what, d);
        }
    }

    /**
     * Runs {@code work} where this view's operations run. Unbound, on a pooled connection: in
     * autocommit, or in one transaction when {@code atomic} (a batch of several chunks).
     */
    private <R> R run(KvDefinition d, String what, boolean atomic, KvBinding.Work<R> work) {
        try {
            return binding.run(caches, atomic, work);
        } catch (SQLException e) {
            throw translate(e, what, d);
        }
    }

    ShardQException translate(SQLException e, String what, KvDefinition d) {
        String state = e.getSQLState();
        if ("42P01".equals(state)) {
            caches.changed(name);
            return new ShardQException(
                    ErrorKind.UNKNOWN_CACHE, "cache \"" + name + "\" does not exist (it was dropped)", e);
        }
        if (isNoPartition(e)) {
            caches.partitionMissing(d.id());
            return new ShardQException(
                    ErrorKind.ILLEGAL_STATE,
                    "cache \"" + name + "\" has no partition for entries expiring at this time (now "
                            + Instant.ofEpochMilli(caches.clock().millis()) + ", buckets of " + d.bucketMs()
                            + " ms): it was dropped as ended, by a maintenance leader whose clock is ahead of this"
                            + " instance's? Nothing was written; the next write makes the partition again",
                    e);
        }
        return SqlErrors.translate(e, what + " cache " + name);
    }
}
