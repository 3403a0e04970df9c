package io.shardq.jcache;

import io.shardq.broker.Broker;
import io.shardq.broker.ShardQException;
import io.shardq.broker.kv.KvCache;
import io.shardq.broker.shard.BrokerSession;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import javax.cache.Cache;
import javax.cache.CacheException;
import javax.cache.event.EventType;
import javax.cache.expiry.ExpiryPolicy;

/**
 * One cache's entries as this layer keeps them in the engine ({@link Stored}: the value with its
 * JCache expiry), and the transaction of a change to them ({@link Tx}).
 *
 * <p>A change is one transacted engine session: a transaction-level advisory lock per key in this
 * layer's own lock space ({@code (hash of "shardq.jcache/" + store name, hash of the encoded key)},
 * taken in ascending order, so multi-key changes never deadlock), then reads of the current
 * entries, the caller's work (the CacheWriter, the engine's writes), COMMIT, and only then the
 * change's events to the {@link Listeners}.
 *
 * <p>Invariants: an entry is judged expired by the manager's clock, which must be the broker's;
 * an entry found expired, in or out of a change, is removed under its lock and fires EXPIRED; every
 * write sets the engine's TTL to the JCache expiry plus {@link Expiries#GRACE}. No state of its own
 * beyond its collaborators: safe from any thread, each change on the caller's.
 */
final class StoredEntries<K, V> {
    private static final String LOCK_SQL = "SELECT count(pg_advisory_xact_lock(?, h)) FROM unnest(?::integer[]) AS h";

    private final Cache<K, V> source;
    private final EntryCodec<K, V> codec;
    private final Broker broker;
    private final KvCache<K, byte[]> kv;
    private final int lockSpace;
    private final Clock clock;
    private final ExpiryPolicy expiry;
    private final JCacheStatistics stats;
    private final Listeners<K, V> listeners;

    /** {@code source}: the cache its events name; {@code storeName}: the ShardQ cache's name (the lock space). */
    StoredEntries(
            Cache<K, V> source,
            EntryCodec<K, V> codec,
            Broker broker,
            KvCache<K, byte[]> kv,
            String storeName,
            Clock clock,
            ExpiryPolicy expiry,
            JCacheStatistics stats,
            Listeners<K, V> listeners) {
        this.source = source;
        this.codec = codec;
        this.broker = broker;
        this.kv = kv;
        this.lockSpace = ("shardq.jcache/" + storeName).hashCode();
        this.clock = clock;
        this.expiry = expiry;
        this.stats = stats;
        this.listeners = listeners;
    }

    long now() {
        return clock.millis();
    }

    // ---------------------------------------------------------------- outside a change

    /** The key's live entry outside a transaction; an expired one is removed (EXPIRED) and null returned. */
    Stored readLive(K key) {
        byte[] raw = codec.call(() -> kv.get(key));
        if (raw == null) {
            return null;
        }
        Stored s = codec.stored(raw);
        if (s.expired(now())) {
            expire(key);
            return null;
        }
        return s;
    }

    /** Removes the key if its entry is still expired, firing EXPIRED. */
    void expire(K key) {
        change(List.of(key), tx -> tx.current(key));
    }

    /** Applies the access expiry to an entry just read, unless it changed meanwhile. */
    void accessed(K key, Stored read) {
        long now = now();
        long at = Expiries.at(expiry::getExpiryForAccess, now);
        if (at == Expiries.UNCHANGED || at == read.expiresAt()) {
            return;
        }
        change(List.of(key), tx -> {
            byte[] raw = tx.view.get(key);
            if (raw == null || !Arrays.equals(raw, read.raw())) {
                return null; // changed: its own expiry stands
            }
            setExpiry(tx, key, read, at, now);
            return null;
        });
    }

    // ---------------------------------------------------------------- the transaction of a change

    /** One change: a transacted engine session with the keys' locks held, and its events. */
    final class Tx implements AutoCloseable {
        final BrokerSession session;
        final KvCache<K, byte[]> view;
        final List<JCacheEvent<K, V>> events = new ArrayList<>();

        Tx(Collection<? extends K> lockKeys) {
            session = broker.openSession(BrokerSession.Mode.TRANSACTED);
            try {
                view = kv.in(session);
                lock(lockKeys);
            } catch (RuntimeException e) {
                session.close();
                throw e;
            }
        }

        private void lock(Collection<? extends K> lockKeys) {
            int[] hashes = lockKeys.stream()
                    .mapToInt(k -> Arrays.hashCode(codec.keys().encode(k)))
                    .distinct()
                    .sorted()
                    .toArray();
            if (hashes.length == 0) {
                return;
            }
            Connection c = session.connection();
            try (PreparedStatement ps = c.prepareStatement(LOCK_SQL)) {
                ps.setInt(1, lockSpace);
                ps.setArray(
                        2,
                        c.createArrayOf("integer", Arrays.stream(hashes).boxed().toArray()));
                ps.executeQuery().close();
            } catch (SQLException e) {
                throw new CacheException("cache \"" + codec.name() + "\": cannot lock the keys of a change: " + e, e);
            }
        }

        /** The key's live entry in this transaction; an expired one is removed here (EXPIRED). */
        Stored current(K key) {
            byte[] raw = view.get(key);
            return raw == null ? null : live(key, codec.stored(raw));
        }

        Map<K, Stored> current(Collection<K> wanted) {
            Map<K, Stored> out = new LinkedHashMap<>();
            view.getAll(wanted).forEach((k, raw) -> {
                Stored s = live(k, codec.stored(raw));
                if (s != null) {
                    out.put(k, s);
                }
            });
            return out;
        }

        private Stored live(K key, Stored s) {
            if (!s.expired(now())) {
                return s;
            }
            view.remove(key);
            V old = codec.decode(s);
            events.add(event(EventType.EXPIRED, key, old, old));
            return null;
        }

        @Override
        public void close() {
            session.close();
        }
    }

    /** Runs a change in its transaction with {@code lockKeys} locked, commits, then fires its events. */
    <R> R change(Collection<? extends K> lockKeys, Function<Tx, R> work) {
        R r;
        List<JCacheEvent<K, V>> events;
        try (Tx tx = new Tx(lockKeys)) {
            r = work.apply(tx);
            tx.session.commit();
            events = tx.events;
        } catch (ShardQException e) {
            throw codec.translate(e);
        }
        listeners.fire(events);
        return r;
    }

    /**
     * Stores {@code value} given the key's current entry {@code cur} (null: none) with the creation
     * or update expiry, and records CREATED or UPDATED; false when the expiry said the entry is
     * expired already (a zero duration: nothing stored on creation, removed on update).
     */
    boolean store(Tx tx, K key, V value, Stored cur, long now) {
        long at;
        if (cur == null) {
            at = Expiries.at(expiry::getExpiryForCreation, now);
            if (at == Expiries.UNCHANGED) {
                at = Stored.ETERNAL;
            }
            if (at <= now) {
                return false;
            }
        } else {
            at = Expiries.at(expiry::getExpiryForUpdate, now);
            if (at == Expiries.UNCHANGED) {
                at = cur.expiresAt();
            }
            if (at <= now) {
                tx.view.remove(key);
                V old = codec.decode(cur);
                tx.events.add(event(EventType.EXPIRED, key, old, old));
                return false;
            }
        }
        tx.view.put(key, Stored.wrap(codec.encode(value), at), Expiries.ttl(at, now));
        tx.events.add(
                cur == null
                        ? event(EventType.CREATED, key, value, null)
                        : event(EventType.UPDATED, key, value, codec.decode(cur)));
        return true;
    }

    /** Removes the key's entry {@code cur}: a REMOVED event and a removal in the statistics. */
    boolean remove(Tx tx, K key, Stored cur) {
        tx.view.remove(key);
        V old = codec.decode(cur);
        tx.events.add(event(EventType.REMOVED, key, old, old));
        stats.removals(1);
        return true;
    }

    /** Applies the access expiry to an entry read inside a change that leaves it as it is. */
    void accessedIn(Tx tx, K key, Stored cur) {
        long now = now();
        long at = Expiries.at(expiry::getExpiryForAccess, now);
        if (at != Expiries.UNCHANGED && at != cur.expiresAt()) {
            setExpiry(tx, key, cur, at, now);
        }
    }

    private void setExpiry(Tx tx, K key, Stored cur, long at, long now) {
        if (at <= now) {
            tx.view.remove(key);
            V old = codec.decode(cur);
            tx.events.add(event(EventType.EXPIRED, key, old, old));
        } else {
            tx.view.put(key, Stored.wrap(cur.value(), at), Expiries.ttl(at, now));
        }
    }

    private JCacheEvent<K, V> event(EventType type, K key, V value, V old) {
        return new JCacheEvent<>(source, type, key, value, old);
    }
}
