package io.shardq.broker.shard;

import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.internal.FlatCombiner;
import io.shardq.broker.internal.SqlErrors;
import io.shardq.broker.message.BrokerMessage;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Group commit of send batches: sessions whose commit is nothing but one batch of sends to one
 * shard hand it here, and one of them writes every batch waiting at that moment and commits once
 * (flat combining: the next group forms while one runs, so nobody waits longer than the group in
 * front of it, and nothing waits at all when nothing else is running).
 *
 * <p>Scope ({@code shardq.commit.shared-sends}): one committer per shard (the default), whose
 * group is that shard's batches in one statement, or one per instance ({@code true}), whose group
 * carries batches to any shards and destinations in one transaction. (Off by default: on two cores
 * sharing the commit made deliveries slower, see
 * docs/benchmarks/2026-11-28-what-bounds-the-queue.md.) A group of one shard is one autocommit
 * statement (the fast path) as before; a group of several shards is also one autocommit
 * statement, one pair of data-modifying CTEs per shard in (destination, shard) order ({@link
 * Enqueue#insertReservingTogether}); a shard it could not write there (a wrong guess of the head,
 * a batch entering a new slice) is then written on its own.
 *
 * <p>Why: every transaction costs PostgreSQL a commit record and a WAL flush on top of its
 * statements, and on a CPU-bound server the commits, not the inserts, bound the rate (issue 25:
 * about 1,800 commits a second on 2 cores, ShardQ at half the INSERT ceiling). Producers pinned to
 * different shards each paid their own commit.
 *
 * <p><b>Invariants.</b> Each session's batch stays contiguous and in its send order, and its
 * commit returns only after a transaction holding it committed. One session's failure never fails
 * another's: when a shared transaction fails for a reason the database gave (a dropped
 * destination, a deadlock with another instance), each shard's batches are written again in a
 * transaction of their own and fail or succeed alone; when the connection is lost once COMMIT was
 * on its way, the outcome is unknown for every batch in it and each is reported in doubt, as a
 * lone batch would be. Nothing of a failed transaction is published (cache, heads, slices).
 *
 * <p>Threading: see {@link FlatCombiner}.
 */
public final class SendCommitter extends FlatCombiner<SendCommitter.Request> {
    private final Engine engine;

    /** One session's batch for one shard. */
    public static final class Request extends FlatCombiner.Request {
        final DestinationRuntime rt;
        final int shard;
        final List<BrokerMessage> messages;
        /** From a transacted session: a refusal by the database is reported as its rollback. */
        final boolean transacted;

        final Enqueue.Part part;

        Request(
                DestinationRuntime rt,
                int shard,
                List<BrokerMessage> messages,
                TopicView.Origin origin,
                boolean transacted) {
            this.rt = rt;
            this.shard = shard;
            this.messages = messages;
            this.transacted = transacted;
            this.part = new Enqueue.Part(messages, origin);
        }
    }

    /** One shard's batches of a group: the {@link Enqueue.Target} written, and whose they are. */
    private static final class ShardBatches extends Enqueue.Target {
        final List<Request> requests = new ArrayList<>();
        final List<Enqueue.TentativeSlice> tentative = new ArrayList<>();
        /** The failure was the database's refusal (not a lost connection once committing). */
        boolean refused;

        ShardBatches(DestinationRuntime rt, int shard) {
            super(rt, shard, new ArrayList<>());
        }
    }

    /** Made by the {@link Engine} (one per instance) or by a destination (one per shard). */
    public SendCommitter(Engine engine) {
        this.engine = engine;
    }

    /**
     * Writes and commits {@code messages} to {@code shard} of {@code rt}, combined with other
     * sessions' batches. On return they are committed, cached and visible to local consumers.
     * Returns the first sequence number.
     */
    long write(
            DestinationRuntime rt,
            int shard,
            List<BrokerMessage> messages,
            TopicView.Origin origin,
            boolean transacted) {
        Request r = new Request(rt, shard, messages, origin, transacted);
        submit(r);
        return r.part.firstSeq;
    }

    @Override
    protected boolean fits(List<Request> group, Request next) {
        int rows = next.messages.size();
        int total = rows;
        for (Request q : group) {
            total += q.messages.size();
            if (q.rt == next.rt && q.shard == next.shard) {
                rows += q.messages.size();
            }
        }
        // one statement binds 8 parameters a row (and 7 a shard): PostgreSQL takes at most 65,535
        return rows <= Enqueue.FAST_MAX_ROWS && total <= MAX_ROWS && group.size() < MAX_GROUP;
    }

    /** The most rows in one group (all shards): 7,000 rows and 256 shards stay under 65,535 parameters. */
    private static final int MAX_ROWS = 7 * Enqueue.FAST_MAX_ROWS;

    /** The most batches in one group. */
    private static final int MAX_GROUP = 256;

    @Override
    protected void run(List<Request> group) {
        if (group.size() > 1) {
            engine.stats().combinedWrites.add(group.size() - 1);
        }
        // (destination, shard) order: the order every writer locks shard rows in
        Map<Long, ShardBatches> byShard = new TreeMap<>();
        for (Request q : group) {
            ShardBatches b = byShard.computeIfAbsent(
                    ((long) q.rt.info().id() << 20) | q.shard, k -> new ShardBatches(q.rt, q.shard));
            b.requests.add(q);
            b.parts.add(q.part);
        }
        List<ShardBatches> shards = new ArrayList<>(byShard.values());
        if (shards.size() == 1) {
            finish(shards.get(0), writeAlone(shards.get(0)));
            return;
        }
        engine.stats().sharedSendCommits.increment();
        RuntimeException together = writeTogether(shards);
        if (together == null) {
            for (ShardBatches b : shards) {
                // those the statement did not write (a wrong guess of the head, a new slice) go on their own
                if (b.first < 0) {
                    engine.stats().sharedSendAlone.increment();
                }
                finish(b, b.first >= 0 ? null : writeAlone(b));
            }
            return;
        }
        if (together instanceof ShardQException se && se.kind() == ErrorKind.IN_DOUBT) {
            for (ShardBatches b : shards) {
                finish(b, together);
            }
            return;
        }
        // the database refused the statement: each shard's batches on their own
        engine.stats().sharedSendRetries.increment();
        for (ShardBatches b : shards) {
            b.first = -1;
            b.tentative.clear();
            finish(b, writeAlone(b));
        }
    }

    /**
     * The shards on the fast path in one autocommit statement ({@link
     * Enqueue#insertReservingTogether}): one round trip, one commit. Sets {@code first} of the
     * shards it wrote; the others are left as they were. Null when it ran, else what it failed with
     * ({@code IN_DOUBT} when the connection was lost once it was sent).
     */
    private RuntimeException writeTogether(List<ShardBatches> shards) {
        boolean committing = false;
        try (Connection c = engine.borrowConnection()) {
            committing = true; // one statement in autocommit: it commits itself
            Enqueue.insertReservingTogether(engine, c, shards);
            return null;
        } catch (SQLException e) {
            ShardQException t = SqlErrors.translate(e, "commit");
            return committing && t.kind() == ErrorKind.CONNECTION ? AfterCommit.inDoubt(t) : t;
        } catch (RuntimeException e) {
            return e;
        }
    }

    /**
     * One shard's batches: the fast path's one autocommit statement, else reserve-then-insert in a
     * transaction. Null when committed, else what it failed with.
     */
    private RuntimeException writeAlone(ShardBatches b) {
        boolean committing = false; // the statement that commits is on its way: a lost connection leaves it in doubt
        try (Connection c = engine.borrowConnection()) {
            try {
                committing = true; // the fast path is one statement in autocommit
                b.first = Enqueue.insertReserving(engine, c, b.rt, b.shard, b.parts);
                if (b.first < 0) {
                    committing = false;
                    c.setAutoCommit(false);
                    b.first = Enqueue.reserveAndInsert(engine, c, b.rt, b.shard, b.parts, b.tentative);
                    committing = true;
                    c.commit();
                }
                return null;
            } catch (SQLException | RuntimeException e) {
                rollbackQuietly(c);
                throw e;
            } finally {
                restoreAutoCommit(c);
            }
        } catch (SQLException e) {
            ShardQException t = SqlErrors.translate(e, "commit");
            if (committing && t.kind() == ErrorKind.CONNECTION) {
                return AfterCommit.inDoubt(t);
            }
            b.refused = true;
            return t;
        } catch (RuntimeException e) {
            return e;
        }
    }

    /** Publishes a committed shard's batches (slices, cache, head) and tells their sessions. */
    private void finish(ShardBatches b, RuntimeException failure) {
        if (failure == null) {
            Enqueue.publish(b.tentative);
            int dest = b.rt.info().id();
            long last = b.first - 1;
            for (Enqueue.Part p : b.parts) {
                long seq = p.firstSeq;
                for (BrokerMessage m : p.stored) {
                    engine.cache().put(dest, b.shard, seq++, m);
                }
                last = Math.max(last, seq - 1);
            }
            if (last >= b.first) {
                b.rt.advanceHead(b.shard, last);
            }
        }
        if (failure != null && SqlErrors.isShardDraining(failure)) {
            engine.destinationShrank(b.rt.info()); // the next transaction goes to an active shard
        }
        // a refusal by the database is a transacted session's rollback
        for (Request q : b.requests) {
            q.finish(
                    b.refused && q.transacted && failure instanceof ShardQException se
                            ? AfterCommit.rolledBack(se)
                            : failure);
        }
    }
}
