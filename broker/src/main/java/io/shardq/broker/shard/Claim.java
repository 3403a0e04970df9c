package io.shardq.broker.shard;

import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.Query;
import io.shardq.broker.internal.SqlErrors;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What one session holds of one shard of one subscription under one lease: the sequence numbers
 * handed to it and not delivered yet (its prefetch), or, for a selective consumer that scans the
 * shard alone, where its scan is; what it delivered and took in the current transaction; and, from
 * the commit's plan, where the cursor moves.
 *
 * <p><b>Invariants.</b> A claim belongs to the lease epoch it was made under ({@link #current}):
 * its commit is refused (the cursor guard) when the lease moved, and what it gives back to its
 * shard is ignored by a newer lease. Every sequence number handed to it is, until the transaction
 * ends, in exactly one of: the prefetch, {@link #taken} (consumed here: delivered, dead-lettered or
 * expired), or given back to the shard ({@link ShardState#giveBack}); so nothing is skipped and
 * nothing is delivered twice by this instance. {@code prefetched} is ascending, so each consumer
 * sees a shard in sequence order.
 *
 * <p><b>Threading.</b> The session's thread only; the {@link ShardState} it points to is shared and
 * guards itself.
 */
final class Claim {
    final DestinationRuntime rt;
    /** The subscription whose cursor this claim moves. */
    final Subscription sub;

    final ShardState shard;
    final int epoch;
    /** A selective session scans the shard alone and passes over what does not match. */
    final boolean exclusive;
    /** Handed to this session, not delivered yet (its prefetch), ascending. */
    final ArrayDeque<Long> prefetched = new ArrayDeque<>();
    /** Exclusive scans: the next sequence number to look at. */
    long scanNext;
    /** Exclusive scans with a selector PostgreSQL evaluates: the rows it may select, a window at a time. */
    io.shardq.broker.selector.SelectorSql.Window window;

    final List<Long> delivered = new ArrayList<>();
    /** Consumed in this transaction: delivered, dead-lettered or expired. */
    final List<Long> taken = new ArrayList<>();

    boolean attemptsToClear;
    /** Computed at commit: where the cursor was, where it goes, what is logged beyond it. */
    long startPosition;

    long newPosition;
    final List<Long> outOfOrder = new ArrayList<>();
    boolean logToClear;
    /** This claim's commit is the shard's cursor mover in flight. */
    boolean mover;
    /** The database number of the lease the plan was made under (-1: gone); see {@link ShardState.Move#leaseSeq}. */
    long leaseSeq = -1;

    Claim(Subscription sub, ShardState shard, boolean exclusive) {
        this.rt = sub.destination;
        this.sub = sub;
        this.shard = shard;
        this.epoch = shard.leaseEpoch;
        this.exclusive = exclusive;
    }

    boolean current() {
        return epoch == shard.leaseEpoch && shard.leased;
    }

    /** The commit's plan for this claim: where its cursor moves and what is logged beyond it. */
    void plan() {
        ShardState.Move move = shard.plannedMove(taken, outOfOrder);
        leaseSeq = move.epoch() == epoch ? move.leaseSeq() : -1; // a newer lease: its number is not ours
        startPosition = move.start();
        newPosition = move.end();
        logToClear = move.logToClear();
        mover = move.mover();
    }

    /** A topic subscription's commit that only moves its cursor: it may join a group commit. */
    boolean groupable() {
        return !rt.info().isQueue() && outOfOrder.isEmpty() && newPosition > startPosition;
    }

    ShardQException leaseLost(String detail) {
        return new ShardQException(
                ErrorKind.ROLLED_BACK,
                "transaction rolled back: the dequeue lease of " + rt.info().name() + " shard "
                        + shard.shardNo + " passed to another instance (" + detail
                        + "); its messages will be redelivered");
    }

    /**
     * The transaction that consumed from this claim committed: its messages leave the cache (a
     * queue's) and their attempts are cleared, the cursor moves in memory, and the claim is emptied.
     * With {@code untold} (the application commits its connection later) the shard is forgotten
     * instead, so the next lease re-reads its cursor. Returns true when the claim is released
     * (nothing prefetched is left, or it was an exclusive scan).
     */
    boolean committed(Engine engine, boolean untold) {
        int dest = rt.info().id();
        boolean shared = sub.bit >= 0; // a topic's stay cached until its local subscriptions passed them
        for (long seq : taken) {
            if (!shared) {
                engine.cache().remove(dest, shard.shardNo, seq);
            }
            if (attemptsToClear) {
                shard.attempts.remove(seq);
            }
        }
        rt.dequeued.add(delivered.size());
        engine.cursorCommitted(rt.info(), shard.shardNo, startPosition, newPosition);
        // prefetched messages stay with the session (given back when it closes or rolls back), so
        // each consumer sees a shard in sequence order
        boolean release = exclusive || prefetched.isEmpty();
        if (!untold) {
            shard.committed(newPosition, outOfOrder, release, epoch);
            if (shared) {
                rt.trimCache(shard.shardNo);
            }
        } else {
            shard.lost(); // the application commits: re-read the cursor on the next lease
        }
        taken.clear();
        delivered.clear();
        attemptsToClear = false;
        outOfOrder.clear();
        mover = false;
        if (release) {
            sub.released(shard.mayHaveAvailable());
        }
        return release;
    }

    /**
     * The transaction rolled back or failed: aborts this claim's cursor move, counts one more
     * delivery attempt for what it delivered ({@code countAttempts}, with the destination's
     * redelivery delay) and gives everything it holds back to the shard.
     *
     * @throws ShardQException when the attempts could not be recorded (everything is given back all the same)
     */
    void giveBackAll(Engine engine, boolean countAttempts) {
        if (mover) {
            shard.moveAborted(epoch);
            mover = false;
        }
        ShardQException failure = null;
        if (countAttempts && !delivered.isEmpty() && current()) {
            try {
                recordAttempts(engine);
            } catch (ShardQException e) {
                failure = e;
            }
        }
        List<Long> back = new ArrayList<>(taken);
        back.addAll(prefetched);
        Map<Long, Long> delays = Map.of();
        if (countAttempts && !delivered.isEmpty() && current()) {
            delays = new HashMap<>();
            DestinationInfo d = rt.info();
            for (long seq : delivered) {
                long ms = engine.settings()
                        .redeliveryDelayMillis(
                                shard.attempts.getOrDefault(seq, 1), d.redeliveryDelayMs(), d.redeliveryMultiplier());
                if (ms > 0) {
                    delays.put(seq, TimeUnit.MILLISECONDS.toNanos(ms));
                }
            }
        }
        boolean available = shard.giveBack(back, true, epoch, delays);
        sub.released(available);
        if (failure != null) {
            throw failure;
        }
    }

    private void recordAttempts(Engine engine) {
        DestinationInfo d = rt.info();
        try (Connection c = engine.borrowConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.DELIVERY_ATTEMPT_INCREMENT))) {
            ps.setLong(1, sub.id());
            ps.setInt(2, shard.shardNo);
            ps.setArray(3, c.createArrayOf("bigint", delivered.toArray()));
            ps.executeUpdate();
            for (long seq : delivered) {
                shard.attempts.merge(seq, 1, Integer::sum);
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "recording delivery attempts on " + d.name());
        }
    }
}
