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
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * PostgreSQL's two-phase commit for the sessions of one instance: {@code PREPARE TRANSACTION},
 * {@code COMMIT PREPARED}, {@code ROLLBACK PREPARED} and the list of prepared transactions, plus
 * the sessions of this instance whose prepared transaction waits for its outcome, so that an
 * outcome decided through any connection of the instance reaches the session's memory (see {@link
 * BrokerSession#prepare}).
 *
 * <p>A global transaction id reaches SQL as a literal ({@code PREPARE TRANSACTION} and its
 * siblings take no bind parameters), so it is checked against {@link #GID} first: no quote can
 * pass. Statements run on pooled connections in autocommit: {@code COMMIT PREPARED} cannot run in
 * a transaction block, and any connection of the database may decide a prepared transaction.
 */
public final class PreparedTransactions {
    /** What a gid may hold: base64 and a few separators, at most 199 bytes (PostgreSQL's GIDSIZE - 1). */
    public static final Pattern GID = Pattern.compile("[A-Za-z0-9+/=:._-]{1,199}");

    private final Engine engine;
    private final ConcurrentHashMap<String, BrokerSession> waiting = new ConcurrentHashMap<>();

    public PreparedTransactions(Engine engine) {
        this.engine = engine;
    }

    /** Returns {@code gid}, or throws {@code INVALID_ARGUMENT} saying what is wrong with it. */
    public static String validate(String gid) {
        if (gid == null || !GID.matcher(gid).matches()) {
            String shown = gid == null ? "null" : gid.length() > 40 ? gid.substring(0, 40) + "..." : gid;
            throw new ShardQException(
                    ErrorKind.INVALID_ARGUMENT,
                    "global transaction id \"" + shown + "\" (" + (gid == null ? 0 : gid.length())
                            + " characters) is invalid: expected 1 to 199 characters of [A-Za-z0-9+/=:._-]"
                            + " (PostgreSQL's limit for PREPARE TRANSACTION)");
        }
        return gid;
    }

    /** Ends the transaction on {@code c} with PREPARE TRANSACTION. */
    static void prepare(Connection c, String gid) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute(Queries.withGid(Query.PREPARED_XACT_PREPARE, validate(gid)));
        } catch (SQLException e) {
            throw translate(e, "preparing transaction " + gid);
        }
    }

    void register(String gid, BrokerSession session) {
        waiting.put(gid, session);
    }

    void unregister(String gid, BrokerSession session) {
        waiting.remove(gid, session);
    }

    /**
     * COMMIT PREPARED: the prepared transaction {@code gid} of this database commits, and the
     * session of this instance that prepared it (if it is still open) publishes its work.
     *
     * @return false when the database has no prepared transaction {@code gid} (decided already, or
     *     never prepared)
     */
    public boolean commit(String gid) {
        return decide(gid, true);
    }

    /** ROLLBACK PREPARED, as {@link #commit}: the session gives its received messages back. */
    public boolean rollback(String gid) {
        return decide(gid, false);
    }

    private boolean decide(String gid, boolean commit) {
        validate(gid);
        boolean found;
        try (Connection c = engine.borrowConnection();
                Statement st = c.createStatement()) {
            st.execute(Queries.withGid(commit ? Query.PREPARED_XACT_COMMIT : Query.PREPARED_XACT_ROLLBACK, gid));
            found = true;
        } catch (SQLException e) {
            if (!"42704".equals(e.getSQLState())) {
                // the session keeps its work: the outcome is asked again (a lost connection leaves it unknown)
                throw translate(e, (commit ? "committing" : "rolling back") + " prepared transaction " + gid);
            }
            found = false;
        }
        BrokerSession s = waiting.remove(gid);
        if (s != null) {
            if (found) {
                s.completePrepared(commit);
            } else {
                s.forgetPrepared(); // decided elsewhere: read the outcome back from the database
            }
        }
        return found;
    }

    /** The gids of this database's prepared transactions that start with {@code prefix}, oldest first. */
    public List<String> list(String prefix) {
        List<String> out = new ArrayList<>();
        try (Connection c = engine.borrowConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.PREPARED_XACT_SELECT))) {
            ps.setString(1, prefix);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "listing prepared transactions");
        }
        return out;
    }

    /** The server's {@code max_prepared_transactions}: 0 means two-phase commit is off. */
    public int maxPreparedTransactions() {
        try (Connection c = engine.borrowConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.PREPARED_XACT_MAX));
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getInt(1);
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "reading max_prepared_transactions");
        }
    }

    /** Throws {@code CONFIGURATION} naming the setting when the server refuses prepared transactions. */
    public void requireEnabled() {
        if (engine.onCitus()) {
            // Citus commits a transaction over several workers with its own two-phase commit and
            // refuses a client's PREPARE TRANSACTION of such a transaction (docs/design/citus.md)
            throw new ShardQException(
                    ErrorKind.CONFIGURATION,
                    "XA (two-phase commit) is not supported on a Citus cluster: Citus commits a transaction over"
                            + " several workers with its own two-phase commit and refuses PREPARE TRANSACTION from"
                            + " a client; use local (JMS transacted) sessions there");
        }
        if (maxPreparedTransactions() <= 0) {
            throw disabled(null);
        }
    }

    private static ShardQException disabled(Throwable cause) {
        return new ShardQException(
                ErrorKind.CONFIGURATION,
                "PostgreSQL refuses prepared transactions: max_prepared_transactions is 0 on this server, and XA"
                        + " (two-phase commit) needs it positive (set max_prepared_transactions, e.g. to"
                        + " max_connections, in postgresql.conf and restart the server)",
                cause);
    }

    private static RuntimeException translate(SQLException e, String what) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        String msg = e.getMessage() == null ? "" : e.getMessage();
        if (state.equals("55000") && msg.contains("prepared transactions are disabled")) {
            return disabled(e);
        }
        if (state.equals("42710")) {
            return new ShardQException(
                    ErrorKind.ILLEGAL_STATE,
                    what + " failed: a prepared transaction with this id exists already (" + msg + ")",
                    e);
        }
        return SqlErrors.translate(e, what);
    }
}
