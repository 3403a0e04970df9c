package io.shardq.broker.kv;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.CacheOptions;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.SettableClock;
import io.shardq.broker.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Group commit of concurrent puts: everything lands once; a failing request fails only its caller. */
@PgTest
class KvPutGroupTest {
    final SettableClock clock = SettableClock.now();
    Broker broker;
    KvCache<String, String> cache;

    @BeforeEach
    void start(TestDatabase db) {
        broker = Broker.start(db.brokerConfig().build(), clock);
        broker.admin().caches().createOrGet("grouped", CacheOptions.DEFAULTS.withMaxTtl(Duration.ofHours(1)));
        cache = broker.cache("grouped", Codec.utf8(), Codec.utf8()).withMaxBatchSize(7);
        cache.clear();
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    @Test
    void concurrentPutAlls_eachEntryStoredOnce_withTheLastValueOfEachThread() throws Exception {
        int threads = 16;
        int batches = 40;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch go = new CountDownLatch(1);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                done.add(pool.submit(() -> {
                    go.await();
                    for (int b = 0; b < batches; b++) {
                        Map<String, String> m = new HashMap<>();
                        for (int i = 0; i < 20; i++) {
                            // each thread rewrites its own 20 keys and also writes a shared key
                            m.put("t" + id + "-" + i, "b" + b);
                        }
                        m.put("shared-" + (b % 5), "t" + id);
                        cache.putAll(m);
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        List<String> keys = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            for (int i = 0; i < 20; i++) {
                keys.add("t" + t + "-" + i);
            }
        }
        Map<String, String> all = cache.getAll(keys);
        assertThat(all).hasSize(threads * 20);
        assertThat(all.values()).containsOnly("b" + (batches - 1));
        assertThat(broker.admin().caches().stats("grouped").entries()).isEqualTo(threads * 20 + 5);
        assertThat(cache.stats().puts()).isEqualTo((long) threads * batches * 21);
    }

    @Test
    void aGroupWhoseTransactionFails_writesTheOthersOnTheirOwn_andFailsOnlyTheBadRequest() {
        KvDefinition d = KvInternals.of(cache).definition();
        long now = clock.millis();
        // an expiry beyond the cache's max TTL (a row no put would make): no partition is made for it
        long far = now + Duration.ofDays(30).toMillis();
        KvRows.Row bad = row("late", "x", far, d.bucket(far));
        KvRows.Row good1 = row("a", "1", null, 0);
        KvRows.Row good2 = row("b", "2", null, 0);
        KvPutGroup group = new KvPutGroup(500);
        KvPutGroup.Request r1 = new KvPutGroup.Request(KvInternals.of(cache), d, List.of(good1), 7);
        KvPutGroup.Request r2 = new KvPutGroup.Request(KvInternals.of(cache), d, List.of(bad), 7);
        KvPutGroup.Request r3 = new KvPutGroup.Request(KvInternals.of(cache), d, List.of(good2), 7);

        group.runForTest(List.of(r1, r2, r3));

        assertThat(r1.isDone()).isTrue();
        assertThat(r2.isDone()).isTrue();
        assertThat(r3.isDone()).isTrue();
        assertThat(r1.error).isNull();
        assertThat(r3.error).isNull();
        assertThat(r2.error)
                .isInstanceOf(ShardQException.class)
                .hasMessageContaining("no partition is made for entries expiring")
                .satisfies(e -> assertThat(((ShardQException) e).kind()).isEqualTo(ErrorKind.ILLEGAL_STATE));
        assertThat(cache.get("a")).isEqualTo("1");
        assertThat(cache.get("b")).isEqualTo("2");
        assertThat(cache.containsKey("late")).isFalse();
    }

    private static KvRows.Row row(String k, String v, Long expires, long bucket) {
        return new KvRows.Row(
                ByteKey.of(k.getBytes(StandardCharsets.UTF_8)), v.getBytes(StandardCharsets.UTF_8), expires, bucket);
    }
}
