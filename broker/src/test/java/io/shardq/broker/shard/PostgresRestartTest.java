package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.QueueOptions;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL restarted under load (fast and immediate shutdowns, alternately) while two ShardQ
 * instances send and receive: every message whose send committed is consumed exactly once by the
 * end, nothing else is consumed, and traffic resumes by itself after each restart. The server is
 * this test's own embedded PostgreSQL (it is killed), not the shared test server.
 *
 * <p>The accounting is {@link FaultyWorkload}'s. {@code -Dshardq.test.restarts=N} runs more
 * restarts (default 5).
 */
@Tag("fault")
class PostgresRestartTest {
    static final String QUEUE = "restart.q";

    @Test
    void restartsUnderLoad_loseNothing_duplicateNothing_andTrafficResumes() throws Exception {
        int restarts = Integer.getInteger("shardq.test.restarts", 5);
        Path dir = Files.createTempDirectory("shardq-restart-pg");
        int port = freePort();
        EmbeddedPostgres pg = start(dir, port);
        String url = "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
        BrokerConfig config = BrokerConfig.builder()
                .isolated()
                .set(BrokerProperty.JDBC_URL, url)
                .set(BrokerProperty.JDBC_USER, "postgres")
                .set(BrokerProperty.HEARTBEAT_MS, 200)
                .set(BrokerProperty.LEASE_TTL_MS, 3000)
                .set(BrokerProperty.POOL_SIZE, 16)
                .set(BrokerProperty.POOL_TIMEOUT_MS, 2000)
                .build();
        List<Long> resumeMillis = new ArrayList<>();
        try (Broker a = Broker.start(config);
                Broker b = Broker.start(config)) {
            a.admin().createQueue(QUEUE, QueueOptions.DEFAULTS.withShards(4).withMaxAttempts(1000));
            FaultyWorkload w = new FaultyWorkload(QUEUE).start(4, a, b);
            for (int r = 0; r < restarts; r++) {
                w.awaitTraffic();
                boolean immediate = r % 2 == 1;
                pg = restart(pg, dir, port, immediate);
                resumeMillis.add(w.millisUntilConsumerCommit(System.nanoTime()));
            }
            w.finishAndVerify(a);
            assertThat(a.stats().deadLettered() + b.stats().deadLettered()).isZero();
            System.out.printf(
                    "PostgresRestartTest: %d restarts, %s; ms from PostgreSQL accepting connections to the next"
                            + " consumer commit: %s%n",
                    restarts, w.summary(), resumeMillis);
        } finally {
            pg.close();
        }
    }

    private static EmbeddedPostgres start(Path dir, int port) throws IOException {
        return EmbeddedPostgres.builder()
                .setDataDirectory(dir)
                .setCleanDataDirectory(false)
                .setRegisterShutdownHook(true)
                .setPort(port)
                .setPGStartupWait(Duration.ofSeconds(60))
                .setServerConfig("fsync", "on")
                .setServerConfig("synchronous_commit", "on")
                .setServerConfig("max_connections", "100")
                .setServerConfig("listen_addresses", "127.0.0.1")
                .start();
    }

    /** Stops PostgreSQL (SIGINT: fast, SIGQUIT: immediate, no checkpoint) and starts it again. */
    private static EmbeddedPostgres restart(EmbeddedPostgres pg, Path dir, int port, boolean immediate)
            throws Exception {
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
        EmbeddedPostgres next = start(dir, port);
        try (Connection c =
                DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/postgres", "postgres", "")) {
            assertThat(c.isValid(5)).isTrue();
        }
        return next;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
