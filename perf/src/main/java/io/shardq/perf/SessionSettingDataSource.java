package io.shardq.perf;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.Collections;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A pooled data source whose physical connections all run {@code SET name = value} once, the
 * first time each is borrowed. Used for {@code --unsafe} ({@code synchronous_commit=off}): the
 * pool is already started by {@code Database.open}, so its init SQL cannot change, and a SET on
 * every borrow would add a round trip to every transaction of every system.
 *
 * <p>The physical connection is found with {@code unwrap}; HikariCP does not reset session
 * settings when a connection returns to the pool, so the SET holds for the connection's life.
 */
final class SessionSettingDataSource implements DataSource {
    private final DataSource pool;
    private final String setSql;
    private final Set<Object> configured = Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));

    SessionSettingDataSource(DataSource pool, String name, String value) {
        if (!name.matches("[a-z_]+") || !value.matches("[a-zA-Z0-9_]+")) {
            throw new IllegalArgumentException(
                    "session setting " + name + "=" + value + " is invalid: expected [a-z_]+ = [a-zA-Z0-9_]+");
        }
        this.pool = pool;
        this.setSql = "set " + name + " = " + value;
    }

    @Override
    public Connection getConnection() throws SQLException {
        return configure(pool.getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return configure(pool.getConnection(username, password));
    }

    private Connection configure(Connection c) throws SQLException {
        // a pool's proxy hands out its delegate first (HikariCP does): the physical connection
        Object physical = c.isWrapperFor(Connection.class) ? c.unwrap(Connection.class) : c;
        if (!configured.contains(physical)) {
            try (Statement s = c.createStatement()) {
                s.execute(setSql);
            } catch (SQLException e) {
                c.close();
                throw e;
            }
            configured.add(physical);
        }
        return c;
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return pool.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        pool.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        pool.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return pool.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return pool.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        return iface.isInstance(this) ? iface.cast(this) : pool.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return iface.isInstance(this) || pool.isWrapperFor(iface);
    }

    /** For tests: how many physical connections carry the setting. */
    int configuredConnections() {
        return configured.size();
    }
}
