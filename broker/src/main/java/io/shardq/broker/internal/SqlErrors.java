package io.shardq.broker.internal;

import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import java.sql.SQLException;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * Translates {@link SQLException}s into {@link ShardQException}s, once, by SQLSTATE and the
 * error's machine-readable fields, never by its message text: ShardQ's SQL functions raise with
 * {@code USING ERRCODE, SCHEMA = 'shardq', TABLE = ...} (and {@code COLUMN = 'name'} for a
 * malformed name), so a 42704 on {@code kv_cache} is an unknown cache and one on {@code
 * destination} or {@code subscription} an unknown destination; PostgreSQL's own CHECK violations
 * carry their constraint's name.
 */
public final class SqlErrors {
    private SqlErrors() {}

    /** Longest database error text passed on, in characters. */
    static final int MAX_DETAIL = 300;

    /**
     * The exception to throw for {@code e}: its kind by SQLSTATE, and a message that names the
     * problem with the server's primary message only, cut to {@link #MAX_DETAIL}: never SQL text
     * or parameter values (a batch's message quotes its whole statement, bodies in hex).
     */
    public static ShardQException translate(SQLException e, String what) {
        SQLException server = serverError(e);
        String state = server.getSQLState() == null ? "" : server.getSQLState();
        String detail;
        if (server instanceof PSQLException p && p.getServerErrorMessage() != null) {
            ServerErrorMessage m = p.getServerErrorMessage();
            detail = m.getMessage();
        } else if (e instanceof java.sql.BatchUpdateException) {
            detail = "a batch statement failed (SQLSTATE " + state + ")";
        } else {
            detail = e.getMessage(); // client-side (connection, I/O): no statement text in these
        }
        detail = io.shardq.broker.message.Texts.cut(String.valueOf(detail), MAX_DETAIL);
        Fields f = Fields.of(server);
        ErrorKind kind;
        if (state.startsWith("08") || state.equals("57P01") || state.equals("57P02") || state.equals("57P03")) {
            kind = ErrorKind.CONNECTION;
        } else if (state.equals("25006")) {
            // read_only_sql_transaction: the connection's server is not (or no longer) a primary
            // accepting writes. The write was refused, so nothing of the transaction is kept (not
            // in doubt, even at commit); the pool drops the connection (Database.EvictReadOnly)
            // and the next one goes to the primary, so a retry succeeds once one is there
            kind = ErrorKind.ROLLED_BACK;
            detail = "PostgreSQL refused a write: the server is read-only (a standby, a server in recovery, or"
                    + " fenced with default_transaction_read_only by a failover): " + detail;
        } else if (state.equals("40001") || state.equals("40P01")) {
            kind = ErrorKind.ROLLED_BACK;
        } else if (state.equals("42704")) {
            kind = f.isShardq("kv_cache") ? ErrorKind.UNKNOWN_CACHE : ErrorKind.UNKNOWN_DESTINATION;
        } else if (state.equals("42P01") && detail.contains("\"shardq.m_")) {
            // undefined_table (PostgreSQL's own, no table field: the table is missing): a message
            // table dropped under a send (a temporary destination whose connection closed, a
            // dropped destination); the relation's name is ShardQ's, not the user's
            kind = ErrorKind.UNKNOWN_DESTINATION;
            detail = "the destination no longer exists (it was dropped, or it was a temporary destination"
                    + " whose connection closed or deleted it)";
        } else if (state.equals("23514") && isDrainingCheck(f.constraint(), server.getMessage())) {
            // V015: the transaction wrote a shard that began to drain (its destination shrinks)
            // after the instance chose it; nothing of the transaction was kept
            kind = ErrorKind.ROLLED_BACK;
            detail = "a shard it wrote to is draining (the destination is shrinking); nothing was written,"
                    + " send again (the next transaction goes to an active shard)";
        } else if (state.equals("42501")) {
            kind = ErrorKind.SECURITY; // shardq.require_administer / require_owner, or PostgreSQL's own refusal
        } else if (state.equals("42710")) {
            kind = f.isShardq("kv_cache") ? ErrorKind.CACHE_EXISTS : ErrorKind.DESTINATION_EXISTS;
        } else if (state.equals("22023")) {
            // shardq.check_name's and check_cache_name's refusal names the column; anything else (a
            // shard count, a privilege, a role, a subscription's name) is an argument
            kind = (f.isShardq("destination") || f.isShardq("kv_cache")) && "name".equals(f.column())
                    ? ErrorKind.INVALID_NAME
                    : ErrorKind.INVALID_ARGUMENT;
        } else if (state.equals("55000") || state.equals("55006")) {
            kind = ErrorKind.ILLEGAL_STATE;
        } else {
            kind = ErrorKind.DATABASE;
        }
        String message = kind == ErrorKind.CONNECTION
                        || kind == ErrorKind.DATABASE
                        || kind == ErrorKind.ROLLED_BACK
                        || kind == ErrorKind.UNKNOWN_DESTINATION && state.equals("42P01")
                ? what + " failed: " + detail
                : detail;
        return new ShardQException(kind, message, e);
    }

    /**
     * V015's CHECK on a shard row: named in the error's constraint field, or, on Citus, which
     * relays a worker's error without that field, in its message.
     */
    private static boolean isDrainingCheck(String constraint, String message) {
        return "shard_draining_frozen".equals(constraint)
                || (constraint == null
                        && message != null
                        && message.contains("violates check constraint \"shard_draining_frozen\""));
    }

    /**
     * True when {@code failure} (or a cause) is V015's refusal of a transaction that wrote a shard
     * which began to drain after the instance chose it: the instance's snapshot of the destination
     * predates the shrink.
     */
    public static boolean isShardDraining(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SQLException se) {
                SQLException server = serverError(se);
                return "23514".equals(server.getSQLState())
                        && isDrainingCheck(Fields.of(server).constraint(), server.getMessage());
            }
        }
        return false;
    }

    /** The error's machine-readable fields (all null for a client-side error). */
    private record Fields(String schema, String table, String column, String constraint) {
        static Fields of(SQLException server) {
            if (server instanceof PSQLException p && p.getServerErrorMessage() != null) {
                ServerErrorMessage m = p.getServerErrorMessage();
                return new Fields(m.getSchema(), m.getTable(), m.getColumn(), m.getConstraint());
            }
            return new Fields(null, null, null, null);
        }

        /** Raised by ShardQ's SQL about its catalog table {@code name}. */
        boolean isShardq(String name) {
            return "shardq".equals(schema) && name.equals(table);
        }
    }

    /** The exception carrying the server's error: a batch's next exception, else {@code e}. */
    private static SQLException serverError(SQLException e) {
        SQLException cur = e;
        for (int i = 0; i < 10 && cur != null; i++) {
            if (cur instanceof PSQLException p && p.getServerErrorMessage() != null) {
                return cur;
            }
            cur = cur.getNextException();
        }
        return e;
    }
}
