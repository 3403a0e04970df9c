package io.shardq.broker.shard;

import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.Query;
import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.store.HeaderCodec;
import io.shardq.broker.store.PropertiesJson;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The two ways a batch of messages is written to one shard (see the visibility rule in {@code
 * docs/design/enqueue.md}): the one-statement fast path when the instance knows the shard's head,
 * and reserve-then-insert otherwise. Both hold the shard row's lock until the transaction ends.
 */
final class Enqueue {
    private static final Logger LOG = LoggerFactory.getLogger(Enqueue.class);

    /** The most rows one fast-path statement carries (bind parameters stay far below 65535). */
    static final int FAST_MAX_ROWS = 1000;

    /** A slice this transaction looked up or assigned: published to the SliceMap after commit. */
    record TentativeSlice(DestinationRuntime rt, int shard, SliceMap.Slice slice) {}

    private Enqueue() {}

    /**
     * What one session hands to a write: its messages in send order and who sent them. The write
     * fills in {@link #stored} (for a topic: stamped with subscriber bitmaps, those nobody wants
     * left out) and {@link #firstSeq}, the sequence number of its first stored message.
     */
    static final class Part {
        final List<BrokerMessage> messages;
        final TopicView.Origin origin;
        List<BrokerMessage> stored = List.of();
        long firstSeq;

        Part(List<BrokerMessage> messages, TopicView.Origin origin) {
            this.messages = messages;
            this.origin = origin;
        }
    }

    /** Stamps every part against {@code view}; returns how many messages are to be stored. */
    private static int stamp(List<Part> parts, TopicView view) {
        int n = 0;
        for (Part p : parts) {
            p.stored = view.stamp(p.messages, p.origin);
            n += p.stored.size();
        }
        return n;
    }

    /** Numbers the stored messages of the parts from {@code first}, in order. */
    private static void number(List<Part> parts, long first) {
        long seq = first;
        for (Part p : parts) {
            p.firstSeq = seq;
            seq += p.stored.size();
        }
    }

    /**
     * One statement: reserve from the expected next_seq and insert, in the current slice. Returns
     * the first sequence number, or -1, having changed nothing, when the guess was wrong, the
     * batch does not fit in the known slice, or a topic's subscriptions changed since its view.
     * When nothing is to be stored (no subscription wants any of it) nothing is written, except
     * that a temporary destination takes the slow path, which checks that it still exists.
     */
    static long insertReserving(Engine engine, Connection c, DestinationRuntime rt, int shard, List<Part> parts)
            throws SQLException {
        return insertReserving(engine, c, rt, shard, parts, null);
    }

    /**
     * As {@link #insertReserving(Engine, Connection, DestinationRuntime, int, List)}; with {@code
     * deferredWakes}, a wake-up another instance asked for is added there instead of sent with
     * NOTIFY in this transaction (PostgreSQL refuses to PREPARE a transaction that ran NOTIFY).
     */
    static long insertReserving(
            Engine engine, Connection c, DestinationRuntime rt, int shard, List<Part> parts, List<String> deferredWakes)
            throws SQLException {
        DestinationInfo d = rt.info();
        TopicView view = rt.topicView(c);
        int n = stamp(parts, view);
        long expected = rt.head(shard) + 1;
        if (n == 0 && d.name().startsWith(io.shardq.broker.catalog.TemporaryDestinations.PREFIX)) {
            // nothing to store writes nothing, so a temporary topic its owner dropped in another
            // instance (the NOTIFY not here yet) would take the send silently: the slow path locks
            // the shard row and finds it gone (InvalidDestinationException, JMS 3.1 4.1.5)
            return -1;
        }
        if (n == 0) {
            number(parts, expected);
            return expected;
        }
        SliceMap.Slice slice = rt.slices.find(shard, expected);
        if (slice == null || expected + n - 1 > slice.last() || n > FAST_MAX_ROWS || engine.onCitus()) {
            return -1;
        }
        long notified;
        try (PreparedStatement ps = c.prepareStatement(Queries.insertReserving(d.id(), shard, slice.slot(), n))) {
            bindReserving(ps, 1, d, shard, slice, n, expected, view, parts, System.currentTimeMillis());
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return -1;
                }
                notified = rs.getLong(1);
                fenced(rt, shard, rs, 2);
            }
        }
        // in autocommit (the group-commit writer) the batch has committed: a NOTIFY that fails now must
        // not report it as refused, or the sender would send it again; the waiter finds it by its poll
        // (pollHeads) instead. In a session's transaction the failure fails the transaction, as it should
        if (c.getAutoCommit()) {
            wakeAfterCommit(engine, c, d, shard, notified);
        } else {
            notifyIfWaited(engine, c, d, shard, notified, deferredWakes);
        }
        number(parts, expected);
        return expected;
    }

    /**
     * Binds one shard's reservation and rows ({@code message_insert_reserving}, or one part of
     * {@code message_insert_reserving_part}) from parameter {@code i}; returns the next index.
     */
    private static int bindReserving(
            PreparedStatement ps,
            int i,
            DestinationInfo d,
            int shard,
            SliceMap.Slice slice,
            int n,
            long expected,
            TopicView view,
            List<Part> parts,
            long now)
            throws SQLException {
        ps.setInt(i++, n);
        ps.setInt(i++, d.id());
        ps.setInt(i++, shard);
        ps.setLong(i++, expected);
        ps.setLong(i++, view.version);
        ps.setInt(i++, shard);
        ps.setInt(i++, slice.slot());
        long seq = expected;
        for (Part p : parts) {
            for (BrokerMessage m : p.stored) {
                i = bindRow(ps, i, m, seq++, now, view);
            }
        }
        return i;
    }

    /** A message row's columns from {@code seq} on (seq .. properties) from parameter {@code i}; returns the next index. */
    private static int bindRow(PreparedStatement ps, int i, BrokerMessage m, long seq, long now, TopicView view)
            throws SQLException {
        ps.setLong(i++, seq);
        ps.setLong(i++, now);
        ps.setLong(i++, m.deliverAt());
        ps.setLong(i++, m.expiration());
        ps.setShort(i++, (short) m.priority());
        ps.setBytes(i++, view.topic ? m.subscribersBytes() : null);
        ps.setBytes(i++, HeaderCodec.encode(m));
        ps.setBytes(i++, m.body());
        ps.setString(i++, PropertiesJson.encode(m));
        return i;
    }

    /** One shard's batches for {@link #insertReservingTogether}: {@code first} is set when written. */
    static class Target {
        final DestinationRuntime rt;
        final int shard;
        final List<Part> parts;
        long first = -1;

        Target(DestinationRuntime rt, int shard, List<Part> parts) {
            this.rt = rt;
            this.shard = shard;
            this.parts = parts;
        }
    }

    /**
     * The fast path for several shards in <em>one</em> autocommit statement (one round trip, one
     * commit): one pair of data-modifying CTEs per shard ({@code message_insert_reserving_part}),
     * each reserving only from the expected next_seq. Sets {@link Target#first} of the targets it
     * wrote (or that had nothing to store); the others changed nothing (a wrong guess, a batch that
     * leaves its slice, a temporary destination's empty batch, a topic's changed subscriptions) and
     * are left to the caller's one-shard paths. The targets come in (destination, shard) order.
     */
    static void insertReservingTogether(Engine engine, Connection c, List<? extends Target> targets)
            throws SQLException {
        List<Target> parts = new java.util.ArrayList<>();
        List<TopicView> views = new java.util.ArrayList<>();
        List<SliceMap.Slice> slices = new java.util.ArrayList<>();
        List<long[]> sizes = new java.util.ArrayList<>(); // n, expected
        for (Target t : targets) {
            DestinationInfo d = t.rt.info();
            TopicView view = t.rt.topicView(c);
            int n = stamp(t.parts, view);
            long expected = t.rt.head(t.shard) + 1;
            if (n == 0) {
                if (!d.name().startsWith(io.shardq.broker.catalog.TemporaryDestinations.PREFIX)) {
                    number(t.parts, expected); // nothing to store (see insertReserving)
                    t.first = expected;
                }
                continue;
            }
            SliceMap.Slice slice = t.rt.slices.find(t.shard, expected);
            if (slice == null || expected + n - 1 > slice.last() || n > FAST_MAX_ROWS || engine.onCitus()) {
                continue;
            }
            parts.add(t);
            views.add(view);
            slices.add(slice);
            sizes.add(new long[] {n, expected});
        }
        if (parts.isEmpty()) {
            return;
        }
        List<String> ctes = new ArrayList<>(parts.size());
        for (int k = 0; k < parts.size(); k++) {
            Target t = parts.get(k);
            ctes.add(Queries.insertReservingPart(
                    k, t.rt.info().id(), t.shard, slices.get(k).slot(), (int) sizes.get(k)[0]));
        }
        String sql = Queries.insertReservingTogether(ctes);
        long now = System.currentTimeMillis();
        long[] notified = new long[parts.size()];
        boolean[] written = new boolean[parts.size()];
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            int i = 1;
            for (int k = 0; k < parts.size(); k++) {
                Target t = parts.get(k);
                i = bindReserving(
                        ps,
                        i,
                        t.rt.info(),
                        t.shard,
                        slices.get(k),
                        (int) sizes.get(k)[0],
                        sizes.get(k)[1],
                        views.get(k),
                        t.parts,
                        now);
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    int k = rs.getInt(1);
                    if (rs.getLong(2) > 0) {
                        written[k] = true;
                        notified[k] = rs.getLong(3);
                        fenced(parts.get(k).rt, parts.get(k).shard, rs, 4);
                    }
                }
            }
        }
        // committed (autocommit): a wake-up that fails now is left to the waiter's poll, as on the one-shard path
        for (int k = 0; k < parts.size(); k++) {
            if (!written[k]) {
                continue;
            }
            Target t = parts.get(k);
            number(t.parts, sizes.get(k)[1]);
            t.first = sizes.get(k)[1];
            wakeAfterCommit(engine, c, t.rt.info(), t.shard, notified[k]);
        }
    }

    /**
     * The wake-up after an autocommit batch committed: a NOTIFY that fails now is counted and
     * logged, never reported as the batch's failure (its sender would send it again); the waiting
     * consumer finds the messages by its poll.
     */
    private static void wakeAfterCommit(Engine engine, Connection c, DestinationInfo d, int shard, long waiter) {
        try {
            notifyIfWaited(engine, c, d, shard, waiter, null);
        } catch (SQLException e) {
            engine.stats().notifiesFailed.increment();
            LOG.warn(
                    "{} - the wake-up NOTIFY for {} shard {} failed after its batch committed ({}); the waiting"
                            + " consumer will find the messages by polling",
                    engine.instanceId(),
                    d.name(),
                    shard,
                    e.getMessage());
        }
    }

    /**
     * Reserves the range (locking the shard row) and inserts one multi-row batch per slice. A
     * topic's shard row is locked first and the view checked against its version (reloaded in
     * this transaction if it changed), so the bitmaps match subscriptions that cannot change until
     * the commit.
     */
    static long reserveAndInsert(
            Engine engine,
            Connection c,
            DestinationRuntime rt,
            int shard,
            List<Part> parts,
            List<TentativeSlice> tentative)
            throws SQLException {
        return reserveAndInsert(engine, c, rt, shard, parts, tentative, null);
    }

    /** As above; {@code deferredWakes} as in {@link #insertReserving(Engine, Connection, DestinationRuntime, int, List, List)}. */
    static long reserveAndInsert(
            Engine engine,
            Connection c,
            DestinationRuntime rt,
            int shard,
            List<Part> parts,
            List<TentativeSlice> tentative,
            List<String> deferredWakes)
            throws SQLException {
        DestinationInfo d = rt.info();
        TopicView view = TopicView.QUEUE;
        if (!d.isQueue()) {
            long version;
            long next;
            try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.SHARD_LOCK_VERSION))) {
                ps.setInt(1, d.id());
                ps.setInt(2, shard);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        throw new ShardQException(
                                ErrorKind.UNKNOWN_DESTINATION, d.kind() + " " + d.name() + " no longer exists");
                    }
                    version = rs.getLong(1);
                    next = rs.getLong(2);
                }
            }
            view = rt.topicView(c);
            if (view.version != version) {
                view = rt.reloadTopicView(c);
            }
            if (stamp(parts, view) == 0) {
                number(parts, next);
                return next;
            }
        } else {
            stamp(parts, view);
        }
        List<BrokerMessage> ms = new java.util.ArrayList<>();
        for (Part p : parts) {
            ms.addAll(p.stored);
        }
        int n = ms.size();
        long first;
        long waiter;
        try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.SHARD_RESERVE))) {
            ps.setInt(1, n);
            ps.setInt(2, d.id());
            ps.setInt(3, shard);
            ps.setInt(4, n);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new ShardQException(
                            ErrorKind.UNKNOWN_DESTINATION, d.kind() + " " + d.name() + " no longer exists");
                }
                first = rs.getLong(1);
                waiter = rs.getLong(2);
                fenced(rt, shard, rs, 3);
            }
        }
        long now = System.currentTimeMillis();
        long seq = first;
        int i = 0;
        while (i < n) {
            SliceMap.Slice slice = sliceFor(c, rt, shard, seq, tentative);
            int count = (int) Math.min(n - i, slice.last() - seq + 1);
            if (engine.onCitus() && count <= FAST_MAX_ROWS) {
                // one multi-row statement, which Citus routes whole to the shard's worker
                insertRows(c, d, shard, slice, seq, ms.subList(i, i + count), view, now);
                seq += count;
                i += count;
                continue;
            }
            try (PreparedStatement ps =
                    c.prepareStatement(Queries.withLeaf(Query.MESSAGE_INSERT, d.id(), shard, slice.slot()))) {
                for (int k = 0; k < count; k++) {
                    BrokerMessage m = ms.get(i + k);
                    ps.setInt(1, shard);
                    ps.setInt(2, slice.slot());
                    ps.setLong(3, seq + k);
                    ps.setLong(4, now);
                    ps.setLong(5, m.deliverAt());
                    ps.setLong(6, m.expiration());
                    ps.setShort(7, (short) m.priority());
                    if (view.topic) {
                        ps.setBytes(8, m.subscribersBytes());
                    } else {
                        ps.setNull(8, Types.BINARY);
                    }
                    ps.setBytes(9, HeaderCodec.encode(m));
                    ps.setBytes(10, m.body());
                    ps.setString(11, PropertiesJson.encode(m));
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            seq += count;
            i += count;
        }
        notifyIfWaited(engine, c, d, shard, waiter, deferredWakes);
        number(parts, first);
        return first;
    }

    /** {@code message_insert_rows}: the messages {@code ms}, numbered from {@code seq}, into one leaf. */
    private static void insertRows(
            Connection c,
            DestinationInfo d,
            int shard,
            SliceMap.Slice slice,
            long seq,
            List<BrokerMessage> ms,
            TopicView view,
            long now)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(Queries.insertRows(d.id(), shard, slice.slot(), ms.size()))) {
            int i = 1;
            for (BrokerMessage m : ms) {
                ps.setInt(i++, shard);
                ps.setInt(i++, slice.slot());
                i = bindRow(ps, i, m, seq++, now, view);
            }
            ps.executeUpdate();
        }
    }

    /**
     * The shard's fence, returned by the statement that reserved (V015: its destination shrinks):
     * set on this instance's head before the commit can raise it, so its consumers never see
     * messages beyond a fence that the catalog has not told them about yet.
     */
    private static void fenced(DestinationRuntime rt, int shard, ResultSet rs, int column) throws SQLException {
        long fence = rs.getLong(column);
        if (!rs.wasNull()) {
            rt.fence(shard, fence);
        }
    }

    private static SliceMap.Slice sliceFor(
            Connection c, DestinationRuntime rt, int shard, long seq, List<TentativeSlice> tentative)
            throws SQLException {
        SliceMap.Slice known = rt.slices.find(shard, seq);
        if (known != null) {
            return known;
        }
        for (TentativeSlice t : tentative) {
            if (t.rt() == rt
                    && t.shard() == shard
                    && t.slice().first() <= seq
                    && t.slice().last() >= seq) {
                return t.slice();
            }
        }
        SliceMap.Slice s = rt.slices.forEnqueue(c, shard, seq, rt.info().sliceSize());
        tentative.add(new TentativeSlice(rt, shard, s));
        return s;
    }

    /**
     * Sends the wake-ups an XA transaction deferred (see {@code deferredWakes}), after its commit,
     * on a connection of their own; a failure is left to the waiters' polling.
     */
    static void sendWakes(Engine engine, List<String> wakes) {
        if (wakes.isEmpty()) {
            return;
        }
        try (Connection c = engine.borrowConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.MESSAGE_WAKE_MANY))) {
            ps.setArray(1, c.createArrayOf("text", wakes.toArray()));
            ps.execute();
            engine.stats().notifiesSent.add(wakes.size());
        } catch (SQLException | RuntimeException e) {
            // the waiting consumers poll (shardq.poll.max-ms)
        }
        wakes.clear();
    }

    static void publish(List<TentativeSlice> tentative) {
        for (TentativeSlice t : tentative) {
            t.rt().slices.put(t.shard(), t.slice());
        }
        tentative.clear();
    }

    private static void notifyIfWaited(
            Engine engine, Connection c, DestinationInfo d, int shard, long waiter, List<String> deferred)
            throws SQLException {
        if (waiter != 0 && waiter != engine.instanceId()) {
            if (deferred != null) {
                deferred.add(d.id() + "/" + shard);
                return;
            }
            try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.MESSAGE_WAKE))) {
                ps.setString(1, d.id() + "/" + shard);
                ps.execute();
            }
            engine.stats().notifiesSent.increment();
        }
    }
}
