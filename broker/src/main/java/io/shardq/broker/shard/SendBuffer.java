package io.shardq.broker.shard;

import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.Query;
import io.shardq.broker.internal.SqlErrors;
import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.message.StreamedBody;
import io.shardq.broker.store.HeaderCodec;
import io.shardq.broker.store.LargeBodies;
import java.io.InputStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * What one session sends in its current transaction, until the commit writes it: persistent
 * messages in batches per (destination, shard), batches written ahead of the commit, messages sent
 * with a delivery delay, and the shard each destination's sends are pinned to.
 *
 * <p><b>Invariants.</b> A session's sends to a destination go to one shard, pinned at its first
 * send there and kept for the session's life (JMS orders what a session sends to a destination,
 * whichever of its producers sends it), except a message group's, which go to the group's shard.
 * Batches are keyed by (destination, shard, dead letters) so they are written in one global order
 * and two commits never lock shard rows in opposite orders; a batch written ahead ({@link
 * #writeAhead}) takes every batch of a lower key with it. A batch is in exactly one of {@code
 * pending} (buffered) and {@code written} (its rows inserted in the open transaction) until the
 * transaction ends; nothing here is visible to a consumer before the commit publishes it ({@link
 * #published}). Dead letters are buffered here but written only with the consumption that produced
 * them.
 *
 * <p><b>Threading.</b> The session's thread only.
 */
final class SendBuffer {
    /** One (destination, shard)'s messages of this transaction. */
    static final class Batch {
        final DestinationRuntime rt;
        final int shard;
        final boolean deadLetters;
        final List<BrokerMessage> messages = new ArrayList<>();
        /** What was stored, numbered from firstSeq (a topic's: stamped, unwanted ones left out). */
        List<BrokerMessage> stored = List.of();

        long firstSeq;
        /** Written through the shard's writer, which cached them and moved the head already. */
        boolean published;

        Batch(DestinationRuntime rt, int shard, boolean deadLetters) {
            this.rt = rt;
            this.shard = shard;
            this.deadLetters = deadLetters;
        }
    }

    /** A persistent message sent with a delivery delay: it waits in shardq.scheduled_message. */
    record ScheduledSend(DestinationRuntime rt, BrokerMessage message) {}

    private final Engine engine;
    private final boolean transacted;
    private final SessionConnection connection;
    private final Supplier<TopicView.Origin> origin;
    private final XaBranch xa;
    private final NonPersistentWork nonPersistent;

    private final TreeMap<Long, Batch> pending = new TreeMap<>();
    private final List<Batch> written = new ArrayList<>();
    private final Map<DestinationRuntime, Integer> pinned = new HashMap<>();
    /** Messages sent with a delivery delay in this transaction, written at commit. */
    private final List<ScheduledSend> scheduled = new ArrayList<>();
    /** Slices this transaction looked up or assigned: published to the SliceMap after commit. */
    private final List<Enqueue.TentativeSlice> tentativeSlices = new ArrayList<>();

    SendBuffer(
            Engine engine,
            boolean transacted,
            SessionConnection connection,
            Supplier<TopicView.Origin> origin,
            XaBranch xa,
            NonPersistentWork nonPersistent) {
        this.engine = engine;
        this.transacted = transacted;
        this.connection = connection;
        this.origin = origin;
        this.xa = xa;
        this.nonPersistent = nonPersistent;
    }

    /** True while something sent in this transaction is not committed. */
    boolean hasWork() {
        return !pending.isEmpty() || !written.isEmpty() || !scheduled.isEmpty();
    }

    /** True when batches were written ahead in the open transaction. */
    boolean hasWritten() {
        return !written.isEmpty();
    }

    /** Batches written ahead in the open transaction. */
    List<Batch> written() {
        return written;
    }

    /**
     * Buffers a send to {@code destination} (a delayed one into the scheduled area, a non-persistent
     * one in memory); refused when the destination's enqueue is stopped.
     */
    void send(String destination, BrokerMessage message) {
        buffer(enqueueable(destination), ordinary(message), false);
    }

    /**
     * Sends one message whose body is {@code body}, read to its end and written as chunks now, in
     * the session's transaction, before the shard's row is locked (see {@link LargeBodies}); the
     * message itself is buffered as {@link #send} does. When the stream fails, nothing of this send
     * is kept and the transaction's other work is untouched. (See {@link
     * BrokerSession#send(String, BrokerMessage, InputStream)}.)
     */
    void sendStreamed(String destination, BrokerMessage message, InputStream body) {
        java.util.Objects.requireNonNull(body, "body");
        DestinationRuntime rt = enqueueable(destination);
        if (!message.persistent()) {
            throw LargeBodies.refused("a streamed body needs a persistent message: a non-persistent one lives in"
                    + " one instance's memory, and a streamed body is stored in PostgreSQL");
        }
        if (message.deliverAt() > engine.clock().millis()) {
            throw LargeBodies.refused("a streamed body cannot be sent with a delivery delay (deliver at "
                    + java.time.Instant.ofEpochMilli(message.deliverAt()) + "): send it without one");
        }
        if (message.bodySize() != 0 || message.streamedBody() != null) {
            throw LargeBodies.refused("a message sent with a body stream must have no body of its own (it has "
                    + message.bodySize() + " bytes)");
        }
        boolean inTransaction = connection.inTransaction();
        Connection c = null;
        java.sql.Savepoint before = null;
        StreamedBody streamed;
        try {
            c = connection.current();
            if (c.getAutoCommit()) {
                throw LargeBodies.refused("a streamed send on an application's connection needs a transaction:"
                        + " the connection is in autocommit mode");
            }
            before = inTransaction ? c.setSavepoint() : null;
            streamed = LargeBodies.write(c, body);
            if (before != null) {
                c.releaseSavepoint(before);
            }
        } catch (SQLException | java.io.IOException | RuntimeException e) {
            undoStreamedSend(c, before, inTransaction);
            if (e instanceof SQLException se) {
                throw SqlErrors.translate(se, "writing a streamed body to " + destination);
            }
            if (e instanceof java.io.IOException io) {
                throw LargeBodies.refused("reading the body stream of a message to " + destination + " failed: " + io);
            }
            throw (RuntimeException) e;
        }
        // (not undone when buffering fails: in a transaction that may have written batches ahead, whose
        // failure breaks the transaction as it did before; its commit then fails and rolls back all)
        try {
            buffer(rt, message.withStreamedBody(streamed), false);
        } catch (RuntimeException e) {
            if (!inTransaction && !transacted) {
                undoStreamedSend(c, null, false); // nothing else was in this transaction
            }
            throw e;
        }
    }

    /**
     * {@code message}, refused when it carries a streamed body: that names chunks this session did
     * not write (another message's, which go when that message is retired); a body is streamed with
     * {@link #send(String, BrokerMessage, InputStream)}.
     */
    private static BrokerMessage ordinary(BrokerMessage message) {
        if (message.streamedBody() != null) {
            throw LargeBodies.refused("message " + message.messageId() + " carries the streamed body "
                    + message.streamedBody().id() + " of another message: send its body as a stream with"
                    + " send(destination, message, body)");
        }
        return message;
    }

    /** A streamed send that failed: back to before it (a savepoint), or the whole transaction it began. */
    private void undoStreamedSend(Connection c, java.sql.Savepoint before, boolean inTransaction) {
        if (c == null) {
            return;
        }
        if (!inTransaction) {
            connection.rollbackQuietly(c);
            connection.release(c, false);
            return;
        }
        if (before != null) {
            try {
                c.rollback(before);
            } catch (SQLException ignored) {
                // the transaction failed as a whole: the commit reports it
            }
        }
    }

    /** The runtime of a destination that accepts sends now ({@code ILLEGAL_STATE} when its enqueue is stopped). */
    private DestinationRuntime enqueueable(String destination) {
        DestinationRuntime rt = engine.runtime(destination, true);
        DestinationInfo d = rt.info();
        if (!d.enqueueEnabled()) {
            throw new ShardQException(ErrorKind.ILLEGAL_STATE, "enqueue is stopped on " + d.kind() + " " + d.name());
        }
        return rt;
    }

    /** Buffers a dead letter (or expired message) of the consumption in this transaction. */
    void deadLetter(DestinationRuntime rt, BrokerMessage message) {
        buffer(rt, message, true);
    }

    /** Dead letters are written only together with the consumption that produced them. */
    private void buffer(DestinationRuntime rt, BrokerMessage message, boolean deadLetter) {
        long now = engine.clock().millis();
        if (!deadLetter && message.deliverAt() > now && message.persistent()) {
            // (a delayed non-persistent message is held in memory from its commit: see NonPersistentWork)
            scheduled.add(new ScheduledSend(rt, message)); // written into shardq.scheduled_message at commit
            return;
        }
        if (!message.persistent()) {
            nonPersistent.send(rt, message);
            return;
        }
        int groupShard = groupShard(rt, message);
        int shard = groupShard >= 0
                ? groupShard
                : pinned.compute(
                        rt, (r, cur) -> cur != null && sendingTo(r) ? cur : r.producerShard(cur, spreadShards));
        // (destination, shard) order first, so statements lock shard rows in one global order
        long key = ((long) rt.info().id() << 20) | ((long) shard << 1) | (deadLetter ? 1 : 0);
        Batch b = pending.computeIfAbsent(key, k -> new Batch(rt, shard, deadLetter));
        b.messages.add(message);
        if (transacted && !deadLetter && b.messages.size() >= engine.settings().enqueueMaxBatch()) {
            writeAhead(key, rt);
        }
    }

    /**
     * True while this transaction has sends to {@code rt} buffered or written ahead: the session
     * keeps its shard until the transaction ends (re-pinning happens only at a boundary).
     */
    private boolean sendingTo(DestinationRuntime rt) {
        for (Batch b : pending.values()) {
            if (b.rt == rt) {
                return true;
            }
        }
        for (Batch b : written) {
            if (b.rt == rt) {
                return true;
            }
        }
        return false;
    }

    /** See {@link #spreadShards()}. */
    private boolean spreadShards;

    /**
     * Each transaction of this session sends to the next shard round robin instead of one pinned
     * shard, for bulk loads that should spread over every shard ({@code shardq queue load
     * --spread}). Gives up send order across this session's transactions (within one transaction
     * it is kept); never for a JMS session.
     */
    void spreadShards() {
        this.spreadShards = true;
    }

    /**
     * The shard of a message's group in a destination with message groups ({@link
     * DestinationInfo#groupShard}); -1 otherwise (the session's pinned shard).
     */
    private static int groupShard(DestinationRuntime rt, BrokerMessage m) {
        DestinationInfo d = rt.info();
        if (!d.messageGroups() || !(m.properties().get(BrokerSession.GROUP_ID) instanceof String group)) {
            return -1;
        }
        return d.groupShard(group);
    }

    /**
     * Writes the batch of {@code key} ahead of commit (it reached {@code enqueue.max-batch}), and
     * before it every pending batch of a lower key, dead letters included: the shard rows this
     * transaction locks are then taken in ascending (destination, shard) order, as at commit.
     * Only a send to a lower key after this (a destination with a lower id) is locked out of order
     * at commit; see "The visibility rule" in docs/design/enqueue.md (deadlocks between shards).
     */
    private void writeAhead(long key, DestinationRuntime rt) {
        try {
            Connection c = connection.current();
            for (var it = pending.headMap(key, true).entrySet().iterator(); it.hasNext(); ) {
                Batch b = it.next().getValue();
                writeBatch(c, b);
                it.remove();
                written.add(b);
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "writing messages to " + rt.info().name());
        }
    }

    /**
     * Buffers several sends as one unit: when any is refused, none of the unit stays buffered (no
     * consumption is touched).
     */
    void sendUnit(List<Map.Entry<String, BrokerMessage>> unit) {
        try {
            for (Map.Entry<String, BrokerMessage> e : unit) {
                send(e.getKey(), e.getValue());
            }
        } catch (RuntimeException e) {
            discardSends(); // nothing of the unit was written: forget what was buffered
            throw e;
        }
    }

    /** A unit of sends failed before anything was written: forgets its sends (dead letters stay). */
    void discardSends() {
        pending.values().removeIf(b -> !b.deadLetters);
        scheduled.clear();
        nonPersistent.discardSends();
    }

    /** The buffered batches a commit writes, in (destination, shard) order; dead letters only with consumption. */
    List<Batch> toWrite(boolean consumption) {
        List<Batch> toWrite = new ArrayList<>();
        for (Batch b : pending.values()) {
            if (consumption || !b.deadLetters) {
                toWrite.add(b); // pending is ordered by (destination, shard)
            }
        }
        return toWrite;
    }

    /** The delayed sends a commit writes. */
    List<ScheduledSend> toSchedule() {
        return List.copyOf(scheduled);
    }

    /** Writes one batch in {@code c}'s transaction, numbering it. */
    void writeBatch(Connection c, Batch b) throws SQLException {
        // messages moved aside get copies of their streamed bodies (one message per body), made in
        // the commit while the consumer's claim still keeps the originals from retirement
        List<BrokerMessage> messages = b.deadLetters ? LargeBodies.withCopies(c, b.messages) : b.messages;
        List<Enqueue.Part> parts = List.of(new Enqueue.Part(messages, origin.get()));
        // an XA session's transaction may be prepared, which PostgreSQL refuses after a NOTIFY
        List<String> wakes = xa.wakes();
        if (Enqueue.insertReserving(engine, c, b.rt, b.shard, parts, wakes) < 0) {
            Enqueue.reserveAndInsert(engine, c, b.rt, b.shard, parts, tentativeSlices, wakes);
        }
        b.firstSeq = parts.get(0).firstSeq;
        b.stored = parts.get(0).stored;
        LargeBodies.bind(c, b.rt.info().id(), b.shard, b.firstSeq, messages, b.stored);
    }

    /** Writes the delayed sends into the scheduled area, in the commit's transaction (V010). */
    static void schedule(Connection c, List<ScheduledSend> sends) throws SQLException {
        if (sends.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.SCHEDULED_INSERT))) {
            for (ScheduledSend s : sends) {
                BrokerMessage m = s.message();
                ps.setInt(1, s.rt().info().id());
                ps.setLong(2, m.deliverAt());
                ps.setLong(3, m.expiration());
                ps.setShort(4, (short) m.priority());
                ps.setBytes(5, HeaderCodec.encode(m));
                ps.setBytes(6, m.body());
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    /**
     * The commit wrote {@code toWrite} and {@code toSchedule}: they leave the buffer. Returns the
     * earliest delivery time of the scheduled ones ({@code Long.MAX_VALUE} when none).
     */
    long committed(List<Batch> toWrite, List<ScheduledSend> toSchedule) {
        pending.values().removeAll(toWrite);
        long earliest = Long.MAX_VALUE;
        if (!toSchedule.isEmpty()) {
            scheduled.removeAll(toSchedule);
            for (ScheduledSend s : toSchedule) {
                earliest = Math.min(earliest, s.message().deliverAt());
                s.rt().enqueued.increment();
            }
        }
        return earliest;
    }

    /**
     * The commit is final: its slices go to the SliceMap, its batches are counted and, unless
     * {@code visibleHere} is false (the application may still roll back), cached with their shard's
     * head moved so local consumers see them.
     */
    void published(List<Batch> batches, boolean visibleHere) {
        Enqueue.publish(tentativeSlices);
        for (Batch b : batches) {
            engine.stats().enqueued.add(b.messages.size());
            b.rt.enqueued.add(b.messages.size());
            int n = b.stored.size();
            if (!visibleHere || b.published || n == 0) {
                continue; // the application may still roll back: consumers find these by polling
            }
            int dest = b.rt.info().id();
            for (int i = 0; i < n; i++) {
                engine.cache().put(dest, b.shard, b.firstSeq + i, b.stored.get(i));
            }
            b.rt.advanceHead(b.shard, b.firstSeq + n - 1);
        }
        written.clear();
    }

    /** The transaction did not commit: everything buffered or written goes (the pins stay). */
    void discard() {
        tentativeSlices.clear();
        scheduled.clear();
        pending.clear();
        written.clear();
    }

    /** These batches' rows (written in a transaction that did not commit) are dead. */
    void reportRolledBack(List<Batch> batches) {
        for (Batch b : batches) {
            engine.sendsRolledBack(b.rt.info(), b.shard);
        }
    }

    /**
     * After a failed commit of {@code batches}: when the database refused it because a shard it
     * wrote is draining, the destinations are read again so the next transaction avoids the shard.
     */
    @SafeVarargs
    final void reportFailure(Throwable failure, List<Batch>... batches) {
        if (!SqlErrors.isShardDraining(failure)) {
            return;
        }
        java.util.Set<Integer> done = new java.util.HashSet<>();
        for (List<Batch> list : batches) {
            for (Batch b : list) {
                if (done.add(b.rt.info().id())) {
                    engine.destinationShrank(b.rt.info());
                }
            }
        }
    }
}
