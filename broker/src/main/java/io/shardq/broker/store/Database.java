package io.shardq.broker.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.JdbcUrls;
import io.shardq.broker.ShardQException;
import javax.sql.DataSource;

/**
 * The connection pool of one broker (one per connection factory): HikariCP on the configured
 * JDBC URL, or on the embedded PostgreSQL when none is configured. Opening fails fast with one
 * message that names the URL (password masked) and the cause.
 */
public final class Database implements AutoCloseable {
    private final HikariDataSource pool;
    private final ServerIncarnation incarnation;
    private final EmbeddedServer embedded;
    private final String displayUrl;
    private final String url;
    private final String user;
    private final int connectTimeoutSeconds;

    private Database(
            HikariDataSource pool,
            ServerIncarnation incarnation,
            EmbeddedServer embedded,
            String displayUrl,
            String url,
            String user,
            int connectTimeoutSeconds) {
        this.pool = pool;
        this.incarnation = incarnation;
        this.embedded = embedded;
        this.displayUrl = displayUrl;
        this.url = url;
        this.user = user;
        this.connectTimeoutSeconds = connectTimeoutSeconds;
    }

    /** Opens the pool named {@code poolName} (used in thread names). */
    public static Database open(BrokerConfig config, String poolName) {
        EmbeddedServer embedded = null;
        String url = config.get(BrokerProperty.JDBC_URL).trim();
        String user = config.get(BrokerProperty.JDBC_USER);
        String password = config.get(BrokerProperty.JDBC_PASSWORD);
        if (config.embedded()) {
            embedded = EmbeddedServer.acquire(
                    config.getPath(BrokerProperty.EMBEDDED_DATA_DIR),
                    config.getInt(BrokerProperty.EMBEDDED_PORT),
                    config.getBoolean(BrokerProperty.EMBEDDED_DURABLE));
            url = embedded.jdbcUrl();
            user = "postgres";
            password = "";
        } else if (!url.startsWith("jdbc:postgresql:")) {
            throw new ShardQException(
                    ErrorKind.CONFIGURATION,
                    "JDBC URL " + JdbcUrls.mask(url)
                            + " is not a PostgreSQL URL: expected jdbc:postgresql://host:port/db");
        }
        String displayUrl = JdbcUrls.mask(url);
        int timeoutMs = config.getInt(BrokerProperty.CONNECT_TIMEOUT_MS);

        java.util.Properties props = new java.util.Properties();
        props.setProperty("connectTimeout", Integer.toString(Math.max(1, timeoutMs / 1000)));
        props.setProperty("ApplicationName", poolName);
        props.setProperty("reWriteBatchedInserts", "true");
        if (asksForAnyServer(url)) {
            // every connection of ShardQ writes: never one to a standby, whatever the URL lists
            // (pgjdbc checks transaction_read_only when it connects, so a server in recovery or
            // fenced read-only is skipped, and with several hosts the primary is found among them)
            props.setProperty("targetServerType", "primary");
        }
        // the pool's connections come through ServerIncarnation, which notes the server process
        // each new one reached (HikariCP's own DriverDataSource underneath, as with setJdbcUrl)
        ServerIncarnation incarnation = new ServerIncarnation(new com.zaxxer.hikari.util.DriverDataSource(
                url, null, props, user, password.isEmpty() ? null : password));
        HikariConfig hc = new HikariConfig();
        hc.setPoolName(poolName);
        hc.setDataSource(incarnation);
        hc.setMaximumPoolSize(config.getInt(BrokerProperty.POOL_SIZE));
        hc.setMinimumIdle(1);
        hc.setConnectionTimeout(Math.max(250, config.getInt(BrokerProperty.POOL_TIMEOUT_MS)));
        hc.setInitializationFailTimeout(1);
        hc.setAutoCommit(true);
        String initSql = config.get(BrokerProperty.JDBC_INIT_SQL);
        if (!initSql.isBlank()) {
            hc.setConnectionInitSql(initSql);
        }
        hc.setExceptionOverride(new EvictReadOnly());
        try {
            return new Database(
                    new HikariDataSource(hc),
                    incarnation,
                    embedded,
                    displayUrl,
                    url,
                    user,
                    Math.max(1, timeoutMs / 1000));
        } catch (RuntimeException e) {
            if (embedded != null) {
                embedded.release();
            }
            throw new ShardQException(
                    loginRefused(e) ? ErrorKind.SECURITY : ErrorKind.CONNECTION,
                    "cannot connect to PostgreSQL at " + displayUrl + " as user \"" + user + "\": "
                            + EmbeddedServer.rootMessage(e),
                    e);
        }
    }

    /** The role the pool logs in as. */
    public String user() {
        return user;
    }

    /**
     * Checks that PostgreSQL accepts a login as {@code loginUser} with {@code password} on this
     * pool's server and database (one connection, closed at once; TLS and other URL settings as
     * the pool's). PostgreSQL decides, by its {@code pg_hba.conf}: a {@code trust} rule accepts
     * any password. Fails with {@link ErrorKind#SECURITY} naming the user, never the password.
     */
    public void authenticate(String loginUser, String password) {
        java.util.Properties props = new java.util.Properties();
        props.setProperty("user", loginUser);
        if (password != null) {
            props.setProperty("password", password);
        }
        props.setProperty("connectTimeout", Integer.toString(connectTimeoutSeconds));
        props.setProperty("ApplicationName", "shardq-login-check");
        if (asksForAnyServer(url)) {
            props.setProperty("targetServerType", "primary");
        }
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(url, props)) {
            c.isValid(connectTimeoutSeconds);
        } catch (java.sql.SQLException e) {
            if (loginRefused(e)) {
                throw new ShardQException(
                        ErrorKind.SECURITY,
                        "PostgreSQL at " + displayUrl + " refused the login of user \"" + loginUser
                                + "\" (wrong password or no such role)",
                        null);
            }
            throw new ShardQException(
                    ErrorKind.CONNECTION,
                    "cannot check the login of user \"" + loginUser + "\" at " + displayUrl + ": "
                            + EmbeddedServer.rootMessage(e),
                    e);
        }
    }

    /** True unless the URL says which kind of server it wants ({@code targetServerType}). */
    static boolean asksForAnyServer(String url) {
        return !url.toLowerCase(java.util.Locale.ROOT).contains("targetservertype=");
    }

    /**
     * Drops a pooled connection whose server refused a write as read-only (SQLSTATE 25006: a
     * standby, a primary fenced with {@code default_transaction_read_only} by a failover manager,
     * a server that came back in recovery): HikariCP keeps connections on other errors than its
     * own list (08xxx, 57P01-57P03, ...), and this one would refuse every write after it. The next
     * connection goes to the primary ({@code targetServerType=primary}).
     */
    static final class EvictReadOnly implements com.zaxxer.hikari.SQLExceptionOverride {
        @java.lang.Override
        public com.zaxxer.hikari.SQLExceptionOverride.Override adjudicate(java.sql.SQLException e) {
            return "25006".equals(e.getSQLState())
                    ? com.zaxxer.hikari.SQLExceptionOverride.Override.MUST_EVICT
                    : com.zaxxer.hikari.SQLExceptionOverride.Override.CONTINUE_EVICT;
        }
    }

    /**
     * SQLSTATE class 28 (invalid authorization), or 08004 (the server rejected the connection, as
     * pgjdbc reports a password the server asked for and was not given), anywhere in the chain.
     */
    private static boolean loginRefused(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof java.sql.SQLException se
                    && se.getSQLState() != null
                    && (se.getSQLState().startsWith("28") || se.getSQLState().equals("08004"))) {
                return true;
            }
        }
        return false;
    }

    /**
     * Which server process the pool reaches: 0 at first, raised each time a new connection reaches
     * another one (a restart, a failover). See {@link ServerIncarnation}.
     */
    public long incarnation() {
        return incarnation.current();
    }

    /**
     * Replaces every pooled connection (those in use when they come back), so that settings the
     * migration gave the database (ALTER DATABASE ... SET, on Citus) apply to all of them.
     */
    public void renewConnections() {
        var bean = pool.getHikariPoolMXBean();
        if (bean != null) {
            bean.softEvictConnections();
        }
    }

    public DataSource dataSource() {
        return pool;
    }

    /** The URL with its password masked, for messages and status output. */
    public String displayUrl() {
        return displayUrl;
    }

    public boolean isEmbedded() {
        return embedded != null;
    }

    @Override
    public void close() {
        pool.close();
        if (embedded != null) {
            embedded.release();
        }
    }
}
