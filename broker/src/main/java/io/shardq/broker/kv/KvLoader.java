package io.shardq.broker.kv;

import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.Query;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.function.Function;

/**
 * Read-through loading for one {@link KvCache} view ({@link KvCache#get(Object, Function)} on a
 * miss): single-flight in this JVM and across instances for an unbound view, one loader call per
 * caller in a bound one.
 *
 * <p><b>Single-flight.</b> In this JVM the callers of a missing key share one load ({@link
 * KvLoads}): the leader runs {@link #loadAcross} on one pooled connection. Across instances the
 * loading one holds a session-level advisory lock on (cache, key hash) ({@code kv_load_try_lock});
 * the others wait for it, up to {@code shardq.kv.load-timeout-ms} ({@code kv_load_lock} under a
 * {@code lock_timeout}), then read what it stored, or the failure it recorded after their try
 * ({@code kv_load_failure_select}), which they throw as a {@link KvLoadException}.
 *
 * <p>Invariants: the lock holder reads the key again before it calls the loader (another instance
 * may have just stored it); a loader's value is stored only with {@code putIfAbsent} semantics (a
 * concurrent writer's value wins and is returned); a loader that fails or outruns the load timeout
 * stores nothing, so the next call tries again; the lock is always released, on the connection
 * that took it, before the connection goes back to the pool.
 */
final class KvLoader<K, V> {
    private final StoredKvCache<K, V> view;
    private final KvCaches caches;
    private final String name;
    private final KvCounters counters;

    KvLoader(StoredKvCache<K, V> view, KvCaches caches, KvCounters counters) {
        this.view = view;
        this.caches = caches;
        this.name = view.name();
        this.counters = counters;
    }

    /** Loads {@code key} after a miss: single-flight when {@code binding} runs on its own. */
    V load(KvBinding binding, K key, Function<? super K, ? extends V> loader) {
        if (!binding.autocommit()) {
            KvDefinition d = caches.definition(name);
            V loaded;
            try {
                loaded = callLoader(key, loader, Long.MAX_VALUE, null);
            } catch (SQLException e) {
                throw view.translate(e, "loading a key of", d); // not thrown: nothing is recorded
            }
            if (loaded == null || view.putIfAbsent(key, loaded)) {
                return loaded;
            }
            byte[] stored = view.selectOne(d, view.key(d, key));
            return stored == null ? loaded : view.decode(stored);
        }
        KvDefinition d = caches.definition(name);
        ByteKey k = view.key(d, key);
        long timeout = caches.loadTimeoutMs();
        // a waiter's backstop: the leader waits for the lock, then runs the loader, each bounded
        byte[] v = caches.loads(d.id()).load(name, k, () -> loadAcross(d, k, key, loader), 2 * timeout + 1000);
        return v == null ? null : view.decode(v);
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
                try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.KV_LOAD_TRY_LOCK))) {
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
                        loadLock(c, d, k, Query.KV_LOAD_UNLOCK);
                    }
                }
                waitForLoad(c, d, k, timeout);
                KvRows.Stored s = KvRows.selectOne(c, d, k, caches.clock().millis());
                if (s != null) {
                    return s.value();
                }
                try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.KV_LOAD_FAILURE_SELECT))) {
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
            throw view.translate(e, "loading a key of", d);
        }
    }

    private byte[] loadLocked(
            Connection c, KvDefinition d, ByteKey k, K key, Function<? super K, ? extends V> loader, long timeout)
            throws SQLException {
        KvRows.Stored s = KvRows.selectOne(c, d, k, caches.clock().millis());
        if (s != null) {
            return s.value();
        }
        V loaded = callLoader(key, loader, timeout, error -> recordFailure(c, d, k, error));
        if (loaded == null) {
            return null;
        }
        if (!view.lentTo(c).putIfAbsent(key, loaded)) {
            KvRows.Stored other = KvRows.selectOne(c, d, k, caches.clock().millis());
            if (other != null) {
                return other.value();
            }
        }
        return view.value(d, loaded);
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
            throw new KvLoadException(
                    name, view.key(caches.definition(name), key).hash(), why, true);
        }
        return loaded;
    }

    private void recordFailure(Connection c, KvDefinition d, ByteKey k, String error) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.KV_LOAD_FAILURE_UPSERT))) {
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
            loadLock(c, d, k, Query.KV_LOAD_LOCK);
            loadLock(c, d, k, Query.KV_LOAD_UNLOCK);
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
        try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.KV_LOAD_LOCK_TIMEOUT))) {
            ps.setString(1, value);
            ps.executeQuery().close();
        }
    }

    private static void loadLock(Connection c, KvDefinition d, ByteKey k, Query query) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(Queries.get(query))) {
            ps.setInt(1, d.id());
            ps.setInt(2, k.hash());
            ps.executeQuery().close();
        }
    }
}
