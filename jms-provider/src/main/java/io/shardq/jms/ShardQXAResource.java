package io.shardq.jms;

import io.shardq.broker.Broker;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.shard.BrokerSession;
import java.util.ArrayList;
import java.util.List;
import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;

/**
 * The {@link XAResource} of one {@link ShardQXASession}, on PostgreSQL's two-phase commit.
 *
 * <p>A branch is the session's engine transaction: {@link #start} and {@link #end} let the session
 * send and receive in it (one branch at a time; {@code TMJOIN}/{@code TMRESUME} of the same
 * branch), {@link #prepare} writes its work and ends it with {@code PREPARE TRANSACTION} under the
 * gid of {@link XidCodec}, and {@link #commit}/{@link #rollback} of a prepared branch run {@code
 * COMMIT PREPARED}/{@code ROLLBACK PREPARED} on any pooled connection of the instance, so any
 * resource of the instance (after a crash: of any instance on the database) completes it. A
 * one-phase commit is the session's ordinary commit. {@link #recover} lists this database's
 * prepared transactions that carry ShardQ's prefix.
 *
 * <p>Transaction timeouts are the transaction manager's (its reaper rolls the branch back through
 * {@link #rollback}); {@link #setTransactionTimeout} returns false. No branch is ever completed
 * heuristically, so {@link #forget} knows no branch.
 */
final class ShardQXAResource implements XAResource {
    private final ShardQXASession session;
    /** The branch the session works in, from start until prepare or completion; null when none. */
    private String activeGid;

    private boolean rollbackOnly;

    ShardQXAResource(ShardQXASession session) {
        this.session = session;
    }

    private Broker broker() {
        return session.broker();
    }

    @Override
    public void start(Xid xid, int flags) throws XAException {
        String gid = gid(xid);
        session.lock.lock();
        try {
            BrokerSession s = session.engineSession();
            if (flags == TMNOFLAGS) {
                if (activeGid != null) {
                    throw xa(
                            XAException.XAER_PROTO,
                            "the XA session is in branch " + activeGid + " already: end and complete it before"
                                    + " starting " + gid,
                            null);
                }
                s.xaAssociate(true);
                activeGid = gid;
                rollbackOnly = false;
            } else if (flags == TMJOIN || flags == TMRESUME) {
                if (!gid.equals(activeGid)) {
                    throw xa(
                            XAException.XAER_NOTA,
                            "cannot join or resume branch " + gid + ": this XA session "
                                    + (activeGid == null ? "is in no branch" : "is in branch " + activeGid),
                            null);
                }
                s.xaAssociate(true);
            } else {
                throw xa(
                        XAException.XAER_INVAL,
                        "start flags " + flags + " are invalid: expected TMNOFLAGS, TMJOIN or" + " TMRESUME",
                        null);
            }
        } catch (RuntimeException e) {
            throw translate(e, "starting branch " + gid, XAException.XAER_PROTO);
        } finally {
            session.lock.unlock();
        }
    }

    @Override
    public void end(Xid xid, int flags) throws XAException {
        String gid = gid(xid);
        if (flags != TMSUCCESS && flags != TMFAIL && flags != TMSUSPEND) {
            throw xa(
                    XAException.XAER_INVAL,
                    "end flags " + flags + " are invalid: expected TMSUCCESS, TMFAIL or" + " TMSUSPEND",
                    null);
        }
        session.lock.lock();
        try {
            requireActive(gid, "end");
            if (flags == TMFAIL) {
                rollbackOnly = true;
            }
            if (!session.isClosed()) {
                session.engineSession().xaAssociate(false);
            }
        } catch (RuntimeException e) {
            throw translate(e, "ending branch " + gid, XAException.XAER_PROTO);
        } finally {
            session.lock.unlock();
        }
    }

    @Override
    public int prepare(Xid xid) throws XAException {
        String gid = gid(xid);
        session.lock.lock();
        try {
            requireActive(gid, "prepare");
            BrokerSession s = session.engineSession();
            activeGid = null;
            if (session.isClosed()) {
                throw xa(
                        XAException.XA_RBROLLBACK,
                        "the XA session closed before branch " + gid + " was prepared: its work was rolled back",
                        null);
            }
            s.xaAssociate(false);
            if (rollbackOnly) {
                s.rollback();
                throw xa(XAException.XA_RBROLLBACK, "branch " + gid + " ended with TMFAIL: rolled back", null);
            }
            try {
                return s.prepare(gid) ? XA_OK : XA_RDONLY;
            } catch (RuntimeException e) {
                if (s.preparedGid() == null) {
                    try {
                        s.rollback(); // (a refused gid leaves the work in place: it goes with the branch)
                    } catch (RuntimeException ignored) {
                        // the work is gone already
                    }
                }
                throw translate(e, "preparing branch " + gid, XAException.XA_RBROLLBACK);
            }
        } finally {
            session.lock.unlock();
        }
    }

    @Override
    public void commit(Xid xid, boolean onePhase) throws XAException {
        String gid = gid(xid);
        session.lock.lock();
        try {
            if (onePhase) {
                requireActive(gid, "commit (one phase)");
                activeGid = null;
                BrokerSession s = session.engineSession();
                s.xaAssociate(false);
                if (rollbackOnly) {
                    s.rollback();
                    throw xa(XAException.XA_RBROLLBACK, "branch " + gid + " ended with TMFAIL: rolled back", null);
                }
                s.commit();
                return;
            }
            if (gid.equals(activeGid)) {
                throw xa(
                        XAException.XAER_PROTO,
                        "branch " + gid + " is not prepared: prepare it first, or commit" + " it in one phase",
                        null);
            }
            if (!broker().xa().commit(gid)) {
                throw xa(XAException.XAER_NOTA, "no prepared transaction " + gid + " in this database", null);
            }
        } catch (RuntimeException e) {
            // one phase: the work is rolled back; two phases: the prepared branch stays, ask again
            throw translate(
                    e, "committing branch " + gid, onePhase ? XAException.XA_RBROLLBACK : XAException.XAER_RMFAIL);
        } finally {
            session.lock.unlock();
        }
    }

    @Override
    public void rollback(Xid xid) throws XAException {
        String gid = gid(xid);
        session.lock.lock();
        try {
            if (gid.equals(activeGid)) {
                activeGid = null;
                if (!session.isClosed()) {
                    BrokerSession s = session.engineSession();
                    s.xaAssociate(false);
                    s.rollback();
                }
                return;
            }
            if (!broker().xa().rollback(gid)) {
                throw xa(XAException.XAER_NOTA, "no prepared transaction " + gid + " in this database", null);
            }
        } catch (RuntimeException e) {
            throw translate(e, "rolling back branch " + gid, XAException.XAER_RMFAIL);
        } finally {
            session.lock.unlock();
        }
    }

    /** ShardQ's prepared transactions of this database, all at the start of a scan ({@code TMSTARTRSCAN}). */
    @Override
    public Xid[] recover(int flag) throws XAException {
        if ((flag & ~(TMSTARTRSCAN | TMENDRSCAN)) != 0) {
            throw xa(
                    XAException.XAER_INVAL,
                    "recover flag " + flag + " is invalid: expected TMSTARTRSCAN, TMENDRSCAN," + " both or TMNOFLAGS",
                    null);
        }
        if ((flag & TMSTARTRSCAN) == 0) {
            return new Xid[0]; // everything was returned at the start of the scan
        }
        try {
            List<Xid> out = new ArrayList<>();
            for (String gid : broker().xa().list(XidCodec.PREFIX)) {
                Xid x = XidCodec.xid(gid);
                if (x != null) {
                    out.add(x);
                }
            }
            return out.toArray(new Xid[0]);
        } catch (RuntimeException e) {
            throw translate(e, "listing prepared transactions", XAException.XAER_RMERR);
        }
    }

    @Override
    public void forget(Xid xid) throws XAException {
        throw xa(
                XAException.XAER_NOTA,
                "ShardQ never completes a branch heuristically: nothing to forget of " + gid(xid),
                null);
    }

    /**
     * Only this resource itself: a branch is one JDBC connection's transaction, which another
     * session cannot join (pgjdbc's {@code PGXAConnection} answers the same way). A transaction
     * manager then gives each ShardQ session its own branch.
     */
    @Override
    public boolean isSameRM(XAResource other) {
        return other == this;
    }

    @Override
    public int getTransactionTimeout() {
        return 0;
    }

    /** Not supported (false): the transaction manager times transactions out and rolls them back. */
    @Override
    public boolean setTransactionTimeout(int seconds) throws XAException {
        if (seconds < 0) {
            throw xa(XAException.XAER_INVAL, "transaction timeout " + seconds + " is negative", null);
        }
        return false;
    }

    private void requireActive(String gid, String what) throws XAException {
        if (!gid.equals(activeGid)) {
            throw xa(
                    XAException.XAER_NOTA,
                    what + " of branch " + gid + " refused: this XA session "
                            + (activeGid == null ? "is in no branch" : "is in branch " + activeGid)
                            + (session.isClosed() ? " (and is closed)" : ""),
                    null);
        }
    }

    private static String gid(Xid xid) throws XAException {
        if (xid == null) {
            throw xa(XAException.XAER_INVAL, "the Xid is null", null);
        }
        return XidCodec.gid(xid);
    }

    static XAException xa(int code, String message, Throwable cause) {
        XAException e = new XAException(message);
        e.errorCode = code;
        if (cause != null) {
            e.initCause(cause);
        }
        return e;
    }

    /**
     * The engine's refusal as an XAException: an unreachable database is {@code XAER_RMFAIL} (ask
     * again), a server without prepared transactions {@code XAER_RMERR}, a bad argument {@code
     * XAER_INVAL}; a rollback or an illegal state is {@code rolledBackOrState}.
     */
    private static XAException translate(RuntimeException e, String what, int rolledBackOrState) {
        if (!(e instanceof ShardQException se)) {
            return xa(XAException.XAER_RMERR, what + " failed: " + e, e);
        }
        ErrorKind k = se.kind();
        int code =
                switch (k) {
                    case CONNECTION, IN_DOUBT, RESOURCE_EXHAUSTED -> XAException.XAER_RMFAIL;
                    case CONFIGURATION, DATABASE -> XAException.XAER_RMERR;
                    case INVALID_ARGUMENT -> XAException.XAER_INVAL;
                    case ROLLED_BACK, ILLEGAL_STATE -> rolledBackOrState;
                    default -> XAException.XAER_RMERR;
                };
        return xa(code, what + " failed: " + se.getMessage(), se);
    }
}
