package io.shardq.broker.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Hands tests a real PostgreSQL database, one fresh database per test class.
 *
 * <p>The server, chosen once per test JVM: {@code SHARDQ_TEST_JDBC_URL} (with {@code
 * SHARDQ_TEST_USER}/{@code SHARDQ_TEST_PASSWORD}) if set; else a Testcontainers PostgreSQL if a
 * Docker engine answers; else the embedded PostgreSQL in a temporary directory, with the same
 * durable settings ShardQ uses by default. Never a mock. When {@code SHARDQ_TEST_JDBC_URL} names a
 * Citus coordinator (the citus extension is installed in its database), each test database is
 * made a Citus database over the coordinator's active workers, so the suite runs on Citus
 * (docs/citus.md).
 *
 * <p>After the class (its own {@code @AfterAll} methods have run, before its database is
 * dropped) the database's invariants are checked ({@link InvariantChecker}, after Caffeine's
 * {@code CacheValidationInterceptor}): a violated invariant fails the class with the rows that
 * break it.
 */
public final class PgExtension implements ParameterResolver, AfterAllCallback {
    private static final AtomicInteger COUNTER = new AtomicInteger();
    private static Server server;

    /** Where test databases are created: admin URL template and credentials. */
    record Server(String urlPrefix, String user, String password, String description, boolean citus) {
        String url(String database) {
            return urlPrefix + database;
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return parameterContext.getParameter().getType() == TestDatabase.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext context) {
        ExtensionContext classContext = context;
        while (classContext.getParent().isPresent()
                && classContext.getParent().get().getTestClass().isPresent()) {
            classContext = classContext.getParent().get();
        }
        return classContext
                .getStore(ExtensionContext.Namespace.create(PgExtension.class))
                .getOrComputeIfAbsent(
                        "database", k -> createDatabase(context.getRequiredTestClass()), TestDatabase.class);
    }

    /**
     * Checks the class's database, if it made one. Runs once per top-level class: the store of a
     * nested class would see its enclosing class's database, still in use.
     */
    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        if (context.getParent().flatMap(ExtensionContext::getTestClass).isPresent()) {
            return;
        }
        TestDatabase db = context.getStore(ExtensionContext.Namespace.create(PgExtension.class))
                .get("database", TestDatabase.class);
        if (db == null) {
            return;
        }
        InvariantChecker.Report report = InvariantChecker.check(db);
        if (Boolean.getBoolean("shardq.test.invariants.verbose")
                || !report.notes().isEmpty()) {
            System.out.println("[invariants] " + context.getRequiredTestClass().getName() + ": " + report);
        }
        if (!report.ok()) {
            throw new AssertionError("after " + context.getRequiredTestClass().getSimpleName() + ", database "
                    + db.name() + ": " + report);
        }
    }

    /** The server tests run against, started on first use. */
    static synchronized Server server() {
        if (server == null) {
            server = startServer();
        }
        return server;
    }

    /** What kind of server this JVM's tests use, for test reports. */
    public static String serverDescription() {
        return server().description();
    }

    private static Server startServer() {
        String url = System.getenv("SHARDQ_TEST_JDBC_URL");
        if (url != null && !url.isBlank()) {
            String prefix = url.substring(0, url.lastIndexOf('/') + 1);
            String user = envOr("SHARDQ_TEST_USER", "postgres");
            String password = envOr("SHARDQ_TEST_PASSWORD", "");
            boolean citus = CitusDatabases.isCoordinator(prefix + "postgres", user, password);
            return new Server(
                    prefix,
                    user,
                    password,
                    citus ? "SHARDQ_TEST_JDBC_URL (a Citus coordinator)" : "SHARDQ_TEST_JDBC_URL",
                    citus);
        }
        if (dockerAnswers()) {
            return Containers.start();
        }
        try {
            Path dir = Files.createTempDirectory("shardq-test-pg");
            EmbeddedPostgres pg = EmbeddedPostgres.builder()
                    .setDataDirectory(dir)
                    .setCleanDataDirectory(true)
                    .setServerConfig("fsync", "on")
                    .setServerConfig("synchronous_commit", "on")
                    .setServerConfig("max_connections", "300")
                    .setServerConfig("shared_buffers", "128MB")
                    .setServerConfig("max_prepared_transactions", "100") // XA tests (issue 13)
                    .start();
            return new Server(
                    "jdbc:postgresql://127.0.0.1:" + pg.getPort() + "/", "postgres", "", "embedded PostgreSQL", false);
        } catch (Exception e) {
            throw new IllegalStateException("cannot start the embedded PostgreSQL for tests: " + e, e);
        }
    }

    private static boolean dockerAnswers() {
        if (!Files.exists(Path.of("/var/run/docker.sock")) && System.getenv("DOCKER_HOST") == null) {
            return false;
        }
        try {
            return org.testcontainers.DockerClientFactory.instance().isDockerAvailable();
        } catch (Throwable t) {
            return false;
        }
    }

    private static TestDatabase createDatabase(Class<?> testClass) {
        Server s = server();
        String name = ("t_" + testClass.getSimpleName() + "_" + COUNTER.incrementAndGet() + "_"
                        + ProcessHandle.current().pid())
                .toLowerCase(Locale.ROOT);
        if (name.length() > 60) {
            name = name.substring(name.length() - 60);
        }
        createOn(s, name);
        return new TestDatabase(s.url(name), s.user(), s.password(), name);
    }

    private static void createOn(Server s, String name) {
        if (s.citus()) {
            CitusDatabases.create(s.url("postgres"), s.user(), s.password(), name);
        } else {
            execAdmin("create database " + name);
        }
    }

    static void dropDatabase(String name) {
        rollbackPrepared(name);
        if (server().citus()) {
            CitusDatabases.drop(server().url("postgres"), server().user(), server().password(), name);
        } else {
            execAdmin("drop database if exists " + name + " with (force)");
        }
    }

    /** A database with prepared transactions cannot be dropped: an XA test may leave some behind. */
    private static void rollbackPrepared(String name) {
        Server s = server();
        try (Connection c = DriverManager.getConnection(s.url(name), s.user(), s.password());
                Statement st = c.createStatement()) {
            java.util.List<String> gids = new java.util.ArrayList<>();
            try (var rs = st.executeQuery("select gid from pg_prepared_xacts where database = current_database()")) {
                while (rs.next()) {
                    gids.add(rs.getString(1));
                }
            }
            for (String gid : gids) {
                st.execute("rollback prepared '" + gid.replace("'", "''") + "'");
            }
        } catch (SQLException e) {
            // the database is gone or unreachable: the drop reports what matters
        }
    }

    /** Another fresh database on the same server, named after {@code base}. */
    static TestDatabase createSibling(String base, String suffix) {
        Server s = server();
        String name = (base.length() + suffix.length() + 1 > 60 ? base.substring(0, 59 - suffix.length()) : base) + "_"
                + suffix;
        createOn(s, name);
        return new TestDatabase(s.url(name), s.user(), s.password(), name);
    }

    private static void execAdmin(String sql) {
        Server s = server();
        try (Connection c = DriverManager.getConnection(s.url("postgres"), s.user(), s.password());
                Statement st = c.createStatement()) {
            st.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + " failed on " + s.description() + ": " + e.getMessage(), e);
        }
    }

    private static String envOr(String name, String fallback) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? fallback : v;
    }

    /** Kept in its own class so Testcontainers loads only when Docker answers. */
    private static final class Containers {
        static Server start() {
            var pg = new org.testcontainers.containers.PostgreSQLContainer<>("postgres:17")
                    .withCommand(
                            "postgres",
                            "-c",
                            "fsync=on",
                            "-c",
                            "synchronous_commit=on",
                            "-c",
                            "max_connections=300",
                            "-c",
                            "max_prepared_transactions=100");
            pg.start();
            String url = pg.getJdbcUrl();
            return new Server(
                    url.substring(0, url.lastIndexOf('/') + 1),
                    pg.getUsername(),
                    pg.getPassword(),
                    "Testcontainers",
                    false);
        }
    }
}
