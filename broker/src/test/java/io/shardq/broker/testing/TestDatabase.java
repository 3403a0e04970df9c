package io.shardq.broker.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.ExtensionContext;

/** A fresh database of one test class on the test server. */
public final class TestDatabase implements ExtensionContext.Store.CloseableResource, AutoCloseable {
    private final String jdbcUrl;
    private final String user;
    private final String password;
    private final String name;
    private HikariDataSource dataSource;

    TestDatabase(String jdbcUrl, String user, String password, String name) {
        this.jdbcUrl = jdbcUrl;
        this.user = user;
        this.password = password;
        this.name = name;
    }

    public String jdbcUrl() {
        return jdbcUrl;
    }

    public String user() {
        return user;
    }

    public String password() {
        return password;
    }

    public String name() {
        return name;
    }

    /**
     * A second fresh database on the same server (e.g. the other resource of an XA test), named
     * this one's name plus {@code _suffix}; the caller closes it (which drops it).
     */
    public TestDatabase sibling(String suffix) {
        return PgExtension.createSibling(name, suffix);
    }

    /** A small pool on this database, closed after the test class. */
    public synchronized DataSource dataSource() {
        if (dataSource == null) {
            HikariConfig hc = new HikariConfig();
            hc.setJdbcUrl(jdbcUrl);
            hc.setUsername(user);
            hc.setPassword(password);
            hc.setMaximumPoolSize(4);
            hc.setPoolName("test-" + name);
            dataSource = new HikariDataSource(hc);
        }
        return dataSource;
    }

    /** Whether this database is on a Citus coordinator (the citus extension is installed in it). */
    public boolean citus() {
        return CitusDatabases.isCoordinator(jdbcUrl, user, password);
    }

    /**
     * Skips the calling test, saying why, when this database is on Citus: for a test of something
     * Citus refuses or ShardQ does differently there (docs/design/citus.md).
     */
    public void assumeNotCitus(String why) {
        org.junit.jupiter.api.Assumptions.assumeFalse(citus(), () -> "skipped on Citus: " + why);
    }

    /** A plain connection outside any pool. */
    public Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl, user, password);
    }

    /**
     * A setting the whole suite can be run with ({@code -Dshardq.test.commit.shared-sends=true}): the
     * broker's default otherwise. Tests that set it themselves keep their own value.
     */
    public static final String SHARED_SENDS_PROPERTY = "shardq.test.commit.shared-sends";

    /**
     * Broker settings pointing at this database, ignoring the process environment (except {@link
     * #SHARED_SENDS_PROPERTY}, so that the fault tests can be run with shared send commits on).
     */
    public BrokerConfig.Builder brokerConfig() {
        BrokerConfig.Builder b = BrokerConfig.builder()
                .isolated()
                .set(BrokerProperty.JDBC_URL, jdbcUrl)
                .set(BrokerProperty.JDBC_USER, user)
                .set(BrokerProperty.JDBC_PASSWORD, password)
                .set(BrokerProperty.POOL_SIZE, 8);
        String shared = System.getProperty(SHARED_SENDS_PROPERTY);
        if (shared != null) {
            b.set(BrokerProperty.COMMIT_SHARED_SENDS, shared);
        }
        return b;
    }

    @Override
    public synchronized void close() {
        if (dataSource != null) {
            dataSource.close();
        }
        PgExtension.dropDatabase(name);
    }
}
