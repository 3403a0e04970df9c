package io.shardq.broker.kv;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.CacheInfo;
import io.shardq.broker.CacheOptions;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.SettableClock;
import io.shardq.broker.testing.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * TTL with a clock the test moves: entries expire on time, the leader's round drops expired bucket
 * partitions whole and nothing live goes with them, also while writers keep writing.
 */
@PgTest
class KvExpiryTest {
    Broker broker;
    SettableClock clock = SettableClock.now();
    KvCaches caches;
    KvMaintainer leader;

    @BeforeEach
    void start(TestDatabase db) {
        // the broker's own maintenance stays out of the way: the test runs the rounds
        broker = Broker.start(
                db.brokerConfig()
                        .set(BrokerProperty.KV_MAINTENANCE_MS, 3_600_000)
                        .build(),
                clock);
        caches = new KvCaches(broker.dataSource(), clock, 60_000, 500, () -> {});
        leader = new KvMaintainer(caches, () -> true, 1000, 2000, "test-kv-maintenance");
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    @Test
    void entries_expireExactlyOnTime() {
        broker.admin()
                .caches()
                .create(
                        "ttl",
                        CacheOptions.DEFAULTS
                                .withDefaultTtl(Duration.ofSeconds(30))
                                .withMaxTtl(Duration.ofHours(1)));
        KvCache<String, String> c = broker.cache("ttl", Codec.utf8(), Codec.utf8());
        c.put("default", "d");
        c.put("short", "s", Duration.ofSeconds(10));
        clock.advance(Duration.ofMillis(9_999));
        assertThat(c.getAll(List.of("default", "short"))).containsOnlyKeys("default", "short");
        clock.advance(Duration.ofMillis(1));
        assertThat(c.get("short")).isNull();
        assertThat(c.containsKey("short")).isFalse();
        assertThat(c.get("default")).isEqualTo("d");
        // an expired entry is absent for putIfAbsent and replace too
        assertThat(c.replace("short", "x")).isFalse();
        assertThat(c.putIfAbsent("short", "again")).isTrue();
        assertThat(c.get("short")).isEqualTo("again");
        clock.advance(Duration.ofSeconds(20));
        assertThat(c.get("default")).isNull();
        assertThat(c.remove("default"))
                .as("an expired entry is not counted as removed")
                .isFalse();
    }

    @Test
    void expiredBuckets_areDropped_andNothingLiveGoes() throws Exception {
        CacheInfo info =
                broker.admin().caches().create("reclaim", CacheOptions.DEFAULTS.withMaxTtl(Duration.ofMinutes(32)));
        assertThat(info.bucketMillis()).isEqualTo(120_000); // 32 min / 16
        KvCache<String, String> c = broker.cache("reclaim", Codec.utf8(), Codec.utf8());
        Map<String, Duration> ttl = new HashMap<>();
        for (int i = 0; i < 200; i++) {
            Duration d = i % 10 == 0 ? null : Duration.ofSeconds(30 + 9L * i);
            ttl.put("k" + i, d);
            c.put("k" + i, "v" + i, d);
        }
        long start = clock.millis();
        long expired = 0;
        for (int step = 0; step < 34; step++) {
            clock.advance(Duration.ofMinutes(1));
            KvMaintainer.Round r = leader.round();
            assertThat(r.blocked()).isZero();
            expired += r.expired();
            long now = clock.millis();
            Map<String, String> live = new HashMap<>();
            for (Map.Entry<String, Duration> e : ttl.entrySet()) {
                if (e.getValue() == null || start + e.getValue().toMillis() > now) {
                    live.put(e.getKey(), "v" + e.getKey().substring(1));
                }
            }
            assertThat(c.getAll(ttl.keySet())).as("at +%d min", step + 1).isEqualTo(live);
        }
        // every entry with a TTL (at most 30 + 9 * 199 s, in a bucket ending by 32 min) has expired,
        // and its storage is gone (the rounds also served the class's other caches: count this one's)
        assertThat(expired).isGreaterThanOrEqualTo(180);
        CacheInfo after = broker.admin().caches().get("reclaim");
        assertThat(after.expirations()).isEqualTo(180);
        // what is stored is the 20 entries without a TTL (shardq.cache_stats judges expiry by the
        // database's clock, which this test's clock has left behind: count what is stored)
        io.shardq.broker.CacheStats stats = broker.admin().caches().stats("reclaim");
        assertThat(stats.entries() + stats.expiredUnreclaimed()).isEqualTo(20);
        // partitions exist only where entries may be: every bucket a TTL'd entry asked for has
        // ended and was dropped, and the cache has no default TTL to make any ahead
        assertThat(after.partitions()).isEqualTo(1);
    }

    /**
     * A transaction that read the cache and stays open: partitions are still created ahead (ATTACH
     * does not wait for readers), the drop of an expired one gives up at its lock timeout and is
     * retried, and succeeds once the reader has finished. Nothing expired is served meanwhile.
     */
    @Test
    void aLongReader_delaysOnlyTheDrop_whichIsRetried(TestDatabase db) throws Exception {
        // a default TTL, so that the leader makes partitions ahead (where default-TTL entries land)
        broker.admin()
                .caches()
                .create(
                        "reader",
                        CacheOptions.DEFAULTS
                                .withMaxTtl(Duration.ofMinutes(16))
                                .withDefaultTtl(Duration.ofMinutes(15)));
        KvCache<String, String> c = broker.cache("reader", Codec.utf8(), Codec.utf8());
        c.put("short", "s", Duration.ofMinutes(1));
        c.put("long", "l", Duration.ofMinutes(15));
        KvMaintainer quick = new KvMaintainer(caches, () -> true, 1000, 200, "test-kv-maintenance-quick");
        try (java.sql.Connection reader = db.connect()) {
            reader.setAutoCommit(false);
            assertThat(c.on(reader).get("long")).isEqualTo("l"); // holds ACCESS SHARE on every partition
            clock.advance(Duration.ofMinutes(3));
            KvMaintainer.Round blocked = quick.round();
            assertThat(blocked.created())
                    .as("partitions ahead, despite the reader")
                    .isPositive();
            assertThat(blocked.dropped()).isZero();
            assertThat(blocked.blocked()).isPositive();
            assertThat(c.get("short")).isNull();
            reader.commit();
        }
        KvMaintainer.Round after = quick.round();
        assertThat(after.blocked()).isZero();
        assertThat(after.expired()).isEqualTo(1);
        assertThat(c.get("long")).isEqualTo("l");
    }

    /**
     * A put group's row is written after the writer stamped it; the clock may pass its bucket's end
     * in between (the leader may even have dropped that partition). The row still replaces the
     * key's old value and reads as expired. Before, the partition was refused as "outside the
     * cache's TTL range" and the writer's put failed ({@link
     * #writersAndReclamation_runTogether_withoutErrors} on a loaded machine).
     */
    @Test
    void aGroupedRowWrittenAfterItsBucketEnded_stillReplacesTheOldValue_andReadsAsExpired() {
        broker.admin().caches().create("late", CacheOptions.DEFAULTS.withMaxTtl(Duration.ofMinutes(16)));
        KvCache<String, String> c = broker.cache("late", Codec.utf8(), Codec.utf8());
        c.put("k", "old");
        KvDefinition d = KvInternals.of(c).definition();
        long expires = clock.millis() + 1_000; // stamped now, with a TTL of one second
        KvRows.Row row = new KvRows.Row(
                KvInternals.of(c).key(d, "k"), KvInternals.of(c).value(d, "new"), expires, d.bucket(expires));
        clock.advance(Duration.ofMinutes(3)); // buckets are 60 s: its bucket ended before the write
        KvInternals.of(c).putRows(d, List.of(row), 100);
        assertThat(c.get("k")).isNull();
        assertThat(c.containsKey("k")).isFalse();
        broker.admin().caches().drop("late"); // its ended partition is not the other tests' business
    }

    @Test
    void aGroupedRowWhosePartitionWasDroppedOnItsWay_removesTheOldValue_insteadOfFailing() throws Exception {
        broker.admin().caches().create("gone", CacheOptions.DEFAULTS.withMaxTtl(Duration.ofMinutes(16)));
        KvCache<String, String> c = broker.cache("gone", Codec.utf8(), Codec.utf8());
        c.put("k", "old");
        c.put("other", "x", Duration.ofSeconds(1)); // this instance makes (and knows) the bucket's partition
        KvDefinition d = KvInternals.of(c).definition();
        long expires = clock.millis() + 1_000; // stamped now, in that bucket
        KvRows.Row row = new KvRows.Row(
                KvInternals.of(c).key(d, "k"), KvInternals.of(c).value(d, "new"), expires, d.bucket(expires));
        clock.advance(Duration.ofMinutes(3));
        assertThat(leader.round().expired()).isPositive(); // the leader drops the ended partition
        KvInternals.of(c)
                .putRows(d, List.of(row), 100); // then the row arrives (a writer stalled between stamp and write)
        assertThat(c.get("k")).isNull(); // what a put of an expired entry leaves: no older value
        assertThat(c.containsKey("k")).isFalse();
        broker.admin().caches().drop("gone");
    }

    @Test
    void writersAndReclamation_runTogether_withoutErrors() throws Exception {
        broker.admin().caches().create("busy", CacheOptions.DEFAULTS.withMaxTtl(Duration.ofMinutes(16)));
        KvCache<String, String> c = broker.cache("busy", Codec.utf8(), Codec.utf8());
        AtomicBoolean running = new AtomicBoolean(true);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<Future<Integer>> writers = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            int thread = t;
            writers.add(pool.submit(() -> {
                ThreadLocalRandom r = ThreadLocalRandom.current();
                int i = 0;
                while (running.get()) {
                    Map<String, String> m = new LinkedHashMap<>();
                    for (int j = 0; j < 10; j++) {
                        m.put("t" + thread + "-" + r.nextInt(200), "v" + i);
                    }
                    c.putAll(m, Duration.ofSeconds(1 + r.nextInt(15 * 60)));
                    i++;
                }
                return i;
            }));
        }
        long rounds = 0;
        long expired = 0;
        long batches = 0;
        try {
            for (int step = 0; step < 30; step++) {
                clock.advance(Duration.ofSeconds(40));
                KvMaintainer.Round r = leader.round();
                expired += r.expired();
                rounds++;
            }
        } finally {
            running.set(false);
            for (Future<Integer> f : writers) {
                batches += f.get(60, TimeUnit.SECONDS); // a writer's error fails the test here
            }
            pool.shutdownNow();
        }
        assertThat(rounds).isEqualTo(30);
        assertThat(expired).isPositive();
        assertThat(batches).isPositive();
    }

    @Test
    void theRound_purgesLoadFailuresNoWaiterCanRead_andThoseOfDroppedCaches(TestDatabase db) throws Exception {
        broker.admin().caches().createOrGet("loads", CacheOptions.DEFAULTS);
        int id = KvInternals.of(broker.cache("loads", Codec.utf8(), Codec.utf8()))
                .cacheId();
        try (java.sql.Connection c = db.connect();
                java.sql.Statement st = c.createStatement()) {
            st.execute("delete from shardq.kv_load_failure");
            st.execute("insert into shardq.kv_load_failure values (" + id + ", 1, '\\x01', clock_timestamp(), 'fresh'),"
                    + " (" + id + ", 2, '\\x02', clock_timestamp() - interval '1 hour', 'old'),"
                    + " (999999, 3, '\\x03', clock_timestamp(), 'dropped cache')");
            KvMaintainer.Round r = leader.round();
            assertThat(r.failuresPurged()).isEqualTo(2);
            try (java.sql.ResultSet rs = st.executeQuery("select error from shardq.kv_load_failure")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo("fresh");
                assertThat(rs.next()).isFalse();
            }
        }
    }
}
