package io.shardq.broker.shard;

import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.internal.Queries;
import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.store.HeaderCodec;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.List;

/**
 * The two ways a batch of messages is written to one shard (see the visibility rule in {@code
 * docs/architecture.md}): the one-statement fast path when the instance knows the shard's head,
 * and reserve-then-insert otherwise. Both hold the shard row's lock until the transaction ends.
 */
final class Enqueue {
    /** The most rows one fast-path statement carries (bind parameters stay far below 65535). */
    static final int FAST_MAX_ROWS = 1000;

    /** A slice this transaction looked up or assigned: published to the SliceMap after commit. */
    record TentativeSlice(DestinationRuntime rt, int shard, SliceMap.Slice slice) {}

    private Enqueue() {}

    /**
     * One statement: reserve from the expected next_seq and insert, in the current slice. Returns
     * the first sequence number, or -1, having changed nothing, when the guess was wrong or the
     * batch does not fit in the known slice.
     */
    static long insertReserving(Engine engine, Connection c, DestinationRuntime rt, int shard, List<BrokerMessage> ms)
            throws SQLException {
        DestinationInfo d = rt.info();
        int n = ms.size();
        long expected = rt.head(shard) + 1;
        SliceMap.Slice slice = rt.slices.find(shard, expected);
        if (slice == null || expected + n - 1 > slice.last() || n > FAST_MAX_ROWS) {
            return -1;
        }
        long now = System.currentTimeMillis();
        long notified;
        try (PreparedStatement ps = c.prepareStatement(Queries.insertReserving(d.id(), shard, slice.slot(), n))) {
            int i = 1;
            ps.setInt(i++, n);
            ps.setInt(i++, d.id());
            ps.setInt(i++, shard);
            ps.setLong(i++, expected);
            ps.setInt(i++, shard);
            ps.setInt(i++, slice.slot());
            for (int k = 0; k < n; k++) {
                BrokerMessage m = ms.get(k);
                ps.setLong(i++, expected + k);
                ps.setLong(i++, now);
                ps.setLong(i++, m.deliverAt());
                ps.setLong(i++, m.expiration());
                ps.setShort(i++, (short) m.priority());
                ps.setBytes(i++, HeaderCodec.encode(m));
                ps.setBytes(i++, m.body());
            }
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return -1;
                }
                notified = rs.getLong(1);
            }
        }
        notifyIfWaited(engine, c, d, shard, notified);
        return expected;
    }

    /** Reserves the range (locking the shard row) and inserts one multi-row batch per slice. */
    static long reserveAndInsert(
            Engine engine,
            Connection c,
            DestinationRuntime rt,
            int shard,
            List<BrokerMessage> ms,
            List<TentativeSlice> tentative)
            throws SQLException {
        DestinationInfo d = rt.info();
        int n = ms.size();
        long first;
        long waiter;
        try (PreparedStatement ps = c.prepareStatement(Queries.get("shard_reserve"))) {
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
            }
        }
        long now = System.currentTimeMillis();
        long seq = first;
        int i = 0;
        while (i < n) {
            SliceMap.Slice slice = sliceFor(c, rt, shard, seq, tentative);
            int count = (int) Math.min(n - i, slice.last() - seq + 1);
            try (PreparedStatement ps =
                    c.prepareStatement(Queries.withLeaf("message_insert", d.id(), shard, slice.slot()))) {
                for (int k = 0; k < count; k++) {
                    BrokerMessage m = ms.get(i + k);
                    ps.setInt(1, shard);
                    ps.setInt(2, slice.slot());
                    ps.setLong(3, seq + k);
                    ps.setLong(4, now);
                    ps.setLong(5, m.deliverAt());
                    ps.setLong(6, m.expiration());
                    ps.setShort(7, (short) m.priority());
                    ps.setNull(8, Types.BINARY);
                    ps.setBytes(9, HeaderCodec.encode(m));
                    ps.setBytes(10, m.body());
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            seq += count;
            i += count;
        }
        notifyIfWaited(engine, c, d, shard, waiter);
        return first;
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

    static void publish(List<TentativeSlice> tentative) {
        for (TentativeSlice t : tentative) {
            t.rt().slices.put(t.shard(), t.slice());
        }
        tentative.clear();
    }

    private static void notifyIfWaited(Engine engine, Connection c, DestinationInfo d, int shard, long waiter)
            throws SQLException {
        if (waiter != 0 && waiter != engine.instanceId()) {
            try (PreparedStatement ps = c.prepareStatement("select pg_notify('shardq_wake', ?)")) {
                ps.setString(1, d.id() + "/" + shard);
                ps.execute();
            }
            engine.stats().notifiesSent.increment();
        }
    }
}
