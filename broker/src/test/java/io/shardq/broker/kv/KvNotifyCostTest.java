package io.shardq.broker.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.CacheOptions;
import io.shardq.broker.Engines;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What the invalidation NOTIFY costs a writer: 8 threads put one key each (autocommit) for 10 s
 * with the NOTIFY, then 10 s without, two instances alive so that the NOTIFY is sent. Prints
 * puts/s and the ratio (the figure in docs/design/kv-cache.md); asserts nothing about time. Tagged
 * {@code long} (about 45 s); {@code -DexcludedGroups=long} leaves it out.
 *
 * <pre>(cd broker && ../mvnw -B -ntp verify -Dtest=KvNotifyCostTest -Dsurefire.failIfNoSpecifiedTests=false)</pre>
 */
@PgTest
@Tag("long")
class KvNotifyCostTest {
    static final int THREADS = 8;

    @Test
    void notifyCost_onAutocommitPuts(TestDatabase db) throws Exception {
        try (Broker a = Broker.start(db.brokerConfig()
                        .set(BrokerProperty.HEARTBEAT_MS, 200)
                        .set(BrokerProperty.POOL_SIZE, THREADS + 2)
                        .build());
                Broker b = Broker.start(
                        db.brokerConfig().set(BrokerProperty.HEARTBEAT_MS, 200).build())) {
            a.admin().caches().createOrGet("cost", CacheOptions.DEFAULTS);
            KvCache<String, String> cache = a.cache("cost", Codec.utf8(), Codec.utf8());
            b.cache("cost", Codec.utf8(), Codec.utf8()).get("t0"); // B has a near cache of it
            await().atMost(Duration.ofSeconds(20)).until(() -> Engines.of(a).otherInstancesAlive());
            run(cache, 2_000); // warm-up
            // two rounds, the order swapped in the second, so drift on a shared machine shows
            double with = 0;
            double without = 0;
            for (int round = 0; round < 2; round++) {
                for (boolean notifying : round == 0 ? new boolean[] {true, false} : new boolean[] {false, true}) {
                    KvInternals.of(cache).nearCaches().notifying = notifying;
                    double rate = run(cache, 10_000);
                    System.out.printf("kv notify cost: round %d, NOTIFY %s: %.0f puts/s%n", round, notifying, rate);
                    if (notifying) {
                        with += rate / 2;
                    } else {
                        without += rate / 2;
                    }
                }
            }
            KvInternals.of(cache).nearCaches().notifying = true;
            System.out.printf(
                    "kv notify cost: %d threads, autocommit put of one key: with NOTIFY %.0f puts/s, without %.0f"
                            + " puts/s, ratio %.3f%n",
                    THREADS, with, without, with / without);
            assertThat(with).isPositive();
        }
    }

    static double run(KvCache<String, String> cache, long millis) throws InterruptedException {
        LongAdder puts = new LongAdder();
        CountDownLatch go = new CountDownLatch(1);
        long[] end = new long[1];
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            String key = "t" + t;
            Thread th = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                int i = 0;
                while (System.nanoTime() < end[0]) {
                    cache.put(key, "v" + i++);
                    puts.increment();
                }
            });
            th.start();
            threads.add(th);
        }
        long start = System.nanoTime();
        end[0] = start + millis * 1_000_000;
        go.countDown();
        for (Thread th : threads) {
            th.join();
        }
        return puts.sum() * 1e9 / (System.nanoTime() - start);
    }
}
