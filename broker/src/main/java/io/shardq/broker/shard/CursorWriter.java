package io.shardq.broker.shard;

import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.internal.SqlErrors;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * Group commit of a topic's consumer commits: sessions whose commit is one cursor move (or one
 * log of what they took beyond the cursor) of one of the topic's subscriptions hand it here, and
 * one of them runs every move waiting at that moment in one transaction, so N subscriptions'
 * commits cost one WAL flush instead of N (flat combining, as {@link ShardWriter} does for sends).
 *
 * <p>Why topics only: the S consumers of an S-subscription topic each commit a cursor move per
 * batch, so a topic delivering what S queues would commits S times as often as its publishers.
 * {@code perf topic} found that bound (11 commits per 100 deliveries at 10 subscriptions: at most
 * 1.8x a queue's deliveries), with the backends waiting on the WAL flush. For a queue's closed-loop
 * consumers the same combining made each commit wait for others' and was slower.
 *
 * <p>A move whose guard fails (the cursor moved, the lease went) changes nothing and raises no SQL
 * error, so it fails alone and the others commit. An SQL error or a lost connection fails the
 * whole group, as one transaction does (in doubt when the COMMIT was on its way).
 */
final class CursorWriter extends FlatCombiner<CursorWriter.Request> {
    private final Engine engine;

    /** One session's cursor statement, run on the group's connection. */
    interface Move {
        void write(Connection c) throws SQLException;
    }

    static final class Request extends FlatCombiner.Request {
        final Move move;

        Request(Move move) {
            this.move = move;
        }
    }

    /** The most moves in one transaction (each is a round trip; the flush is shared). */
    private static final int MAX_GROUP = 64;

    CursorWriter(Engine engine) {
        this.engine = engine;
    }

    /** Runs {@code move} and commits it, combined with other sessions' moves; throws what it failed with. */
    void write(Move move) {
        submit(new Request(move));
    }

    @Override
    boolean fits(List<Request> group, Request next) {
        return group.size() < MAX_GROUP;
    }

    @Override
    void run(List<Request> group) {
        RuntimeException[] own = new RuntimeException[group.size()];
        RuntimeException failure = null;
        boolean single = group.size() == 1;
        boolean committing = single; // alone, the statement commits itself (autocommit)
        try (Connection c = engine.borrowConnection()) {
            try {
                if (!single) {
                    c.setAutoCommit(false);
                    engine.stats().combinedWrites.add(group.size() - 1);
                }
                for (int i = 0; i < group.size(); i++) {
                    try {
                        group.get(i).move.write(c);
                    } catch (ShardQException e) {
                        own[i] = e; // a guard that failed: nothing changed, no SQL error, the rest goes on
                    }
                }
                if (!single) {
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
            failure = committing && t.kind() == ErrorKind.CONNECTION ? BrokerSession.inDoubt(t) : t;
        } catch (RuntimeException e) {
            failure = e;
        }
        for (int i = 0; i < group.size(); i++) {
            group.get(i).finish(failure != null ? failure : own[i]);
        }
    }
}
