package io.shardq.broker.shard;

import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import java.util.ArrayList;
import java.util.List;

/**
 * A session's side of two-phase commit: whether a transaction manager drives the session, whether
 * it is associated with a transaction branch now ({@code XAResource.start}/{@code end}), the
 * transaction it prepared and what that transaction's commit does in memory once decided, and the
 * wake-ups its sends owe other instances.
 *
 * <p><b>Invariants.</b> A session sends and receives only while associated; at most one prepared
 * transaction at a time, registered with the engine's {@link PreparedTransactions} under its gid
 * from {@link #prepared} until {@link #take} or {@link #forget}; while it is prepared the session
 * takes no new work and nothing but its transaction manager decides it. Wake-ups are kept, not sent,
 * in an XA session's transaction (PostgreSQL refuses {@code PREPARE TRANSACTION} after a NOTIFY) and
 * sent after the commit ({@link #wakes}).
 *
 * <p><b>Threading.</b> The session's thread, except {@link BrokerSession#completePrepared} and
 * {@link BrokerSession#forgetPrepared}, which {@link PreparedTransactions} calls when the outcome is
 * decided: the JMS layer serialises those with the session's use, as the transaction manager does.
 */
final class XaBranch {
    /** A transaction prepared by {@link BrokerSession#prepare}: what its commit does in memory, kept for the outcome. */
    record Prepared(String gid, CommitPlan plan) {}

    private final boolean xa;
    private boolean associated;
    private Prepared prepared;
    /** Wake-ups other instances asked for, sent after the commit (XA sessions only). */
    private final List<String> deferredWakes = new ArrayList<>();

    XaBranch(boolean xa) {
        this.xa = xa;
    }

    boolean isXa() {
        return xa;
    }

    /** Enters ({@code true}) or leaves the transaction branch; refused while a prepared transaction waits. */
    void associate(boolean associated) {
        if (associated && prepared != null) {
            checkWork(); // names the prepared transaction
        }
        this.associated = associated;
    }

    /** The global transaction id of the transaction prepared and not yet decided, or null. */
    String preparedGid() {
        return prepared == null ? null : prepared.gid();
    }

    boolean isPrepared() {
        return prepared != null;
    }

    /** Before commit, rollback, recover or acknowledge: refused while prepared. */
    void checkNotPrepared() {
        if (prepared != null) {
            throw new ShardQException(
                    ErrorKind.ILLEGAL_STATE,
                    "the session's transaction " + prepared.gid()
                            + " is prepared: only its transaction manager decides it (commit or rollback prepared)");
        }
    }

    /** Before a send or a receive: not prepared, and (XA) inside a transaction branch. */
    void checkWork() {
        if (prepared != null) {
            throw new ShardQException(
                    ErrorKind.ILLEGAL_STATE,
                    "the session's transaction " + prepared.gid()
                            + " is prepared: no new work until its outcome (commit or rollback)");
        }
        if (xa && !associated) {
            throw new ShardQException(
                    ErrorKind.ILLEGAL_STATE,
                    "this XA session is not associated with a global transaction: enlist its XAResource in a"
                            + " transaction (XAResource.start) before sending or receiving");
        }
    }

    /** Before a prepare: refused when one is prepared already. */
    void checkCanPrepare() {
        if (prepared != null) {
            throw new ShardQException(
                    ErrorKind.ILLEGAL_STATE, "the session's transaction " + prepared.gid() + " is prepared already");
        }
    }

    /** The transaction was prepared: keep what its commit does in memory, and register its gid. */
    void prepared(Engine engine, BrokerSession session, Prepared p) {
        prepared = p;
        engine.preparedTransactions().register(p.gid(), session);
    }

    /** The prepared transaction's outcome arrived: hands over what it does in memory (null when none). */
    Prepared take() {
        Prepared p = prepared;
        prepared = null;
        return p;
    }

    /** The wake-ups list a write defers its NOTIFY into (XA only), or null to send it at once. */
    List<String> wakes() {
        return xa ? deferredWakes : null;
    }

    /** The deferred wake-ups, to send after the commit. */
    List<String> deferredWakes() {
        return deferredWakes;
    }

    /** The transaction failed or its outcome is unknown here: the waiters poll. */
    void clearWakes() {
        deferredWakes.clear();
    }
}
