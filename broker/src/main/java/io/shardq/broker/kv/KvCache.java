package io.shardq.broker.kv;

import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.SqlErrors;
import io.shardq.broker.shard.BrokerSession;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * A named key/value cache stored in PostgreSQL, shared by every instance, with per-entry TTL.
 * Obtained from {@link io.shardq.broker.Broker#cache}; thread-safe (each operation borrows a
 * pooled connection), except a view bound to a session or a connection, which is as
 * single-threaded as what it is bound to.
 *
 * <p><b>Transactions.</b> This view runs each operation on its own: one autocommit statement, or
 * one transaction when a batch is split into chunks. {@link #in(BrokerSession)} and {@link
 * #on(Connection)} return views whose operations run in that session's or connection's
 * transaction: they commit and roll back with its messages and the application's own SQL. A
 * failed statement inside a bound transaction aborts that transaction (PostgreSQL's rule): roll
 * it back.
 *
 * <p><b>One key, one row.</b> Every write takes a transaction-level advisory lock per key (in
 * ascending hash order, so two batches never deadlock) before it deletes the key's old row and
 * inserts the new one (named queries {@code kv_lock_keys}, {@code kv_delete_many}, {@code
 * kv_insert_many}). A bound transaction holds those locks until it
 * ends: another writer of the same key waits for it.
 *
 * <p><b>Expiry.</b> Times are this instance's clock: an entry put at {@code t} with TTL {@code d}
 * is returned up to {@code t + d} (exclusive) and never after, whether or not the maintenance
 * leader has reclaimed its partition yet.
 *
 * <p><b>Input.</b> Keys and values are encoded, and checked against the cache's {@code
 * max_key_bytes} and {@code max_value_bytes}, before anything is written: a batch with one bad
 * entry writes none. Null keys and values are refused.
 */
public final class KvCache<K, V> {
    static final int MODE_PUT = 0;
    static final int MODE_IF_ABSENT = 1;
    static final int MODE_REPLACE = 2;
    /** Rows in ascending key-hash order: the order writers take their advisory locks in. */
    static final Comparator<Row> BY_HASH = Comparator.comparingInt(r -> r.key().hash());

    /**
     * Where operations run: on their own, or in a session's or connection's transaction. {@code
     * lent}: on their own, but on this pooled connection rather than one borrowed per operation
     * (the single-flight loader's, which holds the load lock).
     */
    record Binding(BrokerSession session, Connection connection, Connection lent) {
        static final Binding AUTOCOMMIT = new Binding(null, null, null);

        boolean autocommit() {
            return session == null && connection == null;
        }
    }

    private final KvCaches caches;
    private final String name;
    private final Codec<K> keys;
    private final Codec<V> values;
    private final Binding binding;
    private final int maxBatchSize;
    private final KvCounters counters;

    KvCache(KvCaches caches, String name, Codec<K> keys, Codec<V> values, Binding binding, int maxBatchSize) {
        this.caches = caches;
        this.name = name;
        this.keys = Objects.requireNonNull(keys, "keys");
        this.values = Objects.requireNonNull(values, "values");
        this.binding = binding;
        this.maxBatchSize = maxBatchSize;
        this.counters = caches.counters(name);
    }

    public String name() {
        return name;
    }

    /** Entries per statement of {@link #getAll}, {@link #putAll} and {@link #removeAll}. */
    public int maxBatchSize() {
        return maxBatchSize;
    }

    /** This view with another batch size (1..10,000). */
    public KvCache<K, V> withMaxBatchSize(int n) {
        if (n < 1 || n > 10_000) {
            throw new ShardQException(ErrorKind.INVALID_ARGUMENT, "maxBatchSize " + n + " is out of range 1..10000");
        }
        return new KvCache<>(caches, name, keys, values, binding, n);
    }

    /**
     * A view whose operations run in {@code session}'s transaction (a TRANSACTED session, on the
     * connection {@link BrokerSession#connection()} shares): {@code session.commit()} commits them
     * with the session's messages, {@code rollback()} discards them.
     */
    public KvCache<K, V> in(BrokerSession session) {
        if (session.mode() != BrokerSession.Mode.TRANSACTED) {
            throw new ShardQException(
                    ErrorKind.ILLEGAL_STATE,
                    "cache \"" + name + "\" can join only a transacted session (this one is " + session.mode() + ")");
        }
        return new KvCache<>(caches, name, keys, values, new Binding(session, null, null), maxBatchSize);
    }

    /**
     * A view whose operations run on {@code connection}, in whatever transaction the application
     * has open there; the application commits or rolls back. With autocommit on, each statement
     * commits on its own.
     */
    public KvCache<K, V> on(Connection connection) {
        return new KvCache<>(
                caches, name, keys, values, new Binding(null, Objects.requireNonNull(connection), null), maxBatchSize);
    }

    // ---------------------------------------------------------------- reads

    /**
     * The live value of {@code key}, or null. Outside a transaction, from this instance's near cache
     * when it holds the key (see {@link #invalidate}); in a bound view, always from the database.
     */
    public V get(K key) {
        KvDefinition d = caches.definition(name);
        ByteKey k = key(d, key);
        NearCache near = near(d);
        WriteBehindQueue.Pending p = pending(d, k);
        byte[] v;
        if (p != null) {
            v = live(p);
        } else if (near == null) {
            v = selectOne(d, k);
        } else {
            v = near.get(k, caches.clock().millis());
            if (v != null) {
                counters.nearHits.increment();
            } else {
                counters.nearMisses.increment();
                long e0 = near.epoch();
                Stored s = run(d, "reading", false, c -> selectOne(c, d, k));
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

    /**
     * This instance's accepted write-behind write of {@code k}, or null: read by unbound views only
     * (a bound view reads its transaction's view of the table).
     */
    private WriteBehindQueue.Pending pending(KvDefinition d, ByteKey k) {
        if (!binding.autocommit() || binding.lent() != null) {
            return null;
        }
        WriteBehindQueue q = caches.writeBehindIfAny(d.id());
        return q == null ? null : q.lookup(k);
    }

    /** A pending write's value if it is a put that has not expired; null otherwise. */
    private byte[] live(WriteBehindQueue.Pending p) {
        if (p.value() == null
                || (p.expires() != null && p.expires() <= caches.clock().millis())) {
            return null;
        }
        return p.value();
    }

    /** A stored value and its expiry (epoch ms; {@code Long.MAX_VALUE}: none). */
    record Stored(byte[] value, long expiresAt) {}

    /** One key's stored value, or null ({@code kv_select_one}: a generic plan, no planning per call). */
    private byte[] selectOne(KvDefinition d, ByteKey k) {
        Stored s = run(d, "reading", false, c -> selectOne(c, d, k));
        return s == null ? null : s.value();
    }

    private Stored selectOne(Connection c, KvDefinition d, ByteKey k) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(Queries.withKv("kv_select_one", d.id()))) {
            ps.setBytes(1, k.bytes());
            ps.setLong(2, caches.clock().millis());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? new Stored(rs.getBytes(1), expiresAt(rs, 2)) : null;
            }
        }
    }

    private static long expiresAt(ResultSet rs, int column) throws SQLException {
        long ms = rs.getLong(column);
        return rs.wasNull() ? Long.MAX_VALUE : ms;
    }

    /** This view's near cache: null in a bound view (it may see its own uncommitted writes) or when off. */
    private NearCache near(KvDefinition d) {
        return binding.autocommit() && binding.lent() == null ? caches.near().of(d.id()) : null;
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

    /** The live entries among {@code keys} (absent keys are left out), one statement per chunk. */
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
            WriteBehindQueue.Pending p = pending(d, k);
            if (p != null) {
                byte[] v = live(p);
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
            try (PreparedStatement ps = c.prepareStatement(Queries.withKv("kv_select_many", d.id()))) {
                for (int from = 0; from < all.size(); from += maxBatchSize) {
                    ps.setArray(1, c.createArrayOf("bytea", bytes(chunk(all, from))));
                    ps.setLong(2, now);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            ByteKey k = ByteKey.of(rs.getBytes(1));
                            found.put(k, rs.getBytes(2));
                            if (near != null) {
                                near.fill(k, rs.getBytes(2), expiresAt(rs, 3), e0);
                            }
                        }
                    }
                }
            }
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

    /** True when {@code key} has a live entry (not counted as a hit or miss). */
    public boolean containsKey(K key) {
        KvDefinition d = caches.definition(name);
        ByteKey k = key(d, key);
        WriteBehindQueue.Pending p = pending(d, k);
        if (p != null) {
            return live(p) != null;
        }
        long now = caches.clock().millis();
        return run(d, "reading", false, c -> {
            try (PreparedStatement ps = c.prepareStatement(Queries.withKv("kv_select_exists", d.id()))) {
                ps.setBytes(1, k.bytes());
                ps.setLong(2, now);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getBoolean(1);
                }
            }
        });
    }

    /**
     * A page of live keys in the order of their encoded bytes (unsigned): at most {@code limit}
     * keys after {@code after} (null: from the first). Page on by passing the last key returned;
     * an empty list is the end. Each page is one statement that merges the partitions' primary key
     * indexes in key order and stops at the limit, so a listing costs a read of every live key,
     * never a sort: for callers that must visit every entry (JCache's iterator), not for the hot
     * path. Not a snapshot: keys written or removed between pages may or may not be listed. An
     * unbound view first flushes this instance's write-behind queue of the cache, so its accepted
     * writes are listed.
     */
    public List<K> keys(K after, int limit) {
        if (limit < 1 || limit > 10_000) {
            throw new ShardQException(ErrorKind.INVALID_ARGUMENT, "limit " + limit + " is out of range 1..10000");
        }
        KvDefinition d = caches.definition(name);
        ByteKey from = after == null ? null : key(d, after);
        flushQueue(d);
        long now = caches.clock().millis();
        List<byte[]> raw = run(d, "listing keys of", false, c -> {
            List<byte[]> out = new ArrayList<>();
            String query = from == null ? "kv_select_keys_first" : "kv_select_keys_after";
            try (PreparedStatement ps = c.prepareStatement(Queries.withKv(query, d.id()))) {
                int i = 1;
                if (from != null) {
                    ps.setBytes(i++, from.bytes());
                }
                ps.setLong(i++, now);
                ps.setInt(i, limit);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(rs.getBytes(1));
                    }
                }
            }
            return out;
        });
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

    /**
     * Read-through: the live value of {@code key}; on a miss {@code loader} is called and its
     * value stored with the default TTL unless another writer stored one first (then that one is
     * returned). A null from the loader is returned and not stored; an exception from it is
     * passed on and nothing is stored, so the next call tries again.
     *
     * <p><b>Single-flight.</b> Outside a transaction, concurrent callers of a missing key share one
     * loader call: in this JVM they wait on the first caller's load; across instances the loading
     * one holds a session-level advisory lock on (cache, key hash) and the others wait for it
     * (up to {@code shardq.kv.load-timeout-ms}), then read what it stored, or get its error as a
     * {@link KvLoadException}. A loader that runs longer than the load timeout is a failure: its
     * value is not stored. In a bound view every caller that misses loads (no single-flight).
     */
    public V get(K key, Function<? super K, ? extends V> loader) {
        V v = get(key);
        return v != null ? v : load(key, loader);
    }

    private V load(K key, Function<? super K, ? extends V> loader) {
        if (!binding.autocommit()) {
            KvDefinition d = caches.definition(name);
            V loaded;
            try {
                loaded = callLoader(key, loader, Long.MAX_VALUE, null);
            } catch (SQLException e) {
                throw translate(e, "loading a key of", d); // not thrown: nothing is recorded
            }
            if (loaded == null || putIfAbsent(key, loaded)) {
                return loaded;
            }
            byte[] stored = selectOne(d, key(d, key));
            return stored == null ? loaded : decode(stored);
        }
        KvDefinition d = caches.definition(name);
        ByteKey k = key(d, key);
        long timeout = caches.loadTimeoutMs();
        // a waiter's backstop: the leader waits for the lock, then runs the loader, each bounded
        byte[] v = caches.loads(d.id()).load(name, k, () -> loadAcross(d, k, key, loader), 2 * timeout + 1000);
        return v == null ? null : decode(v);
    }

    /**
     * The leader's load, on one pooled connection: take the key's load lock, or wait for the
     * instance holding it and read what it stored (or the failure it recorded); with the lock,
     * read the key again (another instance may have just stored it), else call the loader, store
     * its value (autocommit, on this connection), and unlock.
     */
    private byte[] loadAcross(KvDefinition d, ByteKey k, K key, Function<? super K, ? extends V> loader) {
        long timeout = caches.loadTimeoutMs();
        try (Connection c = caches.dataSource().getConnection()) {
            while (true) {
                boolean got;
                java.sql.Timestamp tried;
                try (PreparedStatement ps = c.prepareStatement(Queries.get("kv_load_try_lock"))) {
                    ps.setInt(1, d.id());
                    ps.setInt(2, k.hash());
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        got = rs.getBoolean(1);
                        tried = rs.getTimestamp(2);
                    }
                }
                if (got) {
                    try {
                        return loadLocked(c, d, k, key, loader, timeout);
                    } finally {
                        loadLock(c, d, k, "kv_load_unlock");
                    }
                }
                waitForLoad(c, d, k, timeout);
                Stored s = selectOne(c, d, k);
                if (s != null) {
                    return s.value();
                }
                try (PreparedStatement ps = c.prepareStatement(Queries.get("kv_load_failure_select"))) {
                    ps.setInt(1, d.id());
                    ps.setInt(2, k.hash());
                    ps.setBytes(3, k.bytes());
                    ps.setTimestamp(4, tried);
                    try (ResultSet rs = ps.executeQuery()) {
                        if (rs.next()) {
                            throw new KvLoadException(name, k.hash(), rs.getString(1), false);
                        }
                    }
                }
                // the holder's loader gave null, or it held the lock for something else: try again
            }
        } catch (SQLException e) {
            throw translate(e, "loading a key of", d);
        }
    }

    private byte[] loadLocked(
            Connection c, KvDefinition d, ByteKey k, K key, Function<? super K, ? extends V> loader, long timeout)
            throws SQLException {
        Stored s = selectOne(c, d, k);
        if (s != null) {
            return s.value();
        }
        V loaded = callLoader(key, loader, timeout, error -> recordFailure(c, d, k, error));
        if (loaded == null) {
            return null;
        }
        KvCache<K, V> lent = new KvCache<>(caches, name, keys, values, new Binding(null, null, c), maxBatchSize);
        if (!lent.putIfAbsent(key, loaded)) {
            Stored other = selectOne(c, d, k);
            if (other != null) {
                return other.value();
            }
        }
        return value(d, loaded);
    }

    private interface FailureRecorder {
        void record(String error) throws SQLException;
    }

    /** Calls the loader, counting it; a failure or overrun is recorded (when asked) and thrown. */
    private V callLoader(K key, Function<? super K, ? extends V> loader, long timeoutMs, FailureRecorder failed)
            throws SQLException {
        long started = System.nanoTime();
        V loaded;
        try {
            loaded = loader.apply(key);
        } catch (RuntimeException | Error e) {
            counters.loadFailures.increment();
            if (failed != null) {
                failed.record(String.valueOf(e.getMessage() != null ? e.getMessage() : e));
            }
            throw e;
        } finally {
            counters.loads.increment();
            counters.loadNanos.add(System.nanoTime() - started);
        }
        long tookMs = (System.nanoTime() - started) / 1_000_000;
        if (tookMs > timeoutMs) {
            counters.loadFailures.increment();
            String why = "the loader took " + tookMs + " ms, more than the load timeout of " + timeoutMs
                    + " ms (shardq.kv.load-timeout-ms); its value was not stored";
            if (failed != null) {
                failed.record(why);
            }
            throw new KvLoadException(name, key(caches.definition(name), key).hash(), why, true);
        }
        return loaded;
    }

    private void recordFailure(Connection c, KvDefinition d, ByteKey k, String error) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(Queries.get("kv_load_failure_upsert"))) {
            ps.setInt(1, d.id());
            ps.setInt(2, k.hash());
            ps.setBytes(3, k.bytes());
            ps.setString(4, error);
            ps.executeUpdate();
        }
    }

    /** Waits for the holder of the key's load lock to release it, up to the load timeout. */
    private void waitForLoad(Connection c, KvDefinition d, ByteKey k, long timeout) throws SQLException {
        setLockTimeout(c, timeout + "ms");
        try {
            loadLock(c, d, k, "kv_load_lock");
            loadLock(c, d, k, "kv_load_unlock");
        } catch (SQLException e) {
            if ("55P03".equals(e.getSQLState())) {
                throw new KvLoadException(
                        name,
                        k.hash(),
                        "waited " + timeout + " ms (shardq.kv.load-timeout-ms) for another instance's load of the key",
                        true);
            }
            throw e;
        } finally {
            setLockTimeout(c, "0");
        }
    }

    private static void setLockTimeout(Connection c, String value) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(Queries.get("kv_load_lock_timeout"))) {
            ps.setString(1, value);
            ps.executeQuery().close();
        }
    }

    private static void loadLock(Connection c, KvDefinition d, ByteKey k, String query) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(Queries.get(query))) {
            ps.setInt(1, d.id());
            ps.setInt(2, k.hash());
            ps.executeQuery().close();
        }
    }

    /** Test hook: this cache's loads in flight in this instance. */
    KvLoads loads() {
        return caches.loads(caches.definition(name).id());
    }

    // ---------------------------------------------------------------- writes

    /** Stores {@code value} under {@code key} with the cache's default TTL (none: it does not expire). */
    public void put(K key, V value) {
        put(key, value, null);
    }

    /** Stores {@code value} under {@code key}, expiring after {@code ttl} (null: the default TTL). */
    public void put(K key, V value, Duration ttl) {
        write(MODE_PUT, java.util.Collections.singletonMap(key, value), ttl);
    }

    /** Stores every entry with the default TTL: multi-row statements per chunk, all or none. */
    public void putAll(Map<? extends K, ? extends V> entries) {
        putAll(entries, null);
    }

    /** Stores every entry, expiring after {@code ttl} (null: the default TTL). */
    public void putAll(Map<? extends K, ? extends V> entries, Duration ttl) {
        write(MODE_PUT, entries, ttl);
    }

    /** Stores the entry only when {@code key} has no live entry; true when it did. */
    public boolean putIfAbsent(K key, V value) {
        return putIfAbsent(key, value, null);
    }

    public boolean putIfAbsent(K key, V value, Duration ttl) {
        return write(MODE_IF_ABSENT, java.util.Collections.singletonMap(key, value), ttl) == 1;
    }

    /** Replaces the value only when {@code key} has a live entry; true when it did. */
    public boolean replace(K key, V value) {
        return replace(key, value, null);
    }

    public boolean replace(K key, V value, Duration ttl) {
        return write(MODE_REPLACE, java.util.Collections.singletonMap(key, value), ttl) == 1;
    }

    /** Removes {@code key}; true when it had a live entry. */
    public boolean remove(K key) {
        return removeAll(java.util.Collections.singletonList(key)) == 1;
    }

    /** Removes every key given; returns how many had a live entry. One statement per chunk. */
    public int removeAll(Collection<? extends K> keys) {
        KvDefinition d = caches.definition(name);
        Set<ByteKey> distinct = new java.util.LinkedHashSet<>();
        for (K k : keys) {
            distinct.add(key(d, k));
        }
        if (distinct.isEmpty()) {
            return 0;
        }
        flushQueue(d);
        int removed = removeKeys(d, new ArrayList<>(distinct));
        counters.removals.add(removed);
        return removed;
    }

    /** Deletes {@code all} (distinct), one statement per chunk; returns how many were live. */
    int removeKeys(KvDefinition d, List<ByteKey> all) {
        long now = caches.clock().millis();
        return writing(d, "removing entries", all.size() > maxBatchSize, hashes(all), c -> {
            int n = 0;
            boolean one = all.size() == 1;
            try (PreparedStatement ps =
                    c.prepareStatement(Queries.withKv(one ? "kv_delete_one" : "kv_delete_many", d.id()))) {
                for (int from = 0; from < all.size(); from += maxBatchSize) {
                    if (one) {
                        ps.setBytes(1, all.get(0).bytes());
                    } else {
                        ps.setArray(1, c.createArrayOf("bytea", bytes(chunk(all, from))));
                    }
                    ps.setLong(2, now);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            n += rs.getBoolean(2) ? 1 : 0;
                        }
                    }
                }
            }
            return n;
        });
    }

    /** Removes every entry: a TRUNCATE of the cache's partitions (transactional in a bound view). */
    public void clear() {
        KvDefinition d = caches.definition(name);
        flushQueue(d); // older than the clear: written, then truncated with everything else
        writing(d, "clearing", false, null, c -> {
            try (PreparedStatement ps = c.prepareStatement(Queries.get("kv_clear"))) {
                ps.setInt(1, d.id());
                ps.executeQuery().close();
            }
            return null;
        });
    }

    /**
     * Write-behind writes to this cache: accepted into this instance's queue and committed by a
     * background flusher in coalesced batches (see {@link KvWriteBehind} for what is guaranteed
     * when the JVM dies). Only for a view not bound to a transaction ({@code ILLEGAL_STATE}
     * otherwise: a transaction's writes commit with it).
     */
    public KvWriteBehind<K, V> writeBehind() {
        if (!binding.autocommit() || binding.lent() != null) {
            throw new ShardQException(
                    ErrorKind.ILLEGAL_STATE,
                    "cache \"" + name + "\": write-behind is for writes outside a transaction; this view is bound"
                            + " to one (its writes commit with it)");
        }
        return new KvWriteBehind<>(this, caches.writeBehind(caches.definition(name)));
    }

    /** Flushes this instance's write-behind queue of the cache first, unless bound to a transaction. */
    private void flushQueue(KvDefinition d) {
        if (!binding.autocommit()) {
            return;
        }
        WriteBehindQueue q = caches.writeBehindIfAny(d.id());
        if (q != null && q.size() > 0) {
            q.flush();
        }
    }

    /** Encodes and checks puts for the write-behind queue (all before any is accepted). */
    Map<ByteKey, WriteBehindQueue.Pending> pendingPuts(Map<? extends K, ? extends V> entries, Duration ttl) {
        KvDefinition d = caches.definition(name);
        Long expires = expiresAt(d, ttl, caches.clock().millis());
        long bucket = expires == null ? 0L : d.bucket(expires);
        Map<ByteKey, WriteBehindQueue.Pending> out = new LinkedHashMap<>();
        for (Map.Entry<? extends K, ? extends V> e : entries.entrySet()) {
            out.put(key(d, e.getKey()), new WriteBehindQueue.Pending(value(d, e.getValue()), expires, bucket));
        }
        counters.puts.add(out.size());
        return out;
    }

    /** Encodes removals for the write-behind queue. */
    Map<ByteKey, WriteBehindQueue.Pending> pendingRemovals(Collection<? extends K> keys) {
        KvDefinition d = caches.definition(name);
        Map<ByteKey, WriteBehindQueue.Pending> out = new LinkedHashMap<>();
        for (K k : keys) {
            out.put(key(d, k), new WriteBehindQueue.Pending(null, null, 0L));
        }
        return out;
    }

    long now() {
        return caches.clock().millis();
    }

    /**
     * Drops {@code key} from this instance's near cache; the next read goes to the database. Local
     * only, as in JCache and Caffeine: other instances' near caches and the stored entry are left
     * as they are (writes invalidate everywhere by themselves).
     */
    public void invalidate(K key) {
        KvDefinition d = caches.definition(name);
        caches.near()
                .invalidate(d.id(), new long[] {NearCache.hash64(key(d, key).bytes())});
    }

    /** Drops every entry of this cache from this instance's near cache (local only, as {@link #invalidate}). */
    public void invalidateAll() {
        caches.near().invalidate(caches.definition(name).id(), null);
    }

    /**
     * This instance's counters only, without a database read: the catalog's figures (evictions,
     * expirations, entries, bytes, expired unreclaimed) are -1.
     */
    public io.shardq.broker.CacheStats localStats() {
        return caches.localStats(name);
    }

    /** This instance's counters and the catalog's figures for this cache (an exact count: a scan). */
    public io.shardq.broker.CacheStats stats() {
        return caches.stats(name);
    }

    /**
     * One entry to write: encoded key and value, its expiry (epoch ms; null: none) and the bucket
     * that expiry falls in (0: the forever partition).
     */
    record Row(ByteKey key, byte[] value, Long expires, long bucket) {}

    /** Encodes and checks everything first, then writes in ascending hash order; returns rows written. */
    private int write(int mode, Map<? extends K, ? extends V> entries, Duration ttl) {
        KvDefinition d = caches.definition(name);
        flushQueue(d);
        long now = caches.clock().millis();
        Long expires = expiresAt(d, ttl, now);
        long bucket = expires == null ? 0L : d.bucket(expires);
        Map<ByteKey, Row> rows = new LinkedHashMap<>();
        for (Map.Entry<? extends K, ? extends V> e : entries.entrySet()) {
            ByteKey k = key(d, e.getKey());
            rows.put(k, new Row(k, value(d, e.getValue()), expires, bucket));
        }
        if (rows.isEmpty()) {
            return 0;
        }
        List<Row> sorted = new ArrayList<>(rows.values());
        sorted.sort(BY_HASH);
        caches.needBucket(d, bucket);
        if (mode == MODE_PUT
                && binding.autocommit()
                && binding.lent() == null
                && sorted.size() <= KvPutGroup.MAX_REQUEST_ROWS) {
            caches.putGroup(d.id()).put(this, d, sorted, maxBatchSize); // group commit with concurrent puts
            counters.puts.add(sorted.size());
            return sorted.size();
        }
        // one chunk of puts is atomic by itself (one implicit transaction, see putChunk)
        boolean atomic = mode != MODE_PUT || sorted.size() > maxBatchSize;
        int written = writing(d, "writing", atomic, hashes(rows.keySet()), c -> {
            if (!binding.autocommit() && bucket != 0) {
                // the partition may be newer than this transaction's first use of the cache
                try (PreparedStatement ps =
                        c.prepareStatement(Queries.withKvPartition("kv_lock_partition", d.id(), bucket))) {
                    ps.executeQuery().close();
                }
            }
            int n = 0;
            for (int from = 0; from < sorted.size(); from += maxBatchSize) {
                n += writeChunk(
                        c,
                        binding.autocommit(),
                        d,
                        mode,
                        sorted.subList(from, Math.min(sorted.size(), from + maxBatchSize)),
                        now);
            }
            return n;
        });
        counters.puts.add(written);
        return written;
    }

    /**
     * Writes put rows (ascending hash order, distinct keys) on their own, in chunks of {@code
     * batch}: one transaction (a lone chunk without a NOTIFY is one round trip), near caches
     * invalidated as for any write. The put group's and write-behind's way in; an unbound view.
     */
    void putRows(KvDefinition d, List<Row> sorted, int batch) {
        long now = caches.clock().millis();
        List<ByteKey> keys = new ArrayList<>(sorted.size());
        Set<Long> buckets = new java.util.HashSet<>();
        for (Row r : sorted) {
            keys.add(r.key());
            if (buckets.add(r.bucket())) {
                caches.needBucket(d, r.bucket());
            }
        }
        writing(d, "writing", sorted.size() > batch, hashes(keys), c -> {
            for (int from = 0; from < sorted.size(); from += batch) {
                writeChunk(c, true, d, MODE_PUT, sorted.subList(from, Math.min(sorted.size(), from + batch)), now);
            }
            return null;
        });
    }

    /**
     * One chunk, in the transaction {@link #run} opened: the advisory locks (ascending distinct
     * hashes: the chunks of a batch are in ascending order too), then, in later statements with
     * snapshots taken after the locks, the old rows out and the new ones in. Three statements
     * rather than one plpgsql function, with generic plans in a transaction of our own: measured
     * faster (see "Key/value cache" in docs/architecture.md).
     */
    private static int writeChunk(
            Connection c, boolean ownTransaction, KvDefinition d, int mode, List<Row> chunk, long now)
            throws SQLException {
        int size = chunk.size();
        List<Integer> hashes = new ArrayList<>(size);
        for (Row r : chunk) {
            int h = r.key().hash();
            if (hashes.isEmpty() || hashes.get(hashes.size() - 1) != h) {
                hashes.add(h);
            }
        }
        String lock = Queries.get(ownTransaction ? "kv_lock_keys_generic" : "kv_lock_keys");
        if (mode == MODE_PUT) {
            return putChunk(c, lock, d, chunk, hashes, now);
        }
        try (PreparedStatement ps = c.prepareStatement(lock)) {
            ps.setInt(1, d.id());
            ps.setArray(2, c.createArrayOf("integer", hashes.toArray()));
            ps.executeQuery().close();
        }
        List<Row> rows = chunk;
        if (mode == MODE_IF_ABSENT) {
            try (PreparedStatement ps = c.prepareStatement(Queries.withKv("kv_delete_expired", d.id()))) {
                ps.setArray(1, c.createArrayOf("bytea", keys(chunk)));
                ps.setLong(2, now);
                ps.executeUpdate();
            }
        } else {
            Set<ByteKey> live = new java.util.HashSet<>();
            try (PreparedStatement ps = c.prepareStatement(Queries.withKv("kv_delete_many", d.id()))) {
                ps.setArray(1, c.createArrayOf("bytea", keys(chunk)));
                ps.setLong(2, now);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        if (rs.getBoolean(2)) {
                            live.add(ByteKey.of(rs.getBytes(1)));
                        }
                    }
                }
            }
            if (mode == MODE_REPLACE) {
                rows = new ArrayList<>();
                for (Row r : chunk) {
                    if (live.contains(r.key())) {
                        rows.add(r);
                    }
                }
                if (rows.isEmpty()) {
                    return 0;
                }
            }
        }
        String insert = mode == MODE_IF_ABSENT ? "kv_insert_absent" : "kv_insert_many";
        try (PreparedStatement ps = c.prepareStatement(Queries.withKv(insert, d.id()))) {
            bindInsert(c, ps, 1, rows, now);
            return ps.executeUpdate();
        }
    }

    /** Binds kv_insert_many's (or kv_insert_absent's) five parameters from {@code first} on. */
    private static void bindInsert(Connection c, PreparedStatement ps, int first, List<Row> rows, long now)
            throws SQLException {
        int n = rows.size();
        byte[][] vs = new byte[n][];
        Long[] es = new Long[n];
        Long[] bs = new Long[n];
        for (int i = 0; i < n; i++) {
            Row r = rows.get(i);
            vs[i] = r.value();
            es[i] = r.expires();
            bs[i] = r.bucket();
        }
        ps.setLong(first, now);
        ps.setArray(first + 1, c.createArrayOf("bytea", keys(rows)));
        ps.setArray(first + 2, c.createArrayOf("bytea", vs));
        ps.setArray(first + 3, c.createArrayOf("bigint", es));
        ps.setArray(first + 4, c.createArrayOf("bigint", bs));
    }

    /**
     * A put's chunk as one round trip: the lock, the delete and the insert sent together (pgjdbc
     * sends the statements of one prepared string with a single Sync). PostgreSQL still runs them
     * one after another, each with a snapshot taken when it starts, so the delete sees what an
     * earlier holder of the locks committed, as with three round trips; outside a transaction the
     * three form one implicit transaction, committed at the Sync, so a lone putAll chunk is one
     * round trip and one commit (it was four: lock, delete, insert, COMMIT).
     */
    private static int putChunk(
            Connection c, String lock, KvDefinition d, List<Row> chunk, List<Integer> hashes, long now)
            throws SQLException {
        String sql = lock + ";\n" + Queries.withKv("kv_delete_many", d.id()) + ";\n"
                + Queries.withKv("kv_insert_many", d.id());
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setInt(1, d.id());
            ps.setArray(2, c.createArrayOf("integer", hashes.toArray()));
            ps.setArray(3, c.createArrayOf("bytea", keys(chunk)));
            ps.setLong(4, now);
            bindInsert(c, ps, 5, chunk, now);
            boolean resultSet = ps.execute();
            int inserted = 0;
            while (true) {
                if (!resultSet) {
                    int count = ps.getUpdateCount();
                    if (count == -1) {
                        break;
                    }
                    inserted = count; // the insert's, the last statement's
                }
                resultSet = ps.getMoreResults();
            }
            return inserted;
        }
    }

    private static byte[][] keys(List<Row> rows) {
        byte[][] out = new byte[rows.size()][];
        for (int i = 0; i < out.length; i++) {
            out[i] = rows.get(i).key().bytes();
        }
        return out;
    }

    private Long expiresAt(KvDefinition d, Duration ttl, long now) {
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

    private ByteKey key(KvDefinition d, K key) {
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

    private byte[] value(KvDefinition d, V value) {
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

    private V decode(byte[] v) {
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

    static byte[][] bytes(List<ByteKey> keys) {
        byte[][] out = new byte[keys.size()][];
        for (int i = 0; i < out.length; i++) {
            out[i] = keys.get(i).bytes();
        }
        return out;
    }

    private List<ByteKey> chunk(List<ByteKey> all, int from) {
        return all.subList(from, Math.min(all.size(), from + maxBatchSize));
    }

    // ---------------------------------------------------------------- connections

    private interface Work<R> {
        R run(Connection c) throws SQLException;
    }

    private static long[] hashes(Collection<ByteKey> keys) {
        long[] out = new long[keys.size()];
        int i = 0;
        for (ByteKey k : keys) {
            out[i++] = NearCache.hash64(k.bytes());
        }
        return out;
    }

    /**
     * Runs a write of the keys {@code hashes} (null: the whole cache) and invalidates near caches
     * (see {@link NearCaches}). On its own: the NOTIFY is the transaction's last statement, then
     * this instance's entries go after the commit. In a session: one NOTIFY per cache before the
     * session commits, local entries after. On an application's connection (which this instance
     * cannot see commit): the NOTIFY follows the write in the application's transaction, always,
     * and the keys are not filled here until it arrives.
     */
    private <R> R writing(KvDefinition d, String what, boolean atomic, long[] hashes, Work<R> work) {
        NearCaches near = caches.near();
        if (binding.autocommit()) {
            boolean notify = near.mustNotify(false);
            try {
                return run(d, what, atomic || notify, c -> {
                    R r = work.run(c);
                    if (notify) {
                        near.send(c, d.id(), hashes);
                    }
                    return r;
                });
            } finally {
                near.invalidate(d.id(), hashes); // after the commit (or a failure: dropping is harmless)
            }
        }
        BrokerSession session = binding.session();
        if (session != null) {
            R r = run(d, what, atomic, work);
            near.written(session, session.onApplicationConnection(), d.id(), hashes);
            return r;
        }
        near.unsettle(d.id(), hashes);
        return run(d, what, atomic, c -> {
            R r = work.run(c);
            if (near.mustNotify(true)) {
                near.send(c, d.id(), hashes);
            }
            return r;
        });
    }

    /**
     * Runs {@code work} where this view's operations run. Unbound, on a pooled connection: in
     * autocommit, or in one transaction when {@code atomic} (a batch of several chunks).
     */
    private <R> R run(KvDefinition d, String what, boolean atomic, Work<R> work) {
        if (!binding.autocommit()) {
            try {
                Connection c = binding.session() != null ? binding.session().connection() : binding.connection();
                return work.run(c);
            } catch (SQLException e) {
                throw translate(e, what, d);
            }
        }
        if (binding.lent() != null) {
            try {
                return runOn(binding.lent(), atomic, work);
            } catch (SQLException e) {
                throw translate(e, what, d);
            }
        }
        try (Connection c = caches.dataSource().getConnection()) {
            return runOn(c, atomic, work);
        } catch (SQLException e) {
            throw translate(e, what, d);
        }
    }

    /** On a connection in autocommit mode: the work on its own, or in one transaction when {@code atomic}. */
    private static <R> R runOn(Connection c, boolean atomic, Work<R> work) throws SQLException {
        if (!atomic) {
            return work.run(c);
        }
        c.setAutoCommit(false);
        try {
            R r = work.run(c);
            c.commit();
            return r;
        } catch (SQLException | RuntimeException e) {
            try {
                c.rollback();
            } catch (SQLException ignored) {
                // a broken connection: the pool discards it
            }
            throw e;
        } finally {
            c.setAutoCommit(true);
        }
    }

    private ShardQException translate(SQLException e, String what, KvDefinition d) {
        String state = e.getSQLState();
        if ("42P01".equals(state)) {
            caches.changed(name);
            return new ShardQException(
                    ErrorKind.UNKNOWN_CACHE, "cache \"" + name + "\" does not exist (it was dropped)", e);
        }
        if ("23514".equals(state) && String.valueOf(e.getMessage()).contains("no partition")) {
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
