package io.shardq.broker.shard;

import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.cache.MessageCache;
import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.Query;
import io.shardq.broker.internal.SqlErrors;
import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.store.HeaderCodec;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.stream.LongStream;

/**
 * Reads the message at a sequence number of a claimed shard for the dequeue path: from the
 * cache, else by one read-ahead SELECT of the following rows of its slot.
 *
 * <p>Only small bodies (at most {@link MessageCache#largePayloadBytes()}) travel with the
 * metadata. A message with a large body comes back with its body <em>not loaded</em> and a
 * reference to (slot, seq); {@link Delivery} loads it, one row read, when the message is handed
 * to a consumer, which happens before the consumer's cursor moves past it, so the slot cannot
 * have been retired in between. Messages skipped (expired, not matching a selector) never have
 * their large body read; a dead letter loads its body when it is copied.
 *
 * <p>The read-ahead is bounded in rows ({@code shardq.dequeue.read-ahead}) and in header plus
 * body bytes ({@code shardq.dequeue.read-ahead-max-bytes}), so what one read holds on the heap is
 * bounded whatever the payloads, and neighbouring large bodies are never read ahead.
 */
final class MessageReader {
    private MessageReader() {}

    /** Message {@code seq} of {@code shard}, whose known head is {@code head}. */
    static BrokerMessage read(Engine engine, DestinationRuntime rt, int shard, long seq, long head) {
        DestinationInfo d = rt.info();
        BrokerMessage cached = engine.cache().get(d.id(), shard, seq);
        if (cached != null) {
            return cached.bodyLoaded()
                    ? cached
                    : cached.withBodyRef(cached.bodySize(), bodyRef(engine, rt, shard, seq));
        }
        try (Connection c = engine.borrowConnection()) {
            SliceMap.Slice slice = rt.slices.findOrReload(c, shard, seq);
            if (slice == null) {
                throw new ShardQException(
                        ErrorKind.DATABASE, "no slice of " + d.name() + " shard " + shard + " holds message " + seq);
            }
            return readAhead(engine, rt, c, shard, slice, seq, head);
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "reading messages of " + d.name());
        }
    }

    /**
     * Looks at the priorities of messages {@code from..to} of {@code shard}: in the cache while it
     * holds them, else (from the first miss on) in PostgreSQL, which returns only the rows of other
     * than the default priority, slot by slot. Returns those, each packed as {@code seq * 16 +
     * priority}.
     */
    static long[] priorities(Engine engine, DestinationRuntime rt, int shard, long from, long to) {
        DestinationInfo d = rt.info();
        MessageCache cache = engine.cache();
        LongStream.Builder noted = LongStream.builder();
        long seq = from;
        for (; seq <= to; seq++) {
            BrokerMessage m = cache.peek(d.id(), shard, seq);
            if (m == null) {
                break;
            }
            if (m.priority() != Priorities.DEFAULT) {
                noted.add(seq * 16 + m.priority());
            }
        }
        if (seq <= to) {
            try (Connection c = engine.borrowConnection()) {
                while (seq <= to) {
                    SliceMap.Slice slice = rt.slices.findOrReload(c, shard, seq);
                    if (slice == null) {
                        throw new ShardQException(
                                ErrorKind.DATABASE,
                                "no slice of " + d.name() + " shard " + shard + " holds message " + seq);
                    }
                    long last = Math.min(to, slice.last());
                    engine.stats().dequeueSqlReads.increment();
                    try (PreparedStatement ps = c.prepareStatement(
                            Queries.withLeaf(Query.MESSAGE_SELECT_PRIORITIES, d.id(), shard, slice.slot()))) {
                        ps.setInt(1, shard);
                        ps.setLong(2, seq);
                        ps.setLong(3, last);
                        try (ResultSet rs = ps.executeQuery()) {
                            while (rs.next()) {
                                noted.add(rs.getLong(1) * 16 + rs.getShort(2));
                            }
                        }
                    }
                    seq = last + 1;
                }
            } catch (SQLException e) {
                throw SqlErrors.translate(e, "reading message priorities of " + d.name());
            }
        }
        return noted.build().toArray();
    }

    private static BrokerMessage readAhead(
            Engine engine, DestinationRuntime rt, Connection c, int shard, SliceMap.Slice slice, long seq, long head)
            throws SQLException {
        DestinationInfo d = rt.info();
        Engine.Settings settings = engine.settings();
        MessageCache cache = engine.cache();
        long to = Math.max(seq, Math.min(Math.min(head, seq + settings.readAhead() - 1), slice.last()));
        BrokerMessage result = null;
        long rows = 0;
        long bodies = 0;
        engine.stats().dequeueSqlReads.increment();
        try (PreparedStatement ps =
                c.prepareStatement(Queries.withLeaf(Query.MESSAGE_SELECT_RANGE, d.id(), shard, slice.slot()))) {
            ps.setInt(1, cache.largePayloadBytes());
            ps.setInt(2, shard);
            ps.setLong(3, seq);
            ps.setLong(4, to);
            ps.setLong(5, Math.max(1, settings.readAheadMaxBytes()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    long rowSeq = rs.getLong(1);
                    byte[] body = rs.getBytes(7);
                    BrokerMessage m = HeaderCodec.decode(
                            rs.getBytes(6), rs.getString(10), body, rs.getShort(5), rs.getLong(4), rs.getLong(3));
                    byte[] subscribers = rs.getBytes(9);
                    if (subscribers != null) {
                        m = m.withSubscribers(subscribers);
                    }
                    if (body == null) {
                        m = m.withBodyRef(rs.getInt(8), bodyRef(engine, rt, shard, rowSeq));
                    } else {
                        bodies++;
                    }
                    rows++;
                    if (rowSeq == seq) {
                        result = m;
                    } else {
                        cache.put(d.id(), shard, rowSeq, m);
                    }
                }
            }
        }
        engine.stats().messageRowsRead.add(rows);
        engine.stats().bodiesRead.add(bodies);
        if (result == null) {
            throw new ShardQException(
                    ErrorKind.DATABASE, "message " + seq + " of " + d.name() + " shard " + shard + " is missing");
        }
        return result;
    }

    /** Reads the body of one message by (slot, seq) when the message is delivered. */
    private static BrokerMessage.BodyRef bodyRef(Engine engine, DestinationRuntime rt, int shard, long seq) {
        return () -> readBody(engine, rt, shard, seq);
    }

    private static byte[] readBody(Engine engine, DestinationRuntime rt, int shard, long seq) {
        DestinationInfo d = rt.info();
        try (Connection c = engine.borrowConnection()) {
            SliceMap.Slice slice = rt.slices.findOrReload(c, shard, seq);
            if (slice == null) {
                throw new ShardQException(
                        ErrorKind.DATABASE, "no slice of " + d.name() + " shard " + shard + " holds message " + seq);
            }
            engine.stats().dequeueSqlReads.increment();
            try (PreparedStatement ps =
                    c.prepareStatement(Queries.withLeaf(Query.MESSAGE_SELECT_BODY, d.id(), shard, slice.slot()))) {
                ps.setInt(1, shard);
                ps.setLong(2, seq);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        throw new ShardQException(
                                ErrorKind.DATABASE,
                                "the body of message " + seq + " of " + d.name() + " shard " + shard + " is missing");
                    }
                    engine.stats().messageRowsRead.increment();
                    engine.stats().bodiesRead.increment();
                    return rs.getBytes(1);
                }
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "reading a message body of " + d.name());
        }
    }
}
