package io.shardq.broker.shard;

import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.Query;
import io.shardq.broker.internal.SqlErrors;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/**
 * One commit of a session, planned: what it writes (send batches in (destination, shard) order,
 * delayed sends, cursor moves in (destination, shard, subscription) order, before-commit actions)
 * and the route it takes to PostgreSQL. Routes, cheapest first:
 *
 * <ul>
 *   <li>{@link Route#GROUPED_SEND}: nothing but one batch of sends, outside a transaction: through
 *       the instance's {@link SendCommitter}, combined with other sessions' batches (to any shard);
 *   <li>{@link Route#GROUPED_CURSOR_MOVE}: nothing but a topic subscription's plain cursor move:
 *       through the topic's {@link CursorWriter}, one statement with other sessions' moves;
 *   <li>{@link Route#ONE_STATEMENT}: nothing but one claim's move or log: one autocommit statement;
 *   <li>{@link Route#TRANSACTION}: anything else: the statements in one transaction, then COMMIT
 *       (on an application's connection: no COMMIT, the application commits);
 *   <li>{@link Route#XA_PREPARE}: as a transaction, ended by {@code PREPARE TRANSACTION}.
 * </ul>
 *
 * <p><b>Invariants.</b> Every statement that locks a row runs in one global order, so two commits
 * never deadlock: the shard rows (enqueue reservations, dead letters included) in (destination,
 * shard) order, then the cursor rows in (destination, shard) order, each cursor row updated before
 * its dequeue-log rows are written. Once the statement that commits is on its way, a lost connection
 * makes the outcome in doubt, reported as {@code IN_DOUBT} and never as a rollback. A failure hands
 * the commit to {@link AfterCommit}, which discards it; success leaves the in-memory outcome to the
 * session (publish now, keep for the application's outcome, or keep for the XA decision).
 *
 * <p><b>Threading.</b> Made and run on the session's thread; the grouped routes hand their
 * statement to a writer thread shared by the instance and wait for it.
 */
final class CommitPlan {
    /** How the commit reaches PostgreSQL. */
    enum Route {
        /** Nothing to write: the commit is in memory only. */
        NONE,
        GROUPED_SEND,
        GROUPED_CURSOR_MOVE,
        ONE_STATEMENT,
        TRANSACTION,
        XA_PREPARE
    }

    /** The order cursor rows are locked in: (destination, shard, subscription). */
    private static final Comparator<Claim> LOCK_ORDER = Comparator.comparingInt(
                    (Claim cl) -> cl.rt.info().id())
            .thenComparingInt(cl -> cl.shard.shardNo)
            .thenComparingLong(cl -> cl.sub.id);

    final Route route;
    /** Buffered batches this commit writes, in (destination, shard) order. */
    final List<SendBuffer.Batch> toWrite;
    /** Every batch of the transaction: written ahead and written now. */
    final List<SendBuffer.Batch> batches;

    final List<SendBuffer.ScheduledSend> toSchedule;
    /** Claims whose consumption this commit makes final, in (destination, shard, subscription) order. */
    final List<Claim> moving;
    /** The gid to prepare, or null. */
    final String gid;
    /** When the commit started (System.nanoTime), for its statistics. */
    final long started;

    private CommitPlan(
            Route route,
            List<SendBuffer.Batch> toWrite,
            List<SendBuffer.Batch> batches,
            List<SendBuffer.ScheduledSend> toSchedule,
            List<Claim> moving,
            String gid,
            long started) {
        this.route = route;
        this.toWrite = toWrite;
        this.batches = batches;
        this.toSchedule = toSchedule;
        this.moving = moving;
        this.gid = gid;
        this.started = started;
    }

    /**
     * Plans the commit of the session's work: its sends when {@code sending}, its consumption when
     * {@code consumption} (dead letters go only with the consumption).
     *
     * @param transactionOpen a transaction is open on a borrowed connection
     * @param external the session runs on an application's connection
     * @param beforeCommit before-commit actions are registered
     * @throws ShardQException {@code ROLLED_BACK} when a claim is from an older lease (the work is discarded)
     */
    static CommitPlan of(
            SendBuffer sends,
            Collection<ConsumerCursor> cursors,
            AfterCommit after,
            boolean sending,
            boolean consumption,
            boolean transactionOpen,
            boolean external,
            boolean beforeCommit,
            String gid) {
        long started = System.nanoTime();
        List<SendBuffer.Batch> toWrite = sending ? sends.toWrite(consumption) : new ArrayList<>();
        List<Claim> moving = consumption ? cursorMoves(cursors, after) : List.of();
        List<SendBuffer.ScheduledSend> toSchedule = sending ? sends.toSchedule() : List.of();
        boolean dbWork = !toWrite.isEmpty()
                || !toSchedule.isEmpty()
                || sends.hasWritten()
                || !moving.isEmpty()
                || transactionOpen
                || beforeCommit
                || gid != null;
        boolean own = gid == null
                && !transactionOpen
                && !external
                && !sends.hasWritten()
                && !beforeCommit
                && toSchedule.isEmpty();
        // one claim's commit is one statement (cursor_commit_move, or the log insert)
        boolean onlyOneMove = own && toWrite.isEmpty() && moving.size() == 1;
        Route route;
        if (own && toWrite.size() == 1 && moving.isEmpty()) {
            route = Route.GROUPED_SEND;
        } else if (onlyOneMove && moving.get(0).groupable()) {
            route = Route.GROUPED_CURSOR_MOVE; // a topic subscription's plain cursor move
        } else if (!dbWork) {
            route = Route.NONE;
        } else if (gid != null) {
            route = Route.XA_PREPARE;
        } else if (onlyOneMove) {
            route = Route.ONE_STATEMENT;
        } else {
            route = Route.TRANSACTION;
        }
        List<SendBuffer.Batch> batches = new ArrayList<>(sends.written());
        batches.addAll(toWrite);
        return new CommitPlan(route, toWrite, batches, toSchedule, moving, gid, started);
    }

    /**
     * Claims whose consumption this commit makes final, in (destination, shard) order, each with
     * its new cursor position and what is logged beyond it.
     */
    private static List<Claim> cursorMoves(Collection<ConsumerCursor> cursors, AfterCommit after) {
        List<Claim> moving = new ArrayList<>();
        List<Claim> claims = new ArrayList<>();
        for (ConsumerCursor cursor : cursors) {
            cursor.claims().sort(LOCK_ORDER); // (its receives then find their prefetch in this order too)
            claims.addAll(cursor.claims());
        }
        claims.sort(LOCK_ORDER);
        for (Claim cl : claims) {
            cl.outOfOrder.clear();
            if (cl.taken.isEmpty()) {
                continue;
            }
            if (!cl.current()) {
                ShardQException e = cl.leaseLost("claim from an older lease");
                after.failed(true);
                throw e;
            }
            cl.plan();
            moving.add(cl); // what it took is at or below the new position, or logged beyond it
        }
        return moving;
    }

    /**
     * Runs the plan's statements on its route. On failure the work is discarded ({@link
     * AfterCommit#failed}) and the failure thrown: {@code ROLLED_BACK} in a transacted session,
     * {@code IN_DOUBT} when the connection was lost while the commit ran.
     */
    void run(
            Engine engine,
            SessionConnection connection,
            SendBuffer sends,
            TransactionSynchronizations synchronizations,
            AfterCommit after,
            boolean transacted,
            TopicView.Origin origin) {
        for (Claim cl : moving) {
            Runnable hook = cl.shard.afterPlan;
            if (hook != null) {
                hook.run();
            }
        }
        switch (route) {
            case NONE -> {}
            case GROUPED_SEND -> groupedSend(engine, after, transacted, origin);
            case GROUPED_CURSOR_MOVE -> groupedCursorMove(after, transacted);
            case ONE_STATEMENT, TRANSACTION, XA_PREPARE ->
                inTransaction(engine, connection, sends, synchronizations, after, transacted);
        }
    }

    private void groupedSend(Engine engine, AfterCommit after, boolean transacted, TopicView.Origin origin) {
        SendBuffer.Batch b = toWrite.get(0);
        try {
            b.firstSeq = b.rt.writer(b.shard).write(b.rt, b.shard, b.messages, origin, transacted);
            b.published = true;
        } catch (RuntimeException e) {
            boolean inDoubt = e instanceof ShardQException se && se.kind() == ErrorKind.IN_DOUBT;
            engine.sendsRolledBack(b.rt.info(), b.shard);
            after.failed(!inDoubt);
            throw e;
        }
    }

    private void groupedCursorMove(AfterCommit after, boolean transacted) {
        Claim cl = moving.get(0);
        CursorWriter.Request r = new CursorWriter.Request(
                cl.sub.id,
                cl.shard.shardNo,
                cl.startPosition,
                cl.newPosition,
                cl.logToClear,
                cl.attemptsToClear,
                cl.leaseSeq);
        RuntimeException failure = null;
        try {
            cl.rt.cursorWriter().write(r);
            if (!r.moved) {
                after.guardFailed();
                failure = cl.leaseLost("cursor was not at " + cl.startPosition);
            }
        } catch (RuntimeException e) {
            failure = transacted && e instanceof ShardQException se && se.kind() != ErrorKind.ROLLED_BACK
                    ? AfterCommit.rolledBack(
                            se) // keeps a lost connection, an in-doubt commit, an empty pool as they are
                    : e;
        }
        if (failure != null) {
            throw after.failedConsumption(
                    moving, failure, failure instanceof ShardQException se && se.kind() == ErrorKind.IN_DOUBT);
        }
    }

    private void inTransaction(
            Engine engine,
            SessionConnection connection,
            SendBuffer sends,
            TransactionSynchronizations synchronizations,
            AfterCommit after,
            boolean transacted) {
        Connection c = null;
        boolean borrowed = false;
        // the statement that commits (an autocommit statement, or COMMIT) is on its way: a
        // connection lost from then on leaves the transaction in doubt
        boolean committing = false;
        try {
            if (connection.inTransaction()) {
                c = connection.current();
            } else {
                c = connection.borrow();
                borrowed = true;
                if (route != Route.ONE_STATEMENT) {
                    c.setAutoCommit(false); // one statement needs no transaction block: one round trip
                }
            }
            for (SendBuffer.Batch b : toWrite) {
                sends.writeBatch(c, b);
            }
            SendBuffer.schedule(c, toSchedule);
            long me = engine.instanceId();
            committing = c.getAutoCommit(); // one statement: it commits itself
            for (Claim cl : moving) {
                advanceCursor(c, cl, me, after);
            }
            synchronizations.runBeforeCommit(c);
            if (gid != null) {
                committing = true; // a lost reply leaves it unknown whether the transaction is prepared
                PreparedTransactions.prepare(c, gid);
            } else if (!connection.external() && !c.getAutoCommit()) {
                committing = true;
                c.commit();
            }
        } catch (SQLException | RuntimeException e) {
            connection.rollbackQuietly(c);
            connection.release(c, borrowed);
            // outside a transacted session there is no transaction to speak of: a refusal is
            // reported with the database's reason, not as a rollback
            RuntimeException failure = e instanceof SQLException se
                    ? (transacted
                            ? AfterCommit.rolledBack(SqlErrors.translate(se, "commit"))
                            : SqlErrors.translate(se, "commit"))
                    : (RuntimeException) e;
            // the database side of these claims is uncertain: the commit may have moved their
            // cursors (a lost reply), or it found them elsewhere than this instance thought
            boolean inDoubt = committing && AfterCommit.isConnectionLoss(failure);
            sends.reportRolledBack(sends.written());
            sends.reportRolledBack(toWrite);
            sends.reportFailure(e, sends.written(), toWrite);
            after.failedConsumption(moving, failure, inDoubt);
            throw inDoubt ? AfterCommit.inDoubt(failure) : failure;
        }
        connection.release(c, borrowed);
    }

    /**
     * One statement per claim: the cursor move with its log and clean-up ({@code
     * cursor_commit_move}), or, when the cursor stays, the log of what was consumed ahead of it.
     */
    private static void advanceCursor(Connection c, Claim cl, long me, AfterCommit after) throws SQLException {
        if (cl.newPosition > cl.startPosition) {
            if (!moveCursor(
                    c,
                    cl.sub,
                    cl.shard.shardNo,
                    cl.startPosition,
                    cl.newPosition,
                    cl.outOfOrder,
                    cl.logToClear,
                    cl.attemptsToClear,
                    me,
                    cl.leaseSeq)) {
                after.guardFailed();
                throw cl.leaseLost("cursor was not at " + cl.startPosition);
            }
            return;
        }
        SeqRuns runs = SeqRuns.of(cl.outOfOrder);
        try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.DEQUEUE_RANGE_INSERT))) {
            ps.setArray(1, c.createArrayOf("bigint", runs.firsts()));
            ps.setArray(2, c.createArrayOf("bigint", runs.lasts()));
            ps.setLong(3, cl.sub.id());
            ps.setInt(4, cl.shard.shardNo);
            ps.setLong(5, me);
            ps.setLong(6, cl.leaseSeq);
            if (ps.executeUpdate() != runs.size()) {
                after.guardFailed();
                throw cl.leaseLost("lease not held when logging");
            }
        }
    }

    /**
     * Runs {@code cursor_commit_move}; false when the guard failed (nothing changed): the cursor is
     * not at {@code from}, or the lease is not this instance's acquisition {@code leaseSeq}.
     */
    static boolean moveCursor(
            Connection c,
            Subscription sub,
            int shard,
            long from,
            long to,
            List<Long> logAhead,
            boolean clearLog,
            boolean clearAttempts,
            long me,
            long leaseSeq)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.CURSOR_COMMIT_MOVE, sub.engine.onCitus()))) {
            ps.setLong(1, to);
            ps.setLong(2, sub.id());
            ps.setInt(3, shard);
            ps.setLong(4, from);
            ps.setLong(5, me);
            ps.setLong(6, leaseSeq);
            SeqRuns runs = SeqRuns.of(logAhead);
            ps.setArray(7, c.createArrayOf("bigint", runs.firsts()));
            ps.setArray(8, c.createArrayOf("bigint", runs.lasts()));
            ps.setBoolean(9, clearLog);
            ps.setBoolean(10, clearAttempts);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getLong(1) == 1;
            }
        }
    }
}
