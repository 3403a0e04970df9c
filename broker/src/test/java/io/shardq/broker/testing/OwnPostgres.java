package io.shardq.broker.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A PostgreSQL of a fault test's own (embedded, durable, on a data directory and port that stay
 * the same across restarts), which the test may stop (SIGINT: fast, SIGQUIT: immediate) and start
 * again: the shared test server is never killed.
 */
public final class OwnPostgres implements AutoCloseable {
    private final Path dir;
    private final int port;
    private final int maxPreparedTransactions;
    private EmbeddedPostgres pg;

    private OwnPostgres(Path dir, int port, int maxPreparedTransactions) throws IOException {
        this.dir = dir;
        this.port = port;
        this.maxPreparedTransactions = maxPreparedTransactions;
        this.pg = start();
    }

    /** Starts a new server in a temporary data directory on a free port. */
    public static OwnPostgres start(String prefix) throws IOException {
        return start(prefix, 20);
    }

    /** As {@link #start(String)}, with this {@code max_prepared_transactions} (0: no XA). */
    public static OwnPostgres start(String prefix, int maxPreparedTransactions) throws IOException {
        Path dir = Files.createTempDirectory(prefix);
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort(); // free once the socket is closed, for PostgreSQL to bind
        }
        return new OwnPostgres(dir, port, maxPreparedTransactions);
    }

    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
    }

    private EmbeddedPostgres start() throws IOException {
        return EmbeddedPostgres.builder()
                .setDataDirectory(dir)
                .setCleanDataDirectory(false)
                .setRegisterShutdownHook(true)
                .setPort(port)
                .setPGStartupWait(Duration.ofSeconds(60))
                .setServerConfig("fsync", "on")
                .setServerConfig("synchronous_commit", "on")
                .setServerConfig("max_connections", "100")
                .setServerConfig("max_prepared_transactions", Integer.toString(maxPreparedTransactions))
                .setServerConfig("listen_addresses", "127.0.0.1")
                .start();
    }

    /** Stops the server (SIGQUIT when {@code immediate}: no checkpoint; else SIGINT) and waits for it. */
    public void stop(boolean immediate) throws Exception {
        long pid = Long.parseLong(
                Files.readAllLines(dir.resolve("postmaster.pid")).get(0).trim());
        new ProcessBuilder("kill", immediate ? "-QUIT" : "-INT", Long.toString(pid))
                .inheritIO()
                .start()
                .waitFor();
        ProcessHandle.of(pid)
                .ifPresent(h -> h.onExit().orTimeout(60, TimeUnit.SECONDS).join());
        try {
            pg.close(); // releases the data directory's lock; the server is gone already
        } catch (IOException | RuntimeException ignored) {
            // pg_ctl stop finds nothing to stop
        }
    }

    /** Starts the stopped server again, on the same data and port, and waits until it accepts connections. */
    public void startAgain() throws IOException, SQLException {
        pg = start();
        try (Connection c = DriverManager.getConnection(jdbcUrl(), "postgres", "")) {
            if (!c.isValid(5)) {
                throw new SQLException("PostgreSQL did not come back on " + jdbcUrl());
            }
        }
    }

    /** Stops and starts the server again. */
    public void restart(boolean immediate) throws Exception {
        stop(immediate);
        startAgain();
    }

    @Override
    public void close() throws IOException {
        pg.close();
    }
}
