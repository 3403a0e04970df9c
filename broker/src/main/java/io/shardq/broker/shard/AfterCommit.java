package io.shardq.broker.shard;

import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import java.util.Collection;
import java.util.List;

/**
 * What happens in memory once a session's commit is decided. After a commit: the sends leave the
 * buffer and are published (cached, shard heads moved, local consumers woken, wake-ups sent to
 * other instances), the non-persistent messages offered, the claims completed and counted, and
 * producers paced by flow control. After a failure: everything buffered is discarded, the claims
 * give their messages back (one more delivery attempt unless the failure was the database's), and
 * the shards whose database side is in doubt are forgotten.
 *
 * <p><b>Invariants.</b> Nothing is published before its transaction committed, and nothing the
 * transaction took is given back after it committed: each commit ends in exactly one of {@link
 * #committed} (or {@link #published}) and {@link #failed}. The recovery rule for claims whose
 * database side is uncertain (a lost reply, a cursor guard that failed) is to forget the shard,
 * never to repair it in place: the next lease re-reads cursor, dequeue log and attempts.
 *
 * <p><b>Threading.</b> The session's thread only.
 */
final class AfterCommit {
    private static final int MAX_PREFETCH = 1000;

    private final Engine engine;
    private final SendBuffer sends;
    private final NonPersistentWork nonPersistent;
    private final XaBranch xa;
    private final Collection<ConsumerCursor> cursors;
    private final List<BrokerConsumer> consumers;
    /** Messages the last committed transaction consumed: the next one likely takes as many. */
    private int lastTransactionSize;
    /** Set when a cursor guard failed in this commit: the instance's idea of the cursor is wrong. */
    private boolean guardFailed;
    /** What a commit wrote into the application's transaction, until its outcome is told. */
    private InFlight inFlight;

    /** The work a commit() wrote into the application's transaction, waiting for its outcome. */
    private record InFlight(List<SendBuffer.Batch> batches, List<Claim> moving, long earliestScheduled) {}

    AfterCommit(
            Engine engine,
            SendBuffer sends,
            NonPersistentWork nonPersistent,
            XaBranch xa,
            Collection<ConsumerCursor> cursors,
            List<BrokerConsumer> consumers) {
        this.engine = engine;
        this.sends = sends;
        this.nonPersistent = nonPersistent;
        this.xa = xa;
        this.cursors = cursors;
        this.consumers = consumers;
    }

    int lastTransactionSize() {
        return lastTransactionSize;
    }

    /**
     * The plan was written into the application's transaction, which commits or rolls back later:
     * the moves stay planned (this shard's mover in flight), the sends unpublished, until {@link
     * #outcome}.
     */
    void awaitOutcome(CommitPlan plan, long earliestScheduled) {
        inFlight = new InFlight(plan.batches, plan.moving, earliestScheduled);
    }

    boolean awaitingOutcome() {
        return inFlight != null;
    }

    /**
     * The application's transaction that the awaited commit wrote into ended: committed, its work
     * is published as after a commit here; rolled back, its consumption is given back with one
     * more attempt; unknown, the shards it consumed from are forgotten (as after a commit in doubt).
     * Returns whether it committed.
     */
    boolean outcome(BrokerSession.Outcome outcome, TopicView.Origin origin) {
        InFlight f = inFlight;
        inFlight = null;
        switch (outcome) {
            case COMMITTED -> {
                if (f.earliestScheduled() != Long.MAX_VALUE) {
                    engine.scheduled(f.earliestScheduled());
                }
                published(f.batches(), true, true, false, origin);
                return true;
            }
            case ROLLED_BACK -> {
                sends.reportRolledBack(f.batches());
                failed(true); // aborts the moves, counts the attempts, gives the messages back
                return false;
            }
            default -> {
                sends.reportRolledBack(f.batches()); // perhaps dead rows: the reclaimer looks
                failedConsumption(f.moving(), null, true);
                return false;
            }
        }
    }

    /**
     * A prepared transaction's outcome is not this session's to see: what this instance holds of
     * its shards is forgotten (read again at the next lease, which waits until it is decided), and
     * everything of the transaction in memory dropped.
     */
    void forgotten() {
        for (ConsumerCursor cursor : cursors) {
            cursor.forget();
        }
        xa.clearWakes(); // the outcome is unknown here: the waiters poll
        sends.discard();
        nonPersistent.forget();
    }

    /** A cursor guard failed in the commit under way. */
    void guardFailed() {
        guardFailed = true;
    }

    /**
     * The plan's statements committed (or were prepared): its sends leave the buffer and the wake-ups
     * owed to other instances go out. Returns the earliest delivery time of its delayed sends.
     */
    long written(CommitPlan plan) {
        long earliest = sends.committed(plan.toWrite, plan.toSchedule);
        Enqueue.sendWakes(engine, xa.deferredWakes());
        return earliest;
    }

    /** The commit is final here: publish, complete, count, pace. */
    void committed(
            CommitPlan plan,
            long earliestScheduled,
            boolean sending,
            boolean consumption,
            boolean untold,
            TopicView.Origin origin,
            boolean throttle) {
        if (earliestScheduled != Long.MAX_VALUE) {
            engine.scheduled(earliestScheduled);
        }
        published(plan.batches, sending, consumption, untold, origin);
        long took = System.nanoTime() - plan.started;
        engine.stats().recordCommit(!plan.batches.isEmpty(), !plan.toSchedule.isEmpty(), !plan.moving.isEmpty(), took);
        if (throttle) {
            throttle(plan.batches);
        }
    }

    /**
     * The sends become visible (unless {@code untold}: the application may still roll back) and
     * the consumption final: the claims complete, the non-persistent messages are offered or
     * released.
     */
    void published(
            List<SendBuffer.Batch> batches,
            boolean sending,
            boolean consumption,
            boolean untold,
            TopicView.Origin origin) {
        sends.published(batches, !untold);
        if (sending) {
            nonPersistent.sendsCommitted(origin);
        }
        if (!consumption) {
            return;
        }
        nonPersistent.asideCommitted(origin);
        long delivered = 0;
        for (ConsumerCursor cursor : cursors) {
            delivered += cursor.committed(untold);
        }
        lastTransactionSize = (int) Math.min(MAX_PREFETCH, delivered);
        delivered += nonPersistent.takesCommitted();
        engine.stats().dequeued.add(delivered);
    }

    /**
     * Discards the transaction's work in memory; delivered messages count one more attempt unless
     * the failure was the database's, not the application's ({@code countAttempts} false).
     */
    void failed(boolean countAttempts) {
        xa.clearWakes();
        sends.discard();
        nonPersistent.discardSends();
        ShardQException failure = null;
        for (ConsumerCursor cursor : cursors) {
            ShardQException f = cursor.rolledBack(countAttempts);
            failure = f != null ? f : failure;
        }
        nonPersistent.takesRolledBack(countAttempts);
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * After a commit that failed: the database side of the claims is uncertain when the outcome is
     * in doubt (the commit may have moved their cursors) or a guard found a cursor elsewhere than
     * this instance thought, so those shards are forgotten and re-read; the transaction's work is
     * discarded, and a delivery attempt is counted only when the failure was not the database's
     * (a lost connection is not the application's fault). Returns {@code failure}.
     */
    RuntimeException failedConsumption(List<Claim> moving, RuntimeException failure, boolean inDoubt) {
        if (inDoubt || guardFailed) {
            forgetShards(moving);
        }
        guardFailed = false;
        failed(!inDoubt && !isConnectionLoss(failure));
        return failure;
    }

    /**
     * The recovery rule for claims whose database side is uncertain: forget what this instance
     * holds of their shards (lease, position, ranges handed out, in every session), so the next
     * lease acquisition re-reads cursor, dequeue log and attempts from PostgreSQL. Never trusted,
     * never repaired in place: a commit that did take effect is then seen as such, one that did
     * not leaves its messages to be delivered again.
     */
    private static void forgetShards(List<Claim> moving) {
        for (Claim cl : moving) {
            cl.shard.forget(cl.epoch);
        }
    }

    static boolean isConnectionLoss(RuntimeException e) {
        return e instanceof ShardQException se && se.kind() == ErrorKind.CONNECTION;
    }

    /** A commit whose connection died before its outcome was known. */
    static ShardQException inDoubt(RuntimeException cause) {
        return new ShardQException(
                ErrorKind.IN_DOUBT,
                "the connection to PostgreSQL was lost during commit, so its outcome is unknown ("
                        + cause.getMessage()
                        + "). Messages it sent may or may not have been committed; messages it consumed"
                        + " are delivered again only if the commit did not take effect",
                cause);
    }

    static ShardQException rolledBack(ShardQException e) {
        return e.kind() == ErrorKind.CONNECTION
                        || e.kind() == ErrorKind.IN_DOUBT
                        || e.kind() == ErrorKind.RESOURCE_EXHAUSTED
                ? e
                : new ShardQException(ErrorKind.ROLLED_BACK, "transaction rolled back: " + e.getMessage(), e);
    }

    /**
     * Producer flow control after a commit of sends; see {@link Subscription#throttle}. Not for a
     * destination this session also consumes from: it would wait for itself.
     */
    private void throttle(List<SendBuffer.Batch> batches) {
        Engine.Settings s = engine.settings();
        if (s.flowMaxUntaken() <= 0 && s.flowTopicMaxUntaken() <= 0) {
            return; // off (the default): nothing to look at on the commit path
        }
        DestinationRuntime last = null;
        for (SendBuffer.Batch b : batches) {
            if (b.rt != last && !consumes(b.rt.info().name())) {
                Subscription slowest = slowest(b.rt);
                if (slowest != null) {
                    slowest.throttle();
                }
            }
            last = b.rt;
        }
    }

    /**
     * The subscription flow control waits for: a queue's one, or the topic subscription served
     * here with the most committed messages untaken (the slowest local subscriber paces the
     * publishers; subscriptions without a consumer in this instance do not count).
     */
    private static Subscription slowest(DestinationRuntime rt) {
        if (rt.info().isQueue()) {
            return rt.queue();
        }
        Subscription slowest = null;
        long most = -1;
        for (Subscription sub : rt.subscriptions()) {
            if (sub.openConsumers.get() == 0) {
                continue;
            }
            long n = sub.untaken();
            if (n > most) {
                most = n;
                slowest = sub;
            }
        }
        return slowest;
    }

    private boolean consumes(String destination) {
        for (BrokerConsumer c : consumers) {
            if (c.destination().equals(destination)) {
                return true;
            }
        }
        return false;
    }
}
