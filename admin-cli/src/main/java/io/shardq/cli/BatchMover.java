package io.shardq.cli;

import io.shardq.broker.Admin;
import io.shardq.broker.Broker;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.ShardQException;
import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.selector.Selector;
import io.shardq.broker.shard.BrokerSession;
import io.shardq.broker.shard.Delivery;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The loop of {@code queue drain} and {@code dlq requeue}: receive up to a batch of messages of
 * a queue in one transaction, hand them over, commit; repeat until the queue is empty, {@code
 * --max} is reached, the user presses Ctrl-C, or nothing could be received for {@code --wait}
 * seconds although messages wait (another instance holds their shards' dequeue leases).
 *
 * <p>At least once, never lost: the handler makes the batch durable elsewhere (fsynced to a
 * file, or sent in the same transaction) before the receiving transaction commits. A crash
 * before the commit leaves the batch in the queue, so at worst the last batch is handed over
 * twice. Stopping (Ctrl-C) is only looked at between batches.
 *
 * <p>A commit that PostgreSQL certainly rolled back ({@link ErrorKind#ROLLED_BACK}: the shard's
 * dequeue lease passed to another instance, a deadlock, a serialisation failure) leaves the batch
 * in the queue: the handler is told to take it back ({@link Handler#rolledBack}) and the loop
 * receives again, up to {@link #MAX_ROLLBACKS} times in a row; one more ends the run, the batch
 * taken back too. Any other failure of the commit (in doubt: the connection died while it was on
 * its way) ends the run as before, leaving the batch handed over, since it may have been consumed.
 */
final class BatchMover {
    /** Hands a received batch over; must be durable when it returns (the batch is committed next). */
    interface Handler {
        void accept(BrokerSession session, List<BrokerMessage> batch) throws IOException;

        /**
         * The batch last accepted was rolled back: its messages are in the queue again and will be
         * received again (here, or by another consumer). Undo what {@link #accept} did outside the
         * transaction. Work done in the transaction (sends) was rolled back with it: nothing to do.
         */
        default void rolledBack() throws IOException {}

        /** The batch last accepted was committed. */
        default void committed() {}
    }

    enum End {
        /** The queue is empty (with a selector: nothing left matches). */
        EMPTY,
        /** --max messages were moved. */
        MAX,
        /** The user stopped it (Ctrl-C, SIGTERM). */
        STOPPED,
        /** Messages wait but none could be received for the whole --wait. */
        STALLED
    }

    record Result(long moved, End end, long remaining) {}

    /** How long one receive waits for the first message of a batch. */
    private static final long FIRST_RECEIVE_MILLIS = 1000;

    /**
     * Rolled-back commits in a row before the run gives up. Each counts a delivery attempt of its
     * messages, so more would only move them towards the dead-letter queue (5 attempts by default).
     */
    static final int MAX_ROLLBACKS = 3;

    private final Broker broker;
    private final String queue;
    private final int batch;
    private final long max;
    private final long waitMillis;
    private final GracefulStop stop;
    private final Progress progress;
    private final PrintWriter err;
    private final Selector selector;

    /**
     * @param selector take only matching messages (the others stay in order in the queue); null: all
     * @param max stop after this many messages; 0 = all
     */
    BatchMover(
            Broker broker,
            String queue,
            Selector selector,
            int batch,
            long max,
            long waitMillis,
            GracefulStop stop,
            Progress progress,
            PrintWriter err) {
        this.broker = broker;
        this.queue = queue;
        this.selector = selector;
        this.batch = batch;
        this.max = max;
        this.waitMillis = waitMillis;
        this.stop = stop;
        this.progress = progress;
        this.err = err;
    }

    Result run(Handler handler) throws IOException {
        long moved = 0;
        int rollbacks = 0; // in a row
        long lastMoveNanos = System.nanoTime();
        try (BrokerSession session = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            while (true) {
                if (stop.requested()) {
                    return new Result(moved, End.STOPPED, waiting());
                }
                if (max > 0 && moved >= max) {
                    return new Result(moved, End.MAX, waiting());
                }
                int want = (int) Math.min(batch, max > 0 ? max - moved : batch);
                List<BrokerMessage> got = receive(session, want);
                if (got == null) {
                    continue; // rolled back after creating the dead-letter queue: try again
                }
                if (!got.isEmpty()) {
                    handler.accept(session, got);
                    boolean committed;
                    try {
                        committed = commit(session, got.size(), moved, ++rollbacks);
                    } catch (ShardQException e) {
                        if (e.kind() == ErrorKind.ROLLED_BACK) {
                            handler.rolledBack(); // certainly not consumed: out of the output too
                        }
                        throw e;
                    }
                    if (!committed) {
                        handler.rolledBack();
                        continue;
                    }
                    rollbacks = 0;
                    handler.committed();
                    moved += got.size();
                    progress.advance(got.size());
                    lastMoveNanos = System.nanoTime();
                    continue;
                }
                if (session.hasUncommittedWork() && !commit(session, 0, moved, ++rollbacks)) {
                    continue; // expired messages passed over on the way: rolled back, look again
                }
                // (no reset here: "in a row" means without a batch moved in between; a receive that
                // found nothing while a lost lease was taken again does not end the series)
                long waiting = waiting();
                if (waiting == 0 || (selector != null && othersHoldShardsWithMessages() == 0)) {
                    // with a selector: every shard with messages is ours and none of them matched
                    return new Result(moved, End.EMPTY, waiting);
                }
                if (System.nanoTime() - lastMoveNanos > TimeUnit.MILLISECONDS.toNanos(waitMillis)) {
                    return new Result(moved, End.STALLED, waiting);
                }
            }
        }
    }

    /** Up to {@code want} messages; empty when none came in time; null when the batch was rolled back. */
    private List<BrokerMessage> receive(BrokerSession session, int want) {
        List<BrokerMessage> got = new ArrayList<>(want);
        try {
            while (got.size() < want) {
                Delivery d = session.receive(queue, got.isEmpty() ? FIRST_RECEIVE_MILLIS : -1, false, selector);
                if (d == null) {
                    break;
                }
                got.add(d.message());
            }
            return got;
        } catch (ShardQException e) {
            if (e.kind() == ErrorKind.UNKNOWN_DESTINATION && createMissingDeadLetterQueue()) {
                session.rollback();
                return null;
            }
            throw e;
        }
    }

    long waiting() {
        return broker.admin().queues().backlog(queue);
    }

    /**
     * Shards with messages waiting whose dequeue lease this instance does not hold: a selective
     * receive that found nothing has looked at every other shard.
     */
    private long othersHoldShardsWithMessages() {
        Admin admin = broker.admin();
        Set<Integer> mine = new HashSet<>();
        for (Admin.Lease l : admin.cluster().leases(queue)) {
            if (l.instanceId() == broker.instanceId() && l.live()) {
                mine.add(l.shardNo());
            }
        }
        return admin.queues().shards(queue).stream()
                .filter(s -> s.backlog() > 0 && !mine.contains(s.shardNo()))
                .count();
    }

    /**
     * A message reached its max attempts and the engine wants to move it to the dead-letter
     * queue, which does not exist yet: the CLI runs with automatic creation off (so typos never
     * create queues), so it creates that queue here, as an application's instance would have.
     */
    private boolean createMissingDeadLetterQueue() {
        Admin admin = broker.admin();
        DestinationInfo d = admin.require(queue);
        String dlq = d.deadLetterQueue();
        if (admin.list().stream().anyMatch(x -> x.name().equals(dlq))) {
            return false;
        }
        admin.queues()
                .createOrGet(
                        dlq, QueueOptions.DEFAULTS.withShards(broker.config().getInt(BrokerProperty.DEFAULT_SHARDS)));
        err.println("shardq: note: created the dead-letter queue " + dlq + " for messages of " + queue
                + " that reached their " + d.maxAttempts() + " delivery attempts");
        err.flush();
        return true;
    }

    /**
     * Commits; false when PostgreSQL rolled the batch back and this is at most rollback number
     * {@link #MAX_ROLLBACKS} in a row (say so on stderr; the caller tries again).
     */
    private boolean commit(BrokerSession session, int n, long movedBefore, int rollback) {
        try {
            session.commit();
            return true;
        } catch (ShardQException e) {
            if (e.kind() == ErrorKind.ROLLED_BACK && rollback <= MAX_ROLLBACKS) {
                err.println("shardq: note: a batch of " + Format.messages(n) + " was rolled back (" + e.getMessage()
                        + "); receiving it again (" + rollback + " of " + MAX_ROLLBACKS + " retries)");
                err.flush();
                return false;
            }
            throw new ShardQException(
                    e.kind(),
                    e.getMessage() + " (" + Format.messages(movedBefore) + " moved before; the last batch of "
                            + Format.messages(n) + " stays in " + queue + " and will be moved again)",
                    e);
        }
    }
}
