package io.shardq.broker.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.CacheOptions;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Read-through loads across two instances on one database: many callers of one missing key share
 * one loader call; a failure reaches every caller that waited for it, and the next call loads
 * again; a loader that overruns the load timeout fails its waiters with a timeout.
 */
@PgTest
class KvSingleFlightTest {
    static final Duration DEADLINE = Duration.ofSeconds(30);

    TestDatabase db;
    Broker a;
    Broker b;
    KvCache<String, String> onA;
    KvCache<String, String> onB;

    @BeforeEach
    void start(TestDatabase db) {
        this.db = db;
        a = Broker.start(
                db.brokerConfig().set(BrokerProperty.KV_LOAD_TIMEOUT_MS, 30_000).build());
        b = Broker.start(
                db.brokerConfig().set(BrokerProperty.KV_LOAD_TIMEOUT_MS, 30_000).build());
        a.admin().caches().createOrGet("load", CacheOptions.DEFAULTS);
        onA = a.cache("load", Codec.utf8(), Codec.utf8());
        onB = b.cache("load", Codec.utf8(), Codec.utf8());
        onA.clear();
    }

    @AfterEach
    void stop() {
        a.close();
        b.close();
    }

    @Test
    void fiftyCallersOnTwoInstances_callTheLoaderOnce() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Function<String, String> loader = k -> {
            calls.incrementAndGet();
            entered.countDown();
            awaitQuietly(release);
            return "loaded " + k;
        };
        Queue<Object> results = callConcurrently(25, "price", loader);
        entered.await();
        // 24 + 24 wait on their leaders' futures; the other instance's leader waits on the lock
        awaitEveryoneWaiting(48);
        release.countDown();
        joinAll();
        assertThat(results).hasSize(50).allMatch("loaded price"::equals);
        assertThat(calls).hasValue(1);
        assertThat(onA.stats().loads() + onB.stats().loads()).isEqualTo(1);
        assertThat(onA.get("price")).isEqualTo("loaded price");
    }

    @Test
    void failingLoader_failsEveryWaiter_andTheNextCallLoadsAgain() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Function<String, String> loader = k -> {
            calls.incrementAndGet();
            entered.countDown();
            awaitQuietly(release);
            throw new IllegalStateException("backend down for " + k);
        };
        Queue<Object> results = callConcurrently(5, "route", loader);
        entered.await();
        awaitEveryoneWaiting(8);
        release.countDown();
        joinAll();
        assertThat(results)
                .hasSize(10)
                .allMatch(r -> r instanceof RuntimeException e && e.getMessage().contains("backend down for route"));
        // the other instance's callers get it as a KvLoadException naming the cache and key hash
        assertThat(results)
                .filteredOn(r -> r instanceof KvLoadException)
                .hasSize(5)
                .allMatch(r -> {
                    KvLoadException e = (KvLoadException) r;
                    return e.cache().equals("load")
                            && !e.timedOut()
                            && e.getMessage().contains("hash");
                });
        assertThat(calls).hasValue(1);
        assertThat(onB.get("route", k -> "fine")).isEqualTo("fine");
        assertThat(onA.get("route", k -> "not called")).isEqualTo("fine");
        assertThat(onA.stats().loadFailures() + onB.stats().loadFailures()).isEqualTo(1);
    }

    @Test
    void loaderOverrunningTheTimeout_failsItsWaitersWithATimeout(TestDatabase db) throws Exception {
        try (Broker fast1 = Broker.start(db.brokerConfig()
                        .set(BrokerProperty.KV_LOAD_TIMEOUT_MS, 500)
                        .build());
                Broker fast2 = Broker.start(db.brokerConfig()
                        .set(BrokerProperty.KV_LOAD_TIMEOUT_MS, 500)
                        .build())) {
            KvCache<String, String> one = fast1.cache("load", Codec.utf8(), Codec.utf8());
            KvCache<String, String> two = fast2.cache("load", Codec.utf8(), Codec.utf8());
            CountDownLatch entered = new CountDownLatch(1);
            CountDownLatch waiterFailed = new CountDownLatch(1);
            Queue<Object> results = new ConcurrentLinkedQueue<>();
            Thread leader = new Thread(() -> results.add(call(one, "slow", k -> {
                entered.countDown();
                awaitQuietly(waiterFailed); // longer than the timeout: the waiter gave up first
                return "late";
            })));
            leader.start();
            entered.await();
            Object waited = call(two, "slow", k -> "not called");
            waiterFailed.countDown();
            leader.join();
            assertThat(waited).isInstanceOfSatisfying(KvLoadException.class, e -> assertThat(e.timedOut())
                    .isTrue());
            assertThat(results).singleElement().isInstanceOfSatisfying(KvLoadException.class, e -> assertThat(
                            e.timedOut())
                    .isTrue());
            assertThat(two.get("slow")).isNull(); // the overrun value was not stored
            assertThatThrownBy(() -> two.get("slow", k -> {
                        throw new IllegalArgumentException("no such route");
                    }))
                    .hasMessageContaining("no such route");
            assertThat(two.get("slow", k -> "on time")).isEqualTo("on time");
        }
    }

    final List<Thread> threads = new ArrayList<>();

    /** {@code perInstance} callers on each instance; each adds its value or its exception. */
    Queue<Object> callConcurrently(int perInstance, String key, Function<String, String> loader) {
        Queue<Object> results = new ConcurrentLinkedQueue<>();
        for (KvCache<String, String> c : List.of(onA, onB)) {
            for (int i = 0; i < perInstance; i++) {
                Thread t = new Thread(() -> results.add(call(c, key, loader)));
                threads.add(t);
                t.start();
            }
        }
        return results;
    }

    static Object call(KvCache<String, String> c, String key, Function<String, String> loader) {
        try {
            return c.get(key, loader);
        } catch (RuntimeException e) {
            return e;
        }
    }

    void joinAll() throws InterruptedException {
        for (Thread t : threads) {
            t.join();
        }
    }

    void awaitEveryoneWaiting(int inJvm) {
        await().atMost(DEADLINE)
                .until(() -> KvInternals.of(onA).loads().waiting()
                                        + KvInternals.of(onB).loads().waiting()
                                == inJvm
                        && ungrantedAdvisoryLocks() == 1);
    }

    long ungrantedAdvisoryLocks() throws Exception {
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("select count(*) from pg_locks where locktype = 'advisory'"
                        + " and not granted and database = (select oid from pg_database"
                        + " where datname = current_database())")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
