package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.ShardQException;
import io.shardq.broker.testing.Messages;
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
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL restarted under load (fast and immediate shutdowns, alternately) while two ShardQ
 * instances send and receive: every message whose send committed is consumed exactly once by the
 * end, nothing else is consumed, and traffic resumes by itself after each restart. The server is
 * this test's own embedded PostgreSQL (it is killed), not the shared test server.
 *
 * <p>Sends and consumer commits whose connection broke during commit have an unknown outcome;
 * the accounting allows for that and nothing more: an in-doubt send may be consumed at most once,
 * an in-doubt consumption is either consumed by that commit or delivered again, never both, and at
 * the end the queue is empty. {@code -Dshardq.test.restarts=N} runs more restarts (default 5).
 */
@Tag("fault")
class PostgresRestartTest {
    static final String QUEUE = "restart.q";

    final Set<String> committedSends = ConcurrentHashMap.newKeySet();
    final Set<String> inDoubtSends = ConcurrentHashMap.newKeySet();
    final Map<String, Integer> consumed = new ConcurrentHashMap<>();
    final Set<String> inDoubtConsumed = ConcurrentHashMap.newKeySet();
    final AtomicLong lastConsumerCommitNanos = new AtomicLong();
    final List<String> unexpected = java.util.Collections.synchronizedList(new ArrayList<>());

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
            AtomicBoolean producing = new AtomicBoolean(true);
            AtomicBoolean consuming = new AtomicBoolean(true);
            ExecutorService pool = Executors.newFixedThreadPool(8);
            List<Future<?>> producers = new ArrayList<>();
            List<Future<?>> consumers = new ArrayList<>();
            for (int p = 0; p < 4; p++) {
                Broker broker = p % 2 == 0 ? a : b;
                int id = p;
                producers.add(pool.submit(() -> produce(broker, id, producing)));
                consumers.add(pool.submit(() -> consume(broker, consuming)));
            }
            for (int r = 0; r < restarts; r++) {
                awaitTraffic();
                boolean immediate = r % 2 == 1;
                pg = restart(pg, dir, port, immediate);
                long accepting = System.nanoTime();
                long before = lastConsumerCommitNanos.get();
                Awaitility.await()
                        .atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(20))
                        .until(() -> lastConsumerCommitNanos.get() > Math.max(before, accepting));
                resumeMillis.add(TimeUnit.NANOSECONDS.toMillis(lastConsumerCommitNanos.get() - accepting));
            }
            producing.set(false);
            for (Future<?> f : producers) {
                f.get(2, TimeUnit.MINUTES);
            }
            Awaitility.await()
                    .atMost(Duration.ofMinutes(2))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> a.admin().backlog(QUEUE) == 0 && everyCommittedSendAccountedFor());
            consuming.set(false);
            for (Future<?> f : consumers) {
                f.get(2, TimeUnit.MINUTES);
            }
            pool.shutdown();
            assertThat(a.stats().deadLettered() + b.stats().deadLettered()).isZero();
        } finally {
            pg.close();
        }
        System.out.printf(
                "PostgresRestartTest: %d restarts, %d sends committed, %d in doubt, %d consumed, %d consumer"
                        + " commits in doubt; ms from PostgreSQL accepting connections to the next consumer commit:"
                        + " %s%n",
                restarts,
                committedSends.size(),
                inDoubtSends.size(),
                consumed.size(),
                inDoubtConsumed.size(),
                resumeMillis);
        assertThat(unexpected).isEmpty();
        assertThat(consumed.values()).allMatch(n -> n == 1, "consumed exactly once");
        for (String id : consumed.keySet()) {
            assertThat(committedSends.contains(id) || inDoubtSends.contains(id))
                    .as("%s was consumed but never sent", id)
                    .isTrue();
        }
        assertThat(everyCommittedSendAccountedFor()).isTrue();
        assertThat(committedSends).hasSizeGreaterThan(100);
    }

    /** Each committed send was consumed, or its consuming commit was in doubt (and took effect). */
    private boolean everyCommittedSendAccountedFor() {
        for (String id : committedSends) {
            if (!consumed.containsKey(id) && !inDoubtConsumed.contains(id)) {
                return false;
            }
        }
        return true;
    }

    private void awaitTraffic() {
        long before = lastConsumerCommitNanos.get();
        Awaitility.await()
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> lastConsumerCommitNanos.get() > before && committedSends.size() > 50);
    }

    private Void produce(Broker broker, int producer, AtomicBoolean producing) {
        int tx = 0;
        while (producing.get()) {
            List<String> batch = new ArrayList<>();
            try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                while (producing.get()) {
                    batch.clear();
                    for (int i = 0; i < 5; i++) {
                        String id = producer + ":" + tx + ":" + i;
                        s.send(QUEUE, Messages.text(id));
                        batch.add(id);
                    }
                    tx++;
                    s.commit();
                    committedSends.addAll(batch);
                    batch.clear();
                }
            } catch (ShardQException e) {
                if (inDoubt(e)) {
                    inDoubtSends.addAll(batch);
                } else if (!expectedDuringRestart(e)) {
                    unexpected.add("producer: " + e);
                }
                pause();
            }
        }
        return null;
    }

    private Void consume(Broker broker, AtomicBoolean consuming) {
        while (consuming.get()) {
            List<String> batch = new ArrayList<>();
            try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                while (consuming.get()) {
                    batch.clear();
                    Delivery d = s.receive(QUEUE, 100, false);
                    while (d != null) {
                        batch.add(Messages.body(d.message()));
                        d = batch.size() < 5 ? s.receive(QUEUE, -1, false) : null;
                    }
                    if (batch.isEmpty()) {
                        continue;
                    }
                    s.commit();
                    for (String id : batch) {
                        consumed.merge(id, 1, Integer::sum);
                    }
                    batch.clear();
                    lastConsumerCommitNanos.set(System.nanoTime());
                }
            } catch (ShardQException e) {
                if (inDoubt(e)) {
                    inDoubtConsumed.addAll(batch);
                } else if (!expectedDuringRestart(e)) {
                    unexpected.add("consumer: " + e);
                }
                pause();
            }
        }
        return null;
    }

    private static boolean inDoubt(ShardQException e) {
        return e.kind() == ErrorKind.IN_DOUBT;
    }

    /** What an application sees while PostgreSQL is down: connection errors, rollbacks, a full pool. */
    private static boolean expectedDuringRestart(ShardQException e) {
        return e.kind() == ErrorKind.CONNECTION
                || e.kind() == ErrorKind.ROLLED_BACK
                || e.kind() == ErrorKind.RESOURCE_EXHAUSTED
                || e.kind() == ErrorKind.DATABASE; // "terminating connection due to administrator command" and kin
    }

    private static void pause() {
        try {
            Thread.sleep(50); // back-off of a retrying client, not a wait for a condition
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
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
