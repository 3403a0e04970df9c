package io.shardq.broker.shard;

import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.internal.FlatCombiner;
import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.Query;
import io.shardq.broker.internal.SqlErrors;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Group commit of a topic's consumer commits: sessions whose commit is one plain cursor move of
 * one of the topic's subscriptions (nothing logged beyond it) hand it here, and one of them moves
 * every cursor waiting at that moment in <em>one statement</em> ({@code cursor_commit_moves}, in
 * autocommit): one round trip, one transaction, one WAL flush for N subscriptions' commits.
 *
 * <p>Why: a 10-subscription topic with one consumer each commits 10 cursor moves per 10 messages
 * published, and a transaction costs PostgreSQL far more than its statement (perf topic at 4
 * publishers: CPU-bound, about 180 us of server CPU per transaction). A first version ran the
 * moves one after another on one connection and committed once: that made every consumer wait
 * for the others' statements and halved deliveries; one statement does not.
 *
 * <p>A move whose guard fails (the cursor moved, the lease went) is simply not in the statement's
 * result: it fails alone ({@link Request#moved} false) and the others commit. An SQL error or a
 * lost connection fails the whole group (in doubt: the statement commits itself).
 */
final class CursorWriter extends FlatCombiner<CursorWriter.Request> {
    private final Engine engine;

    static final class Request extends FlatCombiner.Request {
        final long subscription;
        final int shard;
        final long from;
        final long to;
        final boolean clearLog;
        final boolean clearAttempts;
        /** The lease acquisition the move was planned under ({@code shardq.cursor.lease_seq}). */
        final long leaseSeq;
        /** Set by the group: the guard held and the cursor moved. */
        volatile boolean moved;

        Request(
                long subscription,
                int shard,
                long from,
                long to,
                boolean clearLog,
                boolean clearAttempts,
                long leaseSeq) {
            this.subscription = subscription;
            this.shard = shard;
            this.from = from;
            this.to = to;
            this.clearLog = clearLog;
            this.clearAttempts = clearAttempts;
            this.leaseSeq = leaseSeq;
        }
    }

    /** The most moves in one statement. */
    private static final int MAX_GROUP = 256;

    CursorWriter(Engine engine) {
        this.engine = engine;
    }

    /** Moves the cursor and commits, combined with other sessions' moves; throws what the group failed with. */
    void write(Request r) {
        submit(r);
    }

    @Override
    protected boolean fits(List<Request> group, Request next) {
        return group.size() < MAX_GROUP;
    }

    @Override
    protected void run(List<Request> group) {
        RuntimeException failure = null;
        int n = group.size();
        Object[] subs = new Object[n];
        Object[] shards = new Object[n];
        Object[] froms = new Object[n];
        Object[] tos = new Object[n];
        Object[] clearLogs = new Object[n];
        Object[] clearAttempts = new Object[n];
        Object[] leaseSeqs = new Object[n];
        for (int i = 0; i < n; i++) {
            Request r = group.get(i);
            subs[i] = r.subscription;
            shards[i] = r.shard;
            froms[i] = r.from;
            tos[i] = r.to;
            clearLogs[i] = r.clearLog;
            clearAttempts[i] = r.clearAttempts;
            leaseSeqs[i] = r.leaseSeq;
        }
        Set<Long> moved = new HashSet<>();
        try (Connection c = engine.borrowConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.CURSOR_COMMIT_MOVES))) {
            ps.setArray(1, c.createArrayOf("bigint", subs));
            ps.setArray(2, c.createArrayOf("integer", shards));
            ps.setArray(3, c.createArrayOf("bigint", froms));
            ps.setArray(4, c.createArrayOf("bigint", tos));
            ps.setArray(5, c.createArrayOf("boolean", clearLogs));
            ps.setArray(6, c.createArrayOf("boolean", clearAttempts));
            ps.setArray(7, c.createArrayOf("bigint", leaseSeqs));
            ps.setLong(8, engine.instanceId());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    moved.add(key(rs.getLong(1), rs.getInt(2)));
                }
            }
            if (n > 1) {
                engine.stats().combinedWrites.add(n - 1);
            }
        } catch (SQLException e) {
            ShardQException t = SqlErrors.translate(e, "commit");
            // one statement in autocommit: a lost connection leaves it in doubt
            failure = t.kind() == ErrorKind.CONNECTION ? AfterCommit.inDoubt(t) : t;
        } catch (RuntimeException e) {
            failure = e;
        }
        for (Request r : group) {
            r.moved = failure == null && moved.contains(key(r.subscription, r.shard));
            r.finish(failure);
        }
    }

    /** A (subscription, shard) pair as one number: shards are fewer than 2^16. */
    private static long key(long subscription, int shard) {
        return (subscription << 16) | shard;
    }
}
