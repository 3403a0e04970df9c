package io.shardq.broker.shard;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * What other engine parts attach to one session's current transaction: actions run just before
 * COMMIT, on its connection ({@link #beforeCommit}), after it committed ({@link #onCommit}) or after
 * it rolled back or failed ({@link #onRollback}), and per-transaction state of their own ({@link
 * #resource}), as the key/value near caches keep the keys a transaction wrote.
 *
 * <p><b>Invariants.</b> Every action and resource belongs to exactly one transaction: when it ends
 * ({@link #completed}) or is forgotten ({@link #forget}, a prepared transaction decided elsewhere)
 * all of them are dropped, so nothing leaks into the next transaction. Resources are dropped before
 * the after-completion actions run, so an action that writes again starts the next transaction's
 * state. An exception from one after-completion action is passed on after the others ran; a
 * before-commit action's failure fails the commit.
 *
 * <p><b>Threading.</b> None of its own: it is used on its session's thread only, as the session is
 * (a JMS session is single-threaded).
 */
public final class TransactionSynchronizations {
    /** An action that runs in the transaction, on its connection, just before COMMIT. */
    @FunctionalInterface
    public interface BeforeCommit {
        void run(Connection c) throws SQLException;
    }

    /**
     * Work a session holds back until its commit, so that the commit may share a transaction with
     * other sessions' commits (issue 25): the key/value cache's plain puts. When the transaction
     * holds nothing else at the commit, it commits through {@link #commitShared} (the work's own
     * group commit, with other sessions' and callers'); otherwise, and as soon as anything else is
     * about to use the session's connection (a read, another cache operation, the application's
     * SQL, a commit that writes messages too), it is written into the session's transaction first
     * ({@link #writeInto}), so nothing on the connection ever sees the session's state without it.
     */
    public interface Deferred {
        /** True when it can commit on its own, through the shared commit. */
        boolean shareable();

        /** Commits it on its own, sharing the commit with others; throws when it did not commit. */
        void commitShared();

        /** Writes what it holds into the transaction on the session's connection, emptied first. */
        void writeInto(BrokerSession session);
    }

    private final List<Deferred> deferred = new ArrayList<>();
    private final List<BeforeCommit> beforeCommit = new ArrayList<>();
    private final List<Runnable> onCommit = new ArrayList<>();
    private final List<Runnable> onRollback = new ArrayList<>();
    /** Per-transaction state, by owner (identity). */
    private final Map<Object, Object> resources = new IdentityHashMap<>();

    TransactionSynchronizations() {}

    /** Runs {@code action} once, inside the current transaction, as the last work before COMMIT. */
    public void beforeCommit(BeforeCommit action) {
        beforeCommit.add(action);
    }

    /** Holds {@code work} back until the commit (see {@link Deferred}); dropped when the transaction rolls back. */
    public void defer(Deferred work) {
        deferred.add(work);
    }

    /** True when work is held back. */
    boolean hasDeferred() {
        return !deferred.isEmpty();
    }

    /** True when the held-back work can commit on its own, through one shared commit. */
    boolean deferredShareable() {
        return deferred.size() == 1 && deferred.get(0).shareable();
    }

    /** Commits the held-back work through its shared commit ({@link #deferredShareable()} said it can). */
    void commitDeferredShared() {
        deferred.get(0).commitShared();
    }

    /**
     * Writes the held-back work into the session's transaction. Each stays registered (it holds
     * back what the transaction puts later) and empties itself before it writes, since writing
     * uses the connection, which asks for this again.
     */
    void writeDeferred(BrokerSession session) {
        for (int i = 0; i < deferred.size(); i++) {
            deferred.get(i).writeInto(session);
        }
    }

    /** Runs {@code action} once after the current transaction committed. */
    public void onCommit(Runnable action) {
        onCommit.add(action);
    }

    /** Runs {@code action} once after the current transaction rolled back or failed to commit. */
    public void onRollback(Runnable action) {
        onRollback.add(action);
    }

    /**
     * The current transaction's state of {@code owner}: made by {@code create} at the first call in
     * a transaction (which is where the owner registers its actions), the same object until the
     * transaction ends.
     */
    @SuppressWarnings("unchecked")
    public <T> T resource(Object owner, Supplier<T> create) {
        Object r = resources.get(owner);
        if (r == null) {
            r = create.get();
            resources.put(owner, r);
        }
        return (T) r;
    }

    /** True when something must run just before COMMIT. */
    boolean hasBeforeCommit() {
        return !beforeCommit.isEmpty();
    }

    /** Runs the before-commit actions on the transaction's connection. */
    void runBeforeCommit(Connection c) throws SQLException {
        for (BeforeCommit action : beforeCommit) {
            action.run(c);
        }
    }

    /** Runs and forgets the actions of the transaction that ended. */
    void completed(boolean committed) {
        deferred.clear();
        beforeCommit.clear();
        resources.clear();
        if (onCommit.isEmpty() && onRollback.isEmpty()) {
            return;
        }
        List<Runnable> run = new ArrayList<>(committed ? onCommit : onRollback);
        onCommit.clear();
        onRollback.clear();
        RuntimeException failure = null;
        for (Runnable r : run) {
            try {
                r.run();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** Forgets everything without running it (the transaction's outcome is not this session's to see). */
    void forget() {
        deferred.clear();
        beforeCommit.clear();
        onCommit.clear();
        onRollback.clear();
        resources.clear();
    }
}
