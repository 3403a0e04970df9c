package io.shardq.broker.kv;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.CacheOptions;
import io.shardq.broker.CacheStats;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.SettableClock;
import io.shardq.broker.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The cache's operations against a real PostgreSQL. */
@PgTest
class KvCacheTest {
    Broker broker;
    TestDatabase db;
    SettableClock clock = SettableClock.now();

    @BeforeEach
    void start(TestDatabase db) {
        this.db = db;
        broker = Broker.start(db.brokerConfig().build(), clock);
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    private KvCache<String, String> create(String name, CacheOptions o) {
        broker.admin().caches().create(name, o);
        return broker.cache(name, Codec.utf8(), Codec.utf8());
    }

    @Test
    void putGetRemove_behaveAsAMap() {
        KvCache<String, String> c = create("crud", CacheOptions.DEFAULTS);
        assertThat(c.get("a")).isNull();
        c.put("a", "1");
        assertThat(c.get("a")).isEqualTo("1");
        assertThat(c.containsKey("a")).isTrue();
        c.put("a", "2");
        assertThat(c.get("a")).isEqualTo("2");

        assertThat(c.putIfAbsent("a", "3")).isFalse();
        assertThat(c.get("a")).isEqualTo("2");
        assertThat(c.putIfAbsent("b", "3")).isTrue();
        assertThat(c.get("b")).isEqualTo("3");

        assertThat(c.replace("a", "4")).isTrue();
        assertThat(c.get("a")).isEqualTo("4");
        assertThat(c.replace("zz", "5")).isFalse();
        assertThat(c.containsKey("zz")).isFalse();

        assertThat(c.remove("a")).isTrue();
        assertThat(c.remove("a")).isFalse();
        assertThat(c.get("a")).isNull();
        assertThat(c.containsKey("a")).isFalse();

        c.clear();
        assertThat(c.get("b")).isNull();

        CacheStats local = c.localStats();
        assertThat(local.puts()).isEqualTo(4);
        assertThat(local.entries()).isEqualTo(-1); // not read from the database
        CacheStats s = c.stats();
        assertThat(s.puts()).isEqualTo(4); // a, a, b, replace a
        assertThat(s.removals()).isEqualTo(1);
        assertThat(s.hits()).isEqualTo(5);
        assertThat(s.misses()).isEqualTo(3);
        assertThat(s.entries()).isZero();
    }

    @Test
    void batches_areChunked_andAllOrNothing() throws Exception {
        KvCache<String, String> c = create("batch", CacheOptions.DEFAULTS).withMaxBatchSize(7);
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < 50; i++) {
            m.put("k" + i, "v" + i);
        }
        c.putAll(m);
        List<String> wanted = new ArrayList<>(m.keySet());
        wanted.add("missing");
        Map<String, String> got = c.getAll(wanted);
        assertThat(got).isEqualTo(m);
        assertThat(new ArrayList<>(got.keySet())).isEqualTo(new ArrayList<>(m.keySet())); // in the order asked

        assertThat(c.getAll(List.of())).isEmpty();
        c.putAll(Map.of());
        assertThat(c.removeAll(List.of())).isZero();
        assertThat(c.removeAll(List.of("k1", "k2", "k3", "nope"))).isEqualTo(3);
        assertThat(c.getAll(List.of("k1", "k2", "k3", "k4"))).containsOnlyKeys("k4");
        assertThat(rows("batch")).isEqualTo(47);
        assertThat(broker.admin().caches().stats("batch").entries()).isEqualTo(47);
    }

    @Test
    void readThrough_loadsOnAMiss_andStoresWhatItLoaded() {
        KvCache<String, String> c = create("loader", CacheOptions.DEFAULTS);
        List<String> calls = new ArrayList<>();
        assertThat(c.get("x", k -> {
                    calls.add(k);
                    return "loaded-" + k;
                }))
                .isEqualTo("loaded-x");
        assertThat(c.get("x", k -> {
                    calls.add(k);
                    return "again";
                }))
                .isEqualTo("loaded-x");
        assertThat(calls).containsExactly("x");
        // a failing loader stores nothing; the next call tries again
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> c.get("y", k -> {
                    throw new IllegalStateException("backend down");
                }))
                .hasMessage("backend down");
        assertThat(c.get("y", k -> "up")).isEqualTo("up");
        CacheStats s = c.stats();
        assertThat(s.loads()).isEqualTo(3);
        assertThat(s.loadFailures()).isEqualTo(1);
    }

    /**
     * Eight threads put (with and without TTLs, so a key's row moves between partitions), put in
     * batches, put if absent, replace and remove the same 16 keys: every key has at most one row.
     */
    @Test
    void oneKey_hasOneRow_underConcurrentWriters() throws Exception {
        KvCache<String, String> c = create("race", CacheOptions.DEFAULTS.withMaxTtl(Duration.ofHours(1)))
                .withMaxBatchSize(5);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                done.add(pool.submit(() -> {
                    ThreadLocalRandom r = ThreadLocalRandom.current();
                    for (int i = 0; i < 150; i++) {
                        String k = "k" + r.nextInt(16);
                        Duration ttl = r.nextBoolean() ? null : Duration.ofMinutes(1 + r.nextInt(59));
                        switch (r.nextInt(5)) {
                            case 0 -> c.put(k, "v" + i, ttl);
                            case 1 -> {
                                Map<String, String> m = new LinkedHashMap<>();
                                for (int j = 0; j < 12; j++) {
                                    m.put("k" + r.nextInt(16), "b" + i);
                                }
                                c.putAll(m, ttl);
                            }
                            case 2 -> c.putIfAbsent(k, "a" + i, ttl);
                            case 3 -> c.replace(k, "r" + i, ttl);
                            default -> c.remove(k);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        try (Connection conn = db.connect();
                Statement s = conn.createStatement();
                ResultSet rs = s.executeQuery("select count(*) from (select k from shardq.\"kv_"
                        + broker.admin().caches().get("race").id() + "\" group by k having count(*) > 1) d")) {
            rs.next();
            assertThat(rs.getLong(1)).as("keys with more than one row").isZero();
        }
    }

    /** A keyed lookup probes each partition's primary key: no scan, whatever the size. */
    @Test
    void lookup_probesPrimaryKeys_neverScans() throws Exception {
        KvCache<String, String> c = create("plan", CacheOptions.DEFAULTS.withMaxTtl(Duration.ofHours(1)))
                .withMaxBatchSize(1000);
        for (int b = 0; b < 20; b++) {
            Map<String, String> m = new LinkedHashMap<>();
            for (int i = 0; i < 1000; i++) {
                m.put("key-" + b + "-" + i, "value-" + i);
            }
            c.putAll(m, b % 2 == 0 ? null : Duration.ofMinutes(3 * b));
        }
        int id = broker.admin().caches().get("plan").id();
        StringBuilder plan = new StringBuilder();
        try (Connection conn = db.connect();
                Statement s = conn.createStatement()) {
            s.execute("analyze shardq.\"kv_" + id + "\"");
            try (ResultSet rs = s.executeQuery("explain select k, v from shardq.\"kv_" + id + "\" where k = any("
                    + "array['key-3-7'::bytea, 'key-4-9'::bytea]) and (expires_at is null or expires_at >"
                    + " shardq.kv_ts(" + clock.millis() + "))")) {
                while (rs.next()) {
                    plan.append(rs.getString(1)).append('\n');
                }
            }
        }
        System.out.println("KvCacheTest: lookup plan with 20,000 entries in "
                + broker.admin().caches().get("plan").partitions() + " partitions:\n" + plan);
        // each partition with entries is probed by its primary key; PostgreSQL "scans" only the
        // empty ones, which have no page to read (cost 0.00..0.00)
        assertThat(plan.toString()).contains("Index Scan");
        assertThat(plan.toString().lines().filter(l -> l.contains("Seq Scan")))
                .allMatch(l -> l.contains("cost=0.00..0.00"));
        assertThat(c.get("key-3-7")).isEqualTo("value-7");
    }

    @Test
    void keys_listEveryLiveKeyOnce_inPages_inKeyOrder_mergingTheIndexesWithoutASort() throws Exception {
        KvCache<String, String> c = create("listed", CacheOptions.DEFAULTS.withMaxTtl(Duration.ofHours(1)));
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            String k = String.format("k%02d", i);
            c.put(k, "v", i % 3 == 0 ? null : Duration.ofMinutes(i)); // in the forever and in bucket partitions
            expected.add(k);
        }
        c.put("short-lived", "v", Duration.ofSeconds(5));
        c.remove("k07");
        expected.remove("k07");
        clock.advance(Duration.ofSeconds(5));
        List<String> listed = new ArrayList<>();
        List<String> page = c.keys(null, 10);
        while (!page.isEmpty()) {
            assertThat(page).hasSizeLessThanOrEqualTo(10);
            listed.addAll(page);
            page = c.keys(page.get(page.size() - 1), 10);
        }
        assertThat(listed).as("live keys only, each once, in order").isEqualTo(expected);
        assertThat(c.keys("k23", 10)).containsExactly("k24");
    }

    @Test
    void keys_pageOfALargeCache_mergesThePartitionsIndexes_withoutASort() throws Exception {
        KvCache<String, String> c = create("listed-large", CacheOptions.DEFAULTS.withMaxTtl(Duration.ofHours(1)))
                .withMaxBatchSize(1000);
        for (int b = 0; b < 8; b++) {
            Map<String, String> m = new LinkedHashMap<>();
            for (int i = 0; i < 1000; i++) {
                m.put("key-" + b + "-" + i, "value-" + i);
            }
            c.putAll(m, b % 2 == 0 ? null : Duration.ofMinutes(5 * b));
        }
        int id = broker.admin().caches().get("listed-large").id();
        StringBuilder plan = new StringBuilder();
        try (Connection conn = db.connect();
                Statement s = conn.createStatement()) {
            s.execute("analyze shardq.\"kv_" + id + "\"");
            try (ResultSet rs = s.executeQuery("explain select k from shardq.\"kv_" + id + "\" where k > 'key-3'::bytea"
                    + " and (expires_at is null or expires_at > shardq.kv_ts(" + clock.millis() + "))"
                    + " order by k limit 100")) {
                while (rs.next()) {
                    plan.append(rs.getString(1)).append('\n');
                }
            }
        }
        System.out.println("KvCacheTest: key listing plan with 8,000 entries:\n" + plan);
        assertThat(plan.toString())
                .contains("Merge Append")
                .contains("Index Scan")
                .doesNotContain("Sort  ");
        assertThat(c.keys("key-3", 100)).hasSize(100).first().isEqualTo("key-3-0");
    }

    private long rows(String cache) throws Exception {
        try (Connection conn = db.connect();
                Statement s = conn.createStatement();
                ResultSet rs = s.executeQuery("select count(*) from shardq.\"kv_"
                        + broker.admin().caches().get(cache).id() + "\"")) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
