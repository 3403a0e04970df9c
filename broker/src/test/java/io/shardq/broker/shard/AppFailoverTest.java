package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.CacheOptions;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.kv.Codec;
import io.shardq.broker.kv.KvCache;
import io.shardq.broker.testing.AppFailoverMain;
import io.shardq.broker.testing.ChildJvm;
import io.shardq.broker.testing.ReplicatedPostgres;
import io.shardq.broker.testing.ReplicatedPostgres.Replication;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Issue 29's scenario: an application in two JVMs whose transactions hold its own rows, ShardQ's
 * messages and cache entries together ({@link AppFailoverMain}), while the primary is killed and
 * its synchronous standby promoted three times in a row, a fresh standby rebuilt in between. At the
 * end, from the database and what the producers were told: every commit a producer saw return has
 * its row, its message consumed exactly once (one {@code app_consumed} row, written in the
 * consuming transaction) and its cache entry; every row sent (acknowledged or in doubt) was consumed
 * exactly once; nothing was consumed that was not sent; both JVMs resumed by themselves.
 */
@Tag("fault")
class AppFailoverTest {
    static final String QUEUE = "app.q";
    static final String CACHE = "app.c";

    @Test
    void applicationRowsMessagesAndCacheEntries_inTwoJvms_surviveThreeFailoversTogether() throws Exception {
        int failovers = Integer.getInteger("shardq.test.failovers", 3);
        Path dir = Files.createTempDirectory("shardq-app-failover");
        try (ReplicatedPostgres pg = ReplicatedPostgres.start("shardq-app-failover-pg", Replication.SYNCHRONOUS)) {
            BrokerConfig config = BrokerConfig.builder()
                    .isolated()
                    .set(BrokerProperty.JDBC_URL, pg.jdbcUrl())
                    .set(BrokerProperty.JDBC_USER, "postgres")
                    .set(BrokerProperty.POOL_TIMEOUT_MS, 2000)
                    .set(BrokerProperty.FAILOVER_WAIT_MS, 120_000)
                    .build();
            try (Broker admin = Broker.start(config)) {
                admin.admin()
                        .queues()
                        .create(QUEUE, QueueOptions.DEFAULTS.withShards(4).withMaxAttempts(1000));
                admin.admin().caches().create(CACHE, CacheOptions.DEFAULTS);
                exec(pg.jdbcUrl(), "CREATE TABLE app_sent (id text PRIMARY KEY)");
                exec(pg.jdbcUrl(), "CREATE TABLE app_consumed (id text NOT NULL)");
                List<ChildJvm> apps = new ArrayList<>();
                try {
                    for (String name : List.of("a", "b")) {
                        ChildJvm app =
                                ChildJvm.start(AppFailoverMain.class, pg.jdbcUrl(), QUEUE, CACHE, name, dir.toString());
                        assertThat(app.awaitLine("STARTED")).startsWith("STARTED");
                        apps.add(app);
                    }
                    for (int f = 0; f < failovers; f++) {
                        awaitAcked(dir, 300);
                        pg.failover();
                        awaitAcked(dir, 300); // both JVMs commit again on the new primary
                        pg.rebuildStandby();
                    }
                    awaitAcked(dir, 300);
                    Files.createFile(dir.resolve("stop-producing"));
                    Awaitility.await()
                            .atMost(Duration.ofMinutes(3))
                            .pollInterval(Duration.ofMillis(200))
                            .until(() -> admin.admin().queues().backlog(QUEUE) == 0
                                    && count(
                                                    pg.jdbcUrl(),
                                                    "SELECT count(*) FROM app_sent s WHERE NOT EXISTS"
                                                            + " (SELECT 1 FROM app_consumed c WHERE c.id = s.id)")
                                            == 0);
                    Files.createFile(dir.resolve("stop"));
                    for (ChildJvm app : apps) {
                        assertThat(app.awaitLine("EXITING", Duration.ofMinutes(2)))
                                .startsWith("EXITING");
                    }
                } finally {
                    for (ChildJvm app : apps) {
                        app.close();
                    }
                }

                Set<String> acked = new HashSet<>();
                for (String name : List.of("a", "b")) {
                    acked.addAll(lines(dir.resolve(name + ".acked")));
                }
                Set<String> sent = new HashSet<>(ids(pg.jdbcUrl(), "SELECT id FROM app_sent"));
                Map<String, Integer> consumed = new HashMap<>();
                for (String id : ids(pg.jdbcUrl(), "SELECT id FROM app_consumed")) {
                    consumed.merge(id, 1, Integer::sum);
                }
                assertThat(acked).as("acknowledged commits whose row is gone").isSubsetOf(sent);
                assertThat(sent.stream().filter(id -> consumed.getOrDefault(id, 0) != 1))
                        .as("sent rows not consumed exactly once")
                        .isEmpty();
                assertThat(consumed.keySet()).as("consumed but never sent").isSubsetOf(sent);
                KvCache<String, String> cache = admin.cache(CACHE, Codec.utf8(), Codec.utf8());
                Map<String, String> entries = cache.getAll(sent);
                assertThat(sent.stream().filter(id -> !("v-" + id).equals(entries.get(id))))
                        .as("sent rows without their cache entry")
                        .isEmpty();
                assertThat(acked).hasSizeGreaterThan(1000);
                System.out.printf(
                        "AppFailoverTest: %d failovers, %d commits acknowledged, %d rows sent (acknowledged or in"
                                + " doubt), each consumed once with its cache entry%n",
                        failovers, acked.size(), sent.size());
            }
        }
    }

    private static void awaitAcked(Path dir, int more) throws Exception {
        int before = lines(dir.resolve("a.acked")).size();
        int beforeB = lines(dir.resolve("b.acked")).size();
        Awaitility.await()
                .atMost(Duration.ofMinutes(3))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> lines(dir.resolve("a.acked")).size() >= before + more
                        && lines(dir.resolve("b.acked")).size() >= beforeB + more);
    }

    private static List<String> lines(Path file) throws Exception {
        return Files.exists(file)
                ? Files.readAllLines(file).stream().filter(l -> !l.isBlank()).toList()
                : List.of();
    }

    private static void exec(String url, String sql) throws Exception {
        try (Connection c = DriverManager.getConnection(url, "postgres", "");
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static long count(String url, String sql) throws Exception {
        try (Connection c = DriverManager.getConnection(url, "postgres", "");
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static List<String> ids(String url, String sql) throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(url, "postgres", "");
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }
}
