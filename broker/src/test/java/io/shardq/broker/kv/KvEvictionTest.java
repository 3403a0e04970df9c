package io.shardq.broker.kv;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.CacheOptions;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.SettableClock;
import io.shardq.broker.testing.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Above max_entries (or max_bytes) the leader's round evicts the least recently touched entries. */
@PgTest
class KvEvictionTest {
    Broker broker;
    SettableClock clock = SettableClock.now();
    KvMaintainer leader;
    /** The test's own registry: its views record their reads here, and the test flushes them. */
    KvCaches caches;

    @BeforeEach
    void start(TestDatabase db) {
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
    void overMaxEntries_theLeastRecentlyTouchedGo() throws Exception {
        broker.admin().caches().create("lru", CacheOptions.DEFAULTS.withMaxEntries(10L));
        KvCache<String, String> c = caches.open("lru", Codec.utf8(), Codec.utf8());
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            keys.add("k" + i);
            c.put("k" + i, "v" + i);
            clock.advance(Duration.ofSeconds(1)); // k0 is the oldest write, k19 the newest
        }
        clock.advance(Duration.ofMinutes(2));
        assertThat(c.getAll(List.of("k0", "k1", "k2", "k3", "k4"))).hasSize(5); // the oldest writes, read now
        assertThat(caches.flushTouches()).isEqualTo(5);

        KvMaintainer.Round r = leader.round();

        assertThat(r.evicted()).isEqualTo(10);
        Map<String, String> left = c.getAll(keys);
        // k0..k4 were read recently; of the others the five written last stay
        assertThat(left).containsOnlyKeys("k0", "k1", "k2", "k3", "k4", "k15", "k16", "k17", "k18", "k19");
        assertThat(broker.admin().caches().get("lru").evictions()).isEqualTo(10);
        assertThat(c.stats().evictions()).isEqualTo(10);
        assertThat(leader.round().evicted())
                .as("within the bound: nothing more")
                .isZero();
    }

    @Test
    void overMaxBytes_evictsUntilWithinTheBound() throws Exception {
        broker.admin().caches().create("bytes", CacheOptions.DEFAULTS.withMaxBytes(10_000L));
        KvCache<String, String> c = broker.cache("bytes", Codec.utf8(), Codec.utf8());
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < 100; i++) {
            m.put(String.format("key%03d", i), "x".repeat(194)); // 200 bytes an entry: 20,000 in all
        }
        c.putAll(m);
        assertThat(leader.round().evicted()).isEqualTo(50);
        assertThat(c.stats().bytes()).isLessThanOrEqualTo(10_000);
    }
}
