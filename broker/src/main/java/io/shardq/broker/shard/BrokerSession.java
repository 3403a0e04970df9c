package io.shardq.broker.shard;

import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.selector.Selector;
import io.shardq.broker.store.LargeBodies;
import java.io.InputStream;
import java.sql.Connection;
import java.util.List;
import java.util.Map;

/**
 * The engine's side of one JMS session: what it sends and receives, and the one database
 * transaction that makes it durable. Not thread-safe (a JMS session is single-threaded).
 *
 * <p>The session keeps its mode, its connection ({@link SessionConnection}) and the orchestration
 * of commit, rollback, recover and close; the work itself lives in objects that own their state:
 * what it sends in a {@link SendBuffer}, what each consumer holds of its subscription in a {@link
 * ConsumerCursor}, its non-persistent messages in {@link NonPersistentWork}, the transaction's
 * callbacks in {@link TransactionSynchronizations}, two-phase commit in {@link XaBranch}. A commit
 * is planned by {@link CommitPlan} (its statement order keeps commits free of deadlocks) and
 * completed in memory by {@link AfterCommit}.
 */
public final class BrokerSession implements AutoCloseable {
    /** How consumption is acknowledged, as in JMS. */
    public enum Mode {
        TRANSACTED,
        AUTO_ACKNOWLEDGE,
        CLIENT_ACKNOWLEDGE,
        DUPS_OK_ACKNOWLEDGE
    }

    public static final String DEAD_LETTER_REASON = "JMS_ShardQ_DeadLetterReason";
    public static final String ORIGINAL_DESTINATION = "JMS_ShardQ_OriginalDestination";
    /** On a message in an expiry queue: its JMSExpiration (epoch ms) before it was moved there. */
    public static final String ACTUAL_EXPIRY = "JMS_ShardQ_ActualExpiry";

    private final Engine engine;
    private final Mode mode;
    /** The transaction's connection: the application's, or one borrowed from the pool. */
    private final SessionConnection connection;
    /**
     * A session on an application's connection that is told how each of the application's
     * transactions ended ({@link #transactionEnded}): what {@link #commit()} wrote stays in flight
     * in memory until then. Without it the instance forgets the shards it consumed from at {@code
     * commit()} and re-reads them from PostgreSQL (see {@link #commit()}).
     */
    private final boolean awaitsOutcome;

    /** What this transaction sends: batches per (destination, shard), the pinned shards, delayed sends. */
    private final SendBuffer sends;

    /** The open consumers, and what the session holds of each subscription it receives from. */
    private final SessionConsumers consumers;
    /** The non-persistent messages of this transaction: sent, taken, moved aside. */
    private final NonPersistentWork nonPersistent;
    /** Where consumed messages that are not delivered go: dead-letter and expiry queues. */
    private final DeadLetters deadLetters;

    private boolean closed;

    public BrokerSession(Engine engine, Mode mode, Connection external) {
        this(engine, mode, external, false, false);
    }

    /**
     * @param awaitsOutcome with {@code external}: the application reports how each of its
     *     transactions ended through {@link #transactionEnded}
     * @param xa a session whose transactions a transaction manager drives (see {@link #prepare}):
     *     transacted, on the engine's own connections, and it works only while {@link
     *     #xaAssociate associated} with a transaction branch
     */
    public BrokerSession(Engine engine, Mode mode, Connection external, boolean awaitsOutcome, boolean xa) {
        if (xa && external != null) {
            throw new ShardQException(
                    ErrorKind.INVALID_ARGUMENT, "an XA session runs on the engine's connections, not an application's");
        }
        this.engine = engine;
        this.mode = external != null || xa ? Mode.TRANSACTED : mode;
        this.connection = new SessionConnection(engine, external);
        this.awaitsOutcome = external != null && awaitsOutcome;
        this.xa = new XaBranch(xa);
        this.nonPersistent = new NonPersistentWork(engine);
        this.sends =
                new SendBuffer(engine, this.mode == Mode.TRANSACTED, connection, () -> origin, this.xa, nonPersistent);
        this.deadLetters = new DeadLetters(engine, sends::deadLetter, nonPersistent);
        this.consumers = new SessionConsumers(
                engine,
                sub -> new ConsumerCursor(sub, engine, this, receiving, this::prefetch, nonPersistent, deadLetters));
        this.after = new AfterCommit(engine, sends, nonPersistent, this.xa, consumers.cursors(), consumers.open());
    }

    /** True when this session runs on an application's connection, which the application commits. */
    public boolean onApplicationConnection() {
        return connection.external();
    }

    public Mode mode() {
        return mode;
    }

    private TopicView.Origin origin = TopicView.Origin.NONE;

    /**
     * Who this session publishes as, for topic subscribers with noLocal: the JMS client id (null
     * when none is set) and the connection's id. Set by the JMS layer when it opens the session.
     */
    public void origin(String clientId, String connectionId) {
        this.origin = new TopicView.Origin(clientId, connectionId);
    }

    /** True while the session has sends, receives or held-back writes that are not committed yet. */
    public boolean hasUncommittedWork() {
        return after.awaitingOutcome()
                || sends.hasWork()
                || nonPersistent.hasWork()
                || consumers.hasTaken()
                || synchronizations.hasDeferred(); // (prepare must not vote read-only over held-back puts)
    }

    /** The session's cursor of {@code sub}: its consumers of it, and receives by name, share it. */
    ConsumerCursor cursor(Subscription sub) {
        return consumers.cursor(sub);
    }

    /** What a receive asks of this session's transaction. */
    private final ConsumerCursor.Transaction receiving = new ConsumerCursor.Transaction(
            this::checkWork, this::autoAcknowledge, () -> commitWork(true, true), this::hasUncommittedWork);

    private boolean autoAcknowledge() {
        return mode == Mode.AUTO_ACKNOWLEDGE || mode == Mode.DUPS_OK_ACKNOWLEDGE;
    }

    /** A producer for {@code destination}, or for any destination when it is null. */
    public BrokerProducer createProducer(String destination) {
        checkOpen();
        if (destination != null) {
            engine.runtime(destination, true); // an unknown queue fails here, not at the first send
        }
        return new BrokerProducer(this, destination);
    }

    /** A consumer of {@code destination}, of every message or of those matching {@code selector}. */
    public BrokerConsumer createConsumer(String destination, Selector selector) {
        checkOpen();
        return consumers.opened(new BrokerConsumer(this, destination, selector, consumers.queue(destination)));
    }

    /**
     * A consumer of a topic subscription: attaches to the subscription {@code spec} names, or
     * creates it, following JMS's rules (see {@code shardq.subscribe}). The subscription's
     * selector was applied when each message was published; this consumer receives every message
     * carrying the subscription's bit.
     */
    public BrokerConsumer subscribe(String topic, io.shardq.broker.SubscriptionSpec spec) {
        checkOpen();
        return consumers.opened(new BrokerConsumer(this, topic, null, consumers.subscription(topic, spec)));
    }

    /** A consumer closed (see {@link SessionConsumers#closed}). */
    void consumerClosed(BrokerConsumer c) {
        consumers.closed(c, closed);
    }

    /** Sends (transacted: buffers until commit) one message to a destination. */
    public void send(String destination, BrokerMessage message) {
        checkWork();
        sends.send(destination, message);
        if (mode != Mode.TRANSACTED) {
            commitWork(true, false);
        }
    }

    /**
     * Sends one message whose body is {@code body}, read to its end and written as chunks now, in
     * this session's transaction, before the shard's row is locked (see {@link LargeBodies}); the
     * message itself is buffered and written as {@link #send(String, BrokerMessage)} does, never
     * through the shard's group-commit writer. Outside a transaction the send commits at once.
     * Persistent messages without a delivery delay only. When the stream fails, nothing of this send
     * is kept and the transaction's other work is untouched.
     *
     * @param message the message; its own body must be empty
     * @throws ShardQException {@code INVALID_ARGUMENT} for a message that cannot be streamed or a
     *     stream that failed
     */
    public void send(String destination, BrokerMessage message, InputStream body) {
        checkWork();
        sends.sendStreamed(destination, message, body);
        if (mode != Mode.TRANSACTED) {
            commitWork(true, false);
        }
    }

    /**
     * Sends several messages as one unit: outside a transaction, one commit for all of them (all
     * or none: a refusal of any writes none), in a transacted session each is buffered as by
     * {@link #send}. The JMS layer's asynchronous sends are written this way, so a producer that
     * sends faster than PostgreSQL commits gets its messages written in batches.
     */
    public void sendAll(List<Map.Entry<String, BrokerMessage>> unit) {
        checkWork();
        if (mode == Mode.TRANSACTED) {
            for (Map.Entry<String, BrokerMessage> e : unit) {
                send(e.getKey(), e.getValue());
            }
            return;
        }
        sends.sendUnit(unit);
        commitWork(true, false);
    }

    /** Each transaction goes to the next shard (bulk loads; no order across transactions): see SendBuffer. */
    public void spreadShards() {
        sends.spreadShards();
    }

    /** The JMSX property a message group is named by (JMS 3.1, 3.5.9). */
    public static final String GROUP_ID = "JMSXGroupID";

    /**
     * Receives the next message of a queue.
     *
     * @param timeoutMillis 0 waits for ever, a negative value does not wait
     * @param deferAck in AUTO/DUPS_OK mode, leave the consumption to {@link #acknowledge()}
     *     (message listeners acknowledge after onMessage returns)
     * @return the delivery, or null when none arrived in time
     */
    public Delivery receive(String destination, long timeoutMillis, boolean deferAck) {
        return receive(destination, timeoutMillis, deferAck, null);
    }

    /**
     * Receives the next message of a queue that matches {@code selector} (null: any). Messages
     * that do not match stay in the queue for other consumers.
     */
    public Delivery receive(String destination, long timeoutMillis, boolean deferAck, Selector selector) {
        checkOpen();
        DestinationRuntime rt = engine.runtime(destination, true);
        return cursor(rt.queue()).receive(destination, timeoutMillis, deferAck, selector);
    }

    /** What follows a commit or its failure: publication, completion, flow control; discard, give-back. */
    private final AfterCommit after;

    /**
     * Messages taken from a shard at once: one when every receive is acknowledged alone, else
     * the setting or, if larger, what the last transaction consumed (so a transaction mostly
     * covers one contiguous range of a shard and its commit moves the cursor).
     */
    private int prefetch() {
        if (autoAcknowledge()) {
            return 1;
        }
        return Math.max(engine.settings().prefetch(), after.lastTransactionSize());
    }

    /**
     * Commits everything: sends and receives (transacted sessions). On an application's connection
     * it writes the work into the application's transaction and does not commit it. Then, in a
     * session opened to await outcomes, the work stays in flight here (nothing else may be done on
     * the session) until {@link #transactionEnded} says how the application's transaction ended;
     * in any other such session the instance takes the work as done and forgets the shards it
     * consumed from, so the next lease re-reads their cursors (waiting for the application's
     * transaction to end): a rolled-back receive is then found again, but not counted as a
     * delivery attempt.
     */
    public void commit() {
        checkOpen();
        if (awaitsOutcome) {
            connection.requireTransactionBlock();
        }
        xa.checkNotPrepared();
        commitOrRollBack(null);
        if (!after.awaitingOutcome()) {
            synchronizations.completed(true); // (an awaiting session runs its actions when the outcome is told)
        }
    }

    /** How an application's transaction, that a session on its connection wrote into, ended. */
    public enum Outcome {
        COMMITTED,
        ROLLED_BACK,
        /** The commit's outcome is not known (its connection was lost while it ran). */
        UNKNOWN
    }

    /**
     * For a session opened to await outcomes ({@code Broker#openSession(Connection, boolean)}): the
     * application's transaction on the session's connection ended. What {@link #commit()} wrote
     * into it becomes visible here when it committed (sent messages cached and their consumers
     * woken, consumed messages final); when it rolled back, the consumed messages are given back
     * and delivered again, counted as a failed delivery (redelivery delay, dead letter after the
     * destination's attempts), and the sent ones are dropped; when the outcome is unknown, the
     * instance forgets the shards consumed from and re-reads them from PostgreSQL, as after a
     * commit in doubt. Work the session did not write (no {@code commit()} in that transaction) is
     * rolled back in any case. The session may be used for the next transaction afterwards.
     */
    public void transactionEnded(Outcome outcome) {
        java.util.Objects.requireNonNull(outcome, "outcome");
        if (closed) {
            throw new ShardQException(ErrorKind.ILLEGAL_STATE, "the session is closed");
        }
        if (!awaitsOutcome) {
            throw new ShardQException(
                    ErrorKind.ILLEGAL_STATE,
                    "this session was not opened to be told outcomes: open it with Broker#openSession(connection, true)");
        }
        if (!after.awaitingOutcome()) {
            rollbackWork(); // nothing of this session was written into that transaction
            return;
        }
        synchronizations.completed(after.outcome(outcome, origin));
    }

    /** True while what {@link #commit()} wrote waits for {@link #transactionEnded}. */
    public boolean awaitingOutcome() {
        return after.awaitingOutcome();
    }

    /** What others attach to the current transaction: before-commit, on-commit and on-rollback actions. */
    private final TransactionSynchronizations synchronizations = new TransactionSynchronizations();

    /**
     * The current transaction's synchronizations, for engine parts that keep state per transaction
     * (see {@link TransactionSynchronizations#resource}).
     */
    public TransactionSynchronizations synchronizations() {
        checkOpen();
        return synchronizations;
    }

    /** Runs {@code action} once after the current transaction commits (see {@link TransactionSynchronizations#onCommit}). */
    public void onCommit(Runnable action) {
        checkOpen();
        synchronizations.onCommit(action);
    }

    /** Runs {@code action} once after the current transaction rolls back (see {@link TransactionSynchronizations#onRollback}). */
    public void onRollback(Runnable action) {
        checkOpen();
        synchronizations.onRollback(action);
    }

    /** An action that runs in the transaction, on its connection, just before COMMIT. */
    @FunctionalInterface
    public interface BeforeCommit extends TransactionSynchronizations.BeforeCommit {}

    /** Runs {@code action} in the transaction just before COMMIT (see {@link TransactionSynchronizations#beforeCommit}). */
    public void beforeCommit(BeforeCommit action) {
        checkOpen();
        synchronizations.beforeCommit(action);
    }

    /** Two-phase commit: the branch association, the prepared transaction, deferred wake-ups. */
    private final XaBranch xa;

    /** True for a session a transaction manager drives (see {@link #prepare}). */
    public boolean isXa() {
        return xa.isXa();
    }

    /**
     * An XA session enters ({@code true}: {@code XAResource.start}) or leaves ({@code end}) its
     * transaction branch; it sends and receives only in between. Refused while a prepared
     * transaction waits for its outcome.
     */
    public void xaAssociate(boolean associated) {
        checkOpen();
        xa.associate(associated);
    }

    /** The global transaction id of the transaction prepared and not yet decided, or null. */
    public String preparedGid() {
        return xa.preparedGid();
    }

    /**
     * The first phase of a two-phase commit: writes the transaction's work as a commit would
     * (sends, cursor moves, before-commit actions) and ends it with {@code PREPARE TRANSACTION
     * 'gid'} instead of COMMIT. The work is then durable but undecided: its row locks stay held by
     * PostgreSQL (the shard rows of its sends, the cursor rows of its receives), so nothing it did is
     * seen, delivered again or lost until {@link io.shardq.broker.TwoPhaseCommit#commit} or {@link
     * io.shardq.broker.TwoPhaseCommit#rollback} decides it, from this instance or another, before or after a crash.
     * In memory the messages it received stay claimed by this session and its sends unpublished
     * until the outcome arrives; the session takes no new work meanwhile.
     *
     * @param gid the transaction's global id (see {@link PreparedTransactions#validate})
     * @return false when the transaction did nothing: there is nothing to prepare or decide (XA's
     *     read-only vote); its on-commit actions ran
     * @throws ShardQException as a failed {@link #commit()} does (the transaction rolled back), or
     *     {@code CONFIGURATION} naming {@code max_prepared_transactions} when the server has none
     */
    public boolean prepare(String gid) {
        checkOpen();
        xa.checkCanPrepare();
        PreparedTransactions.validate(gid);
        if (!hasUncommittedWork() && !connection.open() && !synchronizations.hasBeforeCommit()) {
            synchronizations.completed(true);
            return false;
        }
        commitOrRollBack(gid);
        return true;
    }

    /**
     * The outcome of the prepared transaction arrived (its COMMIT PREPARED or ROLLBACK PREPARED
     * ran): a commit publishes its sends and makes its receives final in memory, as {@link
     * #commit()} does after COMMIT; a rollback gives the received messages back for redelivery with
     * one more delivery attempt, as {@link #rollback()} does.
     */
    void completePrepared(boolean committed) {
        XaBranch.Prepared p = xa.take();
        if (p == null) {
            return;
        }
        if (closed) {
            return; // close() forgot the work already
        }
        if (committed) {
            finishCommit(p.plan(), true, true);
            synchronizations.completed(true);
        } else {
            sends.reportRolledBack(p.plan().batches);
            after.failed(true);
            synchronizations.completed(false);
        }
    }

    /**
     * The prepared transaction's outcome is not known here (the session closed before it, or it was
     * decided elsewhere): what this instance holds of its shards is forgotten, so their state is read
     * again from PostgreSQL when the lease is taken again, which waits until the outcome is decided
     * (see {@code cursor_lease_acquire}).
     */
    void forgetPrepared() {
        XaBranch.Prepared p = xa.take();
        if (p == null) {
            return;
        }
        engine.preparedTransactions().unregister(p.gid(), this);
        after.forgotten();
        synchronizations.forget();
    }

    /** Consumes every message delivered so far (CLIENT_ACKNOWLEDGE, or deferred AUTO acks). */
    public void acknowledge() {
        checkOpen();
        xa.checkNotPrepared();
        commitWork(true, true);
    }

    /** Discards sends and redelivers receives (transacted sessions). */
    public void rollback() {
        checkOpen();
        xa.checkNotPrepared();
        rollbackWork();
    }

    /** Redelivers every unacknowledged message (CLIENT_ACKNOWLEDGE and AUTO). */
    public void recover() {
        checkOpen();
        xa.checkNotPrepared();
        rollbackWork();
    }

    /**
     * The JDBC connection of the current transaction, for the application's own SQL: it commits
     * and rolls back with the session. Do not commit or close it yourself.
     */
    public Connection connection() {
        checkOpen();
        Connection c = connection.shared(mode == Mode.TRANSACTED);
        if (synchronizations.hasDeferred()) {
            synchronizations.writeDeferred(this); // what anyone does on it sees the held-back writes
        }
        return c;
    }

    /** Commits (or prepares) everything; when that fails, the rollback actions run too. */
    private void commitOrRollBack(String gid) {
        try {
            commitWork(true, true, gid);
        } catch (RuntimeException e) {
            try {
                synchronizations.completed(false);
            } catch (RuntimeException actionFailed) {
                e.addSuppressed(actionFailed); // the commit's failure is the one to report
            }
            throw e;
        }
    }

    private void commitWork(boolean sends, boolean consumption) {
        commitWork(sends, consumption, null);
    }

    /**
     * Plans the commit ({@link CommitPlan}) and runs it; with a {@code gid}, the transaction is
     * prepared instead, and what a commit does in memory waits in the {@link XaBranch} for the
     * outcome ({@link #completePrepared}).
     */
    private void commitWork(boolean sending, boolean consumption, String gid) {
        if (synchronizations.hasDeferred()) {
            if (gid == null
                    && sending
                    && consumption
                    && !connection.open()
                    && !connection.external()
                    && !sends.hasWork()
                    && !nonPersistent.hasWork()
                    && !consumers.hasTaken()
                    && !synchronizations.hasBeforeCommit()
                    && synchronizations.deferredShareable()) {
                // the transaction holds nothing but held-back work: it commits in a shared transaction
                try {
                    synchronizations.commitDeferredShared();
                } catch (ShardQException e) {
                    throw e.kind() == ErrorKind.CONNECTION ? AfterCommit.inDoubt(e) : AfterCommit.rolledBack(e);
                }
            } else {
                try {
                    synchronizations.writeDeferred(this);
                } catch (RuntimeException e) {
                    // the commit fails before it began: the whole transaction is rolled back
                    rollbackWork();
                    throw e instanceof ShardQException se && se.kind() != ErrorKind.CONNECTION
                            ? AfterCommit.rolledBack(se)
                            : e;
                }
            }
        }
        CommitPlan plan = CommitPlan.of(
                sends,
                consumers.cursors(),
                after,
                sending,
                consumption,
                connection.open(),
                connection.external(),
                synchronizations.hasBeforeCommit(),
                gid);
        plan.run(engine, connection, sends, synchronizations, after, mode == Mode.TRANSACTED, origin);
        if (gid != null) {
            xa.prepared(engine, this, new XaBranch.Prepared(gid, plan));
            return;
        }
        finishCommit(plan, sending, consumption);
    }

    /** What a commit does in memory once its transaction committed: publish, release, count. */
    private void finishCommit(CommitPlan plan, boolean sending, boolean consumption) {
        long earliest = after.written(plan);
        if (awaitsOutcome) {
            // written into the application's transaction, which commits or rolls back later: the
            // moves stay planned (this shard's mover in flight), the sends unpublished, until told
            after.awaitOutcome(plan, earliest);
            return;
        }
        after.committed(plan, earliest, sending, consumption, untold(), origin, !connection.external());
    }

    /**
     * On an application's connection whose outcomes this session is not told: after commit() the
     * application may still roll back, so memory must not take the work as done.
     */
    private boolean untold() {
        return connection.external() && !awaitsOutcome;
    }

    private void rollbackWork() {
        connection.rollbackOpen();
        sends.reportRolledBack(sends.written());
        after.failed(true);
        synchronizations.completed(false);
    }

    private void checkOpen() {
        if (closed) {
            throw new ShardQException(ErrorKind.ILLEGAL_STATE, "the session is closed");
        }
        if (after.awaitingOutcome()) {
            throw new ShardQException(
                    ErrorKind.ILLEGAL_STATE,
                    "this session's work is written into the application's transaction, which has not"
                            + " ended yet: report its outcome (transactionEnded) before using the session again");
        }
    }

    /** Before a send or a receive: open, not prepared, and (XA) inside a transaction branch. */
    private void checkWork() {
        checkOpen();
        xa.checkWork();
    }

    /** Rolls back whatever is uncommitted (JMS: closing a session rolls back its transaction). */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        try {
            if (after.awaitingOutcome()) {
                transactionEnded(Outcome.UNKNOWN); // closed before the application said how it ended
            }
            if (xa.isPrepared()) {
                // not ours to decide: the transaction manager commits or rolls it back, maybe elsewhere
                forgetPrepared();
            } else if (hasUncommittedWork() || connection.open() || consumers.holdsClaims()) {
                rollbackWork();
            }
        } finally {
            closed = true;
            consumers.sessionClosed();
        }
    }
}
