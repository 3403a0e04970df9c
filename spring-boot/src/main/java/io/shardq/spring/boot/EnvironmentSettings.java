package io.shardq.spring.boot;

import com.zaxxer.hikari.HikariDataSource;
import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.JdbcUrls;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.springframework.core.env.Environment;

/**
 * The engine's settings ({@link BrokerProperty}) read from the Spring environment, so that {@code
 * application.properties}/{@code .yml}, profiles and Spring's other property sources set them;
 * what the environment does not set falls back, as everywhere in ShardQ, to the JVM system
 * property, the environment variable and the default. When sessions join the application's
 * DataSource and {@code shardq.jdbc.url} is set nowhere, ShardQ's own pool (the engine's
 * background work: leases, heartbeat, wake-ups, maintenance) connects to the DataSource's database.
 * Without {@code shardq.instance.name}, an application with {@code spring.application.name} is
 * named after it, with its process id and host ({@code "order-service (pid 6488 on vm)"}), in
 * {@code shardq status} and the console.
 */
final class EnvironmentSettings {
    private EnvironmentSettings() {}

    static BrokerConfig brokerConfig(Environment env, DataSource joined) {
        BrokerConfig.Builder b = BrokerConfig.builder();
        for (BrokerProperty p : BrokerProperty.values()) {
            String v = env.getProperty(p.key());
            if (v != null) {
                b.set(p, v);
            }
        }
        String named = env.getProperty(BrokerProperty.INSTANCE_NAME.key());
        String application = env.getProperty("spring.application.name");
        if ((named == null || named.isBlank()) && application != null && !application.isBlank()) {
            b.set(BrokerProperty.INSTANCE_NAME, instanceName(application.strip(), runtimeName()));
        }
        if (joined != null && b.build().embedded()) {
            Target t = target(joined, env);
            b.set(BrokerProperty.JDBC_URL, t.url()).set(BrokerProperty.JDBC_USER, t.user());
            if (t.password() != null) {
                b.set(BrokerProperty.JDBC_PASSWORD, t.password());
            }
        }
        return b.build();
    }

    /**
     * The instance's name after the application's: {@code "order-service (pid 6488 on vm)"}.
     *
     * @param pidAtHost the runtime's name, {@code pid@host}
     */
    static String instanceName(String application, String pidAtHost) {
        String[] ph = pidAtHost.split("@", 2);
        return application + " (pid " + ph[0] + (ph.length > 1 ? " on " + ph[1] : "") + ")";
    }

    private static String runtimeName() {
        return java.lang.management.ManagementFactory.getRuntimeMXBean().getName();
    }

    /** Where the application's DataSource connects. */
    record Target(String url, String user, String password) {}

    static Target target(DataSource ds, Environment env) {
        Target t;
        try {
            if (ds.isWrapperFor(HikariDataSource.class)) {
                HikariDataSource h = ds.unwrap(HikariDataSource.class);
                t = h.getJdbcUrl() == null
                        ? fromMetadata(ds, env)
                        : new Target(h.getJdbcUrl(), h.getUsername(), h.getPassword());
            } else if (ds.isWrapperFor(org.postgresql.ds.common.BaseDataSource.class)) {
                org.postgresql.ds.common.BaseDataSource pg = ds.unwrap(org.postgresql.ds.common.BaseDataSource.class);
                t = new Target(pg.getUrl(), pg.getUser(), pg.getPassword());
            } else {
                t = fromMetadata(ds, env);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "ShardQ cannot learn where the application's DataSource connects (" + e.getMessage()
                            + "): set shardq.jdbc.url, shardq.jdbc.user and shardq.jdbc.password to its database",
                    e);
        }
        if (t.url() == null || !t.url().startsWith("jdbc:postgresql:")) {
            throw new IllegalStateException(
                    "the application's DataSource connects to " + JdbcUrls.mask(String.valueOf(t.url()))
                            + ", which is not PostgreSQL: ShardQ keeps its messages in the application's PostgreSQL database"
                            + " so that they commit with its data. Point the DataSource at PostgreSQL, or set"
                            + " shardq.spring.join-transactions=false (and shardq.jdbc.url for ShardQ's own database)");
        }
        return t;
    }

    /** Any other DataSource: asked once; the password is not readable, so it comes from the environment. */
    private static Target fromMetadata(DataSource ds, Environment env) throws SQLException {
        try (Connection c = ds.getConnection()) {
            DatabaseMetaData md = c.getMetaData();
            return new Target(md.getURL(), md.getUserName(), env.getProperty("spring.datasource.password"));
        }
    }
}
