package io.shardq.broker.kv;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.CacheOptions;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Entries survive a restart of the JVM's broker and of PostgreSQL; an UNLOGGED cache survives a
 * clean shutdown but is emptied by a crash, as documented.
 */
@PgTest
class KvRestartTest {

    @Test
    void entries_surviveClosingAndReopeningTheBroker(TestDatabase db) {
        Map<String, String> m = entries();
        try (Broker b = Broker.start(db.brokerConfig().build())) {
            b.admin().createCache("kept", CacheOptions.DEFAULTS);
            b.admin().createCache("kept.unlogged", CacheOptions.DEFAULTS.withDurable(false));
            b.cache("kept", Codec.utf8(), Codec.utf8()).putAll(m, Duration.ofHours(1));
            b.cache("kept.unlogged", Codec.utf8(), Codec.utf8()).putAll(m);
        }
        try (Broker b = Broker.start(db.brokerConfig().build())) {
            assertThat(b.cache("kept", Codec.utf8(), Codec.utf8()).getAll(m.keySet()))
                    .isEqualTo(m);
            assertThat(b.cache("kept.unlogged", Codec.utf8(), Codec.utf8()).getAll(m.keySet()))
                    .isEqualTo(m);
        }
    }

    @Test
    @Tag("fault")
    void entries_survivePostgresRestarts_unloggedOnesOnlyAClean_one() throws Exception {
        Path dir = Files.createTempDirectory("shardq-kv-restart-pg");
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        EmbeddedPostgres pg = start(dir, port);
        BrokerConfig config = BrokerConfig.builder()
                .isolated()
                .set(BrokerProperty.JDBC_URL, "jdbc:postgresql://127.0.0.1:" + port + "/postgres")
                .set(BrokerProperty.JDBC_USER, "postgres")
                .build();
        Map<String, String> m = entries();
        try {
            try (Broker b = Broker.start(config)) {
                b.admin().createCache("durable", CacheOptions.DEFAULTS);
                b.admin().createCache("unlogged", CacheOptions.DEFAULTS.withDurable(false));
                b.cache("durable", Codec.utf8(), Codec.utf8()).putAll(m);
                b.cache("unlogged", Codec.utf8(), Codec.utf8()).putAll(m);
            }
            pg = restart(pg, dir, port, false); // fast shutdown: a checkpoint, unlogged tables kept
            try (Broker b = Broker.start(config)) {
                assertThat(b.cache("durable", Codec.utf8(), Codec.utf8()).getAll(m.keySet()))
                        .isEqualTo(m);
                assertThat(b.cache("unlogged", Codec.utf8(), Codec.utf8()).getAll(m.keySet()))
                        .isEqualTo(m);
            }
            pg = restart(pg, dir, port, true); // immediate: crash recovery empties unlogged tables
            try (Broker b = Broker.start(config)) {
                assertThat(b.cache("durable", Codec.utf8(), Codec.utf8()).getAll(m.keySet()))
                        .isEqualTo(m);
                assertThat(b.cache("unlogged", Codec.utf8(), Codec.utf8()).getAll(m.keySet()))
                        .isEmpty();
            }
        } finally {
            pg.close();
        }
    }

    private static Map<String, String> entries() {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < 100; i++) {
            m.put("k" + i, "v" + i);
        }
        return m;
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
                .setServerConfig("listen_addresses", "127.0.0.1")
                .start();
    }

    /** Stops PostgreSQL (SIGINT: fast; SIGQUIT: immediate, no checkpoint) and starts it again. */
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
            pg.close();
        } catch (IOException | RuntimeException ignored) {
            // the server is gone already
        }
        return start(dir, port);
    }
}
