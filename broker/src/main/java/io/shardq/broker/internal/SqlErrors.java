package io.shardq.broker.internal;

import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import java.sql.SQLException;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/** Translates {@link SQLException}s into {@link ShardQException}s, once, by SQLSTATE. */
public final class SqlErrors {
    private SqlErrors() {}

    public static ShardQException translate(SQLException e, String what) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        String detail = e.getMessage();
        if (e instanceof PSQLException p && p.getServerErrorMessage() != null) {
            ServerErrorMessage m = p.getServerErrorMessage();
            detail = m.getMessage();
        }
        ErrorKind kind;
        if (state.startsWith("08") || state.equals("57P01") || state.equals("57P02") || state.equals("57P03")) {
            kind = ErrorKind.CONNECTION;
        } else if (state.equals("40001") || state.equals("40P01")) {
            kind = ErrorKind.ROLLED_BACK;
        } else if (state.equals("42704")) {
            kind = ErrorKind.UNKNOWN_DESTINATION;
        } else if (state.equals("42710")) {
            kind = ErrorKind.DESTINATION_EXISTS;
        } else if (state.equals("22023")) {
            kind = detail != null && detail.contains("name") ? ErrorKind.INVALID_NAME : ErrorKind.INVALID_ARGUMENT;
        } else if (state.equals("55000")) {
            kind = ErrorKind.ILLEGAL_STATE;
        } else {
            kind = ErrorKind.DATABASE;
        }
        String message = kind == ErrorKind.CONNECTION || kind == ErrorKind.DATABASE || kind == ErrorKind.ROLLED_BACK
                ? what + " failed: " + detail
                : detail;
        return new ShardQException(kind, message, e);
    }
}
