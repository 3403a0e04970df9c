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

/**
 * Group commit for one shard: sessions of this instance whose commit is nothing but a batch of
 * sends to this shard hand the batch here, and one of them writes every batch waiting at that
 * moment in one statement and one commit (flat combining).
 *
 * <p>Why: the visibility rule lets one enqueue transaction per shard run at a time, holding the
 * shard row's lock until its COMMIT is flushed. Producers sharing a shard would otherwise queue in
 * PostgreSQL, each holding a pooled connection, and pay one WAL flush each. Combined, N waiting
 * batches cost one statement and one flush, and producers never wait on each other's row lock.
 *
 * <p>Each session's batch stays contiguous and in its send order; a session's commit returns
 * only after the combined transaction committed (or throws what it failed with: all batches of
 * a group commit or fail together, and a failed group is never partly visible).
 *
 * <p>Threading: see {@link FlatCombiner}.
 */
final class ShardWriter extends FlatCombiner<ShardWriter.Request> {
    private final Engine engine;
    private final DestinationRuntime rt;
    private final int shard;

    static final class Request extends FlatCombiner.Request {
        final List<BrokerMessage> messages;
        /** From a transacted session: a refusal by the database is reported as its rollback. */
        final boolean transacted;

        final Enqueue.Part part;

        Request(List<BrokerMessage> messages, TopicView.Origin origin, boolean transacted) {
            this.messages = messages;
            this.transacted = transacted;
            this.part = new Enqueue.Part(messages, origin);
        }
    }

    ShardWriter(Engine engine, DestinationRuntime rt, int shard) {
        this.engine = engine;
        this.rt = rt;
        this.shard = shard;
    }

    /**
     * Writes and commits {@code messages}, combined with other sessions' batches for the shard.
     * On return they are committed, cached and visible to local consumers. Returns the first
     * sequence number.
     */
    long write(List<BrokerMessage> messages, TopicView.Origin origin, boolean transacted) {
        Request r = new Request(messages, origin, transacted);
        submit(r);
        return r.part.firstSeq;
    }

    @Override
    protected boolean fits(List<Request> group, Request next) {
        int rows = next.messages.size();
        for (Request q : group) {
            rows += q.messages.size();
        }
        return rows <= Enqueue.FAST_MAX_ROWS;
    }

    @Override
    protected void run(List<Request> group) {
        List<Enqueue.Part> parts = new ArrayList<>(group.size());
        for (Request q : group) {
            parts.add(q.part);
        }
        if (group.size() > 1) {
            engine.stats().combinedWrites.add(group.size() - 1);
        }
        List<Enqueue.TentativeSlice> tentative = new ArrayList<>();
        RuntimeException failure = null;
        ShardQException refused = null; // the database refused the statement: a rollback in a transaction
        long first = -1;
        boolean committing = false; // the statement that commits is on its way: a lost connection leaves it in doubt
        try (Connection c = engine.dataSource().getConnection()) {
            try {
                committing = true; // the fast path is one statement in autocommit
                first = Enqueue.insertReserving(engine, c, rt, shard, parts);
                if (first < 0) {
                    committing = false;
                    c.setAutoCommit(false);
                    first = Enqueue.reserveAndInsert(engine, c, rt, shard, parts, tentative);
                    committing = true;
                    c.commit();
                }
            } catch (SQLException | RuntimeException e) {
                rollbackQuietly(c);
                throw e;
            } finally {
                restoreAutoCommit(c);
            }
        } catch (SQLException e) {
            ShardQException t = SqlErrors.translate(e, "commit");
            if (committing && t.kind() == ErrorKind.CONNECTION) {
                failure = AfterCommit.inDoubt(t);
            } else {
                failure = t;
                refused = t;
            }
        } catch (ShardQException e) {
            failure = e;
        } catch (RuntimeException e) {
            failure = e;
        }
        if (failure == null) {
            Enqueue.publish(tentative);
            int dest = rt.info().id();
            long last = first - 1;
            for (Enqueue.Part p : parts) {
                long seq = p.firstSeq;
                for (BrokerMessage m : p.stored) {
                    engine.cache().put(dest, shard, seq++, m);
                }
                last = Math.max(last, seq - 1);
            }
            if (last >= first) {
                rt.advanceHead(shard, last);
            }
        }
        for (Request q : group) {
            q.finish(refused != null && q.transacted ? AfterCommit.rolledBack(refused) : failure);
        }
    }
}
