package io.shardq.broker.store;

import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.Query;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * Which PostgreSQL server process the pool's connections reach, checked on every new physical
 * connection (its postmaster's start time, {@code pg_postmaster_start_time()}): a restart or a
 * failover to a promoted standby is another incarnation. What an instance holds in memory (leases,
 * positions, known heads, cached messages, near-cache entries) was true of the previous one; after
 * a failover to an asynchronous standby, or a crash with {@code synchronous_commit = off}, the new
 * one may lack committed work, and its sequence numbers are handed out again. The engine compares
 * {@link #current()} with the incarnation it last served before it uses a connection
 * (docs/design/high-availability.md). One query per new connection; nothing on the hot path but a
 * volatile read.
 */
final class ServerIncarnation implements DataSource {
    private final DataSource delegate;
    private final AtomicLong incarnation = new AtomicLong();
    private String lastStart;

    ServerIncarnation(DataSource delegate) {
        this.delegate = delegate;
    }

    /** Starts at 0; raised each time a new connection reaches another server process than the last one. */
    long current() {
        return incarnation.get();
    }

    @Override
    public Connection getConnection() throws SQLException {
        return checked(delegate.getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return checked(delegate.getConnection(username, password));
    }

    private Connection checked(Connection c) throws SQLException {
        String start;
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(Queries.get(Query.SERVER_START_TIME))) {
            rs.next();
            start = rs.getString(1);
        } catch (SQLException | RuntimeException e) {
            try {
                c.close();
            } catch (SQLException alsoFailed) {
                e.addSuppressed(alsoFailed);
            }
            throw e;
        }
        synchronized (this) {
            if (lastStart != null && !lastStart.equals(start)) {
                incarnation.incrementAndGet();
            }
            lastStart = start;
        }
        return c;
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return delegate.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        delegate.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        delegate.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return delegate.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return delegate.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        return iface.isInstance(this) ? iface.cast(this) : delegate.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return iface.isInstance(this) || delegate.isWrapperFor(iface);
    }
}
