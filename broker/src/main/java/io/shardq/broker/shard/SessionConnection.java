package io.shardq.broker.shard;

import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.internal.SqlErrors;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * The JDBC connection of one session's transaction: the application's own ({@code external}), which
 * the application commits, or one borrowed from the engine's pool at the transaction's first
 * statement ({@link #current}) and returned when the transaction ends ({@link #release}).
 *
 * <p><b>Invariants.</b> At most one borrowed transaction connection at a time, in a transaction
 * block (autocommit off) while held and back in autocommit when returned; an application's
 * connection is never rolled back, committed or closed here. A connection borrowed for one commit
 * only ({@link #borrow}) is returned by the same {@link #release}.
 *
 * <p><b>Threading.</b> The session's thread only.
 */
final class SessionConnection {
    private final Engine engine;
    private final Connection external;
    private Connection txConnection;

    SessionConnection(Engine engine, Connection external) {
        this.engine = engine;
        this.external = external;
    }

    /** True when the session runs on an application's connection. */
    boolean external() {
        return external != null;
    }

    /** Before a commit into the application's transaction: its connection must not be in autocommit. */
    void requireTransactionBlock() {
        try {
            if (external.getAutoCommit()) {
                throw new ShardQException(
                        ErrorKind.ILLEGAL_STATE,
                        "the application's connection is in autocommit mode: a session that joins the"
                                + " application's transaction needs one (setAutoCommit(false))");
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "reading the application's connection");
        }
    }

    /** True while a transaction is open on a borrowed connection. */
    boolean open() {
        return txConnection != null;
    }

    /** True when the commit runs on the transaction's connection (open, or the application's). */
    boolean inTransaction() {
        return txConnection != null || external != null;
    }

    /** The transaction's connection: the application's, or the borrowed one (borrowed now if none). */
    Connection current() throws SQLException {
        if (external != null) {
            return external;
        }
        if (txConnection == null) {
            Connection c = engine.borrowConnection();
            c.setAutoCommit(false);
            txConnection = c;
        }
        return txConnection;
    }

    /** The transaction's connection for the application's own SQL: a transacted session's only. */
    Connection shared(boolean transacted) {
        if (!transacted) {
            throw new ShardQException(ErrorKind.ILLEGAL_STATE, "only a transacted session shares its JDBC connection");
        }
        try {
            return current();
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "opening the session's connection");
        }
    }

    /** A pool connection for one commit outside a transaction (in autocommit). */
    Connection borrow() throws SQLException {
        return engine.borrowConnection();
    }

    void rollbackQuietly(Connection c) {
        if (c == null || c == external) {
            return;
        }
        try {
            if (c.getAutoCommit()) {
                return;
            }
            c.rollback();
        } catch (SQLException ignored) {
            // the connection is broken; the pool discards it
        }
    }

    /** Rolls back and returns the open transaction's connection, if any. */
    void rollbackOpen() {
        if (txConnection != null) {
            Connection c = txConnection;
            rollbackQuietly(c);
            release(c, false);
        }
    }

    /** Returns {@code c} to the pool when it is the transaction's or {@code borrowed}. */
    void release(Connection c, boolean borrowed) {
        if (c == null || c == external) {
            return;
        }
        if (c == txConnection || borrowed) {
            try {
                c.setAutoCommit(true);
            } catch (SQLException ignored) {
                // broken connection: closing returns it to the pool, which evicts it
            }
            try {
                c.close();
            } catch (SQLException ignored) {
                // nothing left to do
            }
            if (c == txConnection) {
                txConnection = null;
            }
        }
    }
}
