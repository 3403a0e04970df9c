package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.ShardQException;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Enqueue ownership follows the fleet: a second instance started while the first produces gets its
 * share of the shards, and the producers of each then write only to their own; a grown queue's new
 * shards get the running producers' messages. Throughout, every message is consumed exactly once
 * and each producer thread's messages arrive in send order (one consumer session, so the order of
 * arrival is one sequence), although its sessions move from shard to shard.
 */
@PgTest
class EnqueueOwnershipTest {

    @Test
    void aSecondInstance_getsItsShare_andEachInstanceWritesOnlyItsOwnShards(TestDatabase db) throws Exception {
        try (Broker a = Broker.start(config(db))) {
            a.admin().queues().create("own.q", QueueOptions.DEFAULTS.withShards(4));
            Consumer consumer = new Consumer(a, "own.q");
            Producers pa = new Producers(a, "own.q", "A", 2);
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> consumer.count() >= 200);
            assertThat(ShardColumn.OWNER_INSTANCE.values(db, "own.q"))
                    .as("owners while alone")
                    .containsOnly(a.instanceId());
            try (Broker b = Broker.start(config(db))) {
                long started = System.nanoTime();
                Producers pb = new Producers(b, "own.q", "B", 2);
                Awaitility.await()
                        .atMost(Duration.ofSeconds(30))
                        .pollInterval(Duration.ofMillis(20))
                        .until(() -> {
                            List<Long> o = ShardColumn.OWNER_INSTANCE.values(db, "own.q");
                            return count(o, a.instanceId()) == 2 && count(o, b.instanceId()) == 2;
                        });
                System.out.println("OWNERSHIP: the second instance owned its share "
                        + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started) + " ms after it started"
                        + " (heartbeat 200 ms)");
                Map<String, Long> instanceOf = Map.of("A", a.instanceId(), "B", b.instanceId());
                // each producer thread's latest messages are on its own instance's shards
                Awaitility.await()
                        .atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(100))
                        .until(() -> consumer.latestOnOwnShards(
                                ShardColumn.OWNER_INSTANCE.values(db, "own.q"), instanceOf, 20));
                pa.stop();
                pb.stop();
                consumer.drain(a, "own.q");
                consumer.assertExactlyOnceInOrder(pa, pb);
            }
        }
    }

    @Test
    void growingAQueue_underTraffic_onTwoInstances_reachesTheNewShards(TestDatabase db) throws Exception {
        try (Broker a = Broker.start(config(db));
                Broker b = Broker.start(config(db))) {
            a.admin().queues().create("grow.q", QueueOptions.DEFAULTS.withShards(4));
            Consumer consumer = new Consumer(a, "grow.q");
            Producers pa = new Producers(a, "grow.q", "A", 4);
            Producers pb = new Producers(b, "grow.q", "B", 4);
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> {
                List<Long> o = ShardColumn.OWNER_INSTANCE.values(db, "grow.q");
                return count(o, a.instanceId()) == 2 && count(o, b.instanceId()) == 2;
            });
            long[] before = ShardColumn.NEXT_SEQ.longs(db, "grow.q");
            a.admin().queues().alter("grow.q", 8, null, null, null);
            long grown = System.nanoTime();
            Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> {
                        long[] h = ShardColumn.NEXT_SEQ.longs(db, "grow.q");
                        for (int s = 4; s < 8; s++) {
                            if (h.length < 8 || h[s] <= 1) {
                                return false;
                            }
                        }
                        return true;
                    });
            System.out.println("OWNERSHIP: all 8 shards written by the running producers "
                    + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - grown)
                    + " ms after the grow (heartbeat 200 ms)");
            assertThat(before).hasSize(4);
            pa.stop();
            pb.stop();
            consumer.drain(a, "grow.q");
            consumer.assertExactlyOnceInOrder(pa, pb);
            List<Long> o = ShardColumn.OWNER_INSTANCE.values(db, "grow.q");
            assertThat(count(o, a.instanceId())).isEqualTo(4);
            assertThat(count(o, b.instanceId())).isEqualTo(4);
        }
    }

    private static BrokerConfig config(TestDatabase db) {
        return db.brokerConfig()
                .set(BrokerProperty.HEARTBEAT_MS, 200)
                .set(BrokerProperty.LEASE_TTL_MS, 2000)
                .build();
    }

    private static int count(List<Long> owners, long instance) {
        return (int) owners.stream().filter(o -> o != null && o == instance).count();
    }

    /** Producer threads sending "<name>-<thread>-<i>" in transactions of 10 (see the constructor for sessions). */
    static class Producers {
        final String name;
        final int threads;
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicInteger[] sent;
        final List<Thread> running = new ArrayList<>();
        /** Transactions rolled back because their shard began to drain (sent again; only with retry). */
        final AtomicInteger rolledBack = new AtomicInteger();

        /** No threads yet. */
        Producers(String name, int threads) {
            this.name = name;
            this.threads = threads;
            this.sent = new AtomicInteger[threads];
            for (int t = 0; t < threads; t++) {
                sent[t] = new AtomicInteger();
            }
        }

        Producers(Broker broker, String queue, String name, int threads) {
            this(broker, queue, name, threads, false);
        }

        /**
         * @param retryRolledBack whether a transaction rolled back with ROLLED_BACK (its shard began to
         *     drain before it committed: nothing of it was written) is sent again, as {@code ShrinkTest}
         *     needs; otherwise it fails the thread
         */
        Producers(Broker broker, String queue, String name, int threads, boolean retryRolledBack) {
            this(name, threads);
            for (int t = 0; t < threads; t++) {
                int thread = t;
                // even threads keep one session for life (JMS's per-session order); odd ones open a new
                // session for every transaction, as Spring's JmsTemplate does (the per-thread order)
                boolean sessionPerTransaction = t % 2 == 1;
                Thread th = new Thread(() -> {
                    BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED);
                    try {
                        int i = 0;
                        while (!stop.get()) {
                            if (sessionPerTransaction) {
                                s.close();
                                s = broker.openSession(BrokerSession.Mode.TRANSACTED);
                            }
                            try {
                                for (int k = 0; k < 10; k++) {
                                    s.send(queue, Messages.text(name + "-" + thread + "-" + (i + k)));
                                }
                                s.commit();
                            } catch (ShardQException e) {
                                if (!retryRolledBack || e.kind() != ErrorKind.ROLLED_BACK) {
                                    throw e;
                                }
                                rolledBack.incrementAndGet();
                                s.close();
                                s = broker.openSession(BrokerSession.Mode.TRANSACTED);
                                continue;
                            }
                            i += 10;
                            sent[thread].set(i);
                            try {
                                Thread.sleep(100); // a pace the one consumer session keeps up with on a loaded machine
                            } catch (InterruptedException e) {
                                return;
                            }
                        }
                    } finally {
                        s.close();
                    }
                });
                th.setDaemon(true);
                th.start();
                running.add(th);
            }
        }

        int total() {
            int n = 0;
            for (AtomicInteger x : sent) {
                n += x.get();
            }
            return n;
        }

        void stop() throws InterruptedException {
            stop.set(true);
            for (Thread t : running) {
                t.join(60_000);
            }
        }
    }

    /** One consumer session on its own thread: the order of arrival is one sequence. */
    static class Consumer {
        final List<String> bodies = new ArrayList<>();
        final List<Integer> shardsOf = new ArrayList<>();
        final AtomicBoolean stop = new AtomicBoolean();
        /** While set, the consumer takes nothing (a backlog builds up). */
        final AtomicBoolean paused = new AtomicBoolean();

        final Thread thread;
        private final Map<String, Integer> lastShard = new ConcurrentHashMap<>();

        Consumer(Broker broker, String queue) {
            thread = new Thread(() -> {
                try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                    while (!stop.get()) {
                        if (paused.get()) {
                            java.util.concurrent.locks.LockSupport.parkNanos(20_000_000);
                            continue;
                        }
                        List<Delivery> batch = new ArrayList<>();
                        Delivery d = s.receive(queue, 100, false);
                        while (d != null) {
                            batch.add(d);
                            d = batch.size() < 20 ? s.receive(queue, -1, false) : null;
                        }
                        if (!batch.isEmpty()) {
                            s.commit();
                            synchronized (this) {
                                for (Delivery x : batch) {
                                    String body = Messages.body(x.message());
                                    bodies.add(body);
                                    shardsOf.add(x.shard());
                                    lastShard.put(body.substring(0, body.lastIndexOf('-')), x.shard());
                                }
                            }
                        }
                    }
                }
            });
            thread.setDaemon(true);
            thread.start();
        }

        synchronized int count() {
            return bodies.size();
        }

        /** The latest {@code n} messages of every producer thread were consumed from its instance's shards. */
        synchronized boolean latestOnOwnShards(List<Long> owners, Map<String, Long> instanceOf, int n) {
            Map<String, Integer> seen = new HashMap<>();
            Set<String> bad = new HashSet<>();
            for (int i = bodies.size() - 1; i >= 0; i--) {
                String body = bodies.get(i);
                String producer = body.substring(0, body.lastIndexOf('-'));
                if (seen.merge(producer, 1, Integer::sum) > n) {
                    continue;
                }
                int shard = shardsOf.get(i);
                Long owner = shard < owners.size() ? owners.get(shard) : null;
                if (owner == null || !owner.equals(instanceOf.get(producer.substring(0, producer.indexOf('-'))))) {
                    bad.add(producer);
                }
            }
            return bad.isEmpty()
                    && seen.size() == instanceOf.size() * 2
                    && seen.values().stream().allMatch(c -> c >= n);
        }

        void drain(Broker broker, String queue) throws InterruptedException {
            Awaitility.await()
                    .atMost(Duration.ofSeconds(120))
                    .until(() -> broker.admin().queues().backlog(queue) == 0);
            stop.set(true);
            thread.join(30_000);
        }

        synchronized void assertExactlyOnceInOrder(Producers... producers) {
            Map<String, Integer> next = new HashMap<>();
            Set<String> all = new HashSet<>();
            for (String body : bodies) {
                assertThat(all.add(body)).as("consumed once: " + body).isTrue();
                String producer = body.substring(0, body.lastIndexOf('-'));
                int i = Integer.parseInt(body.substring(body.lastIndexOf('-') + 1));
                assertThat(i).as("in send order: " + body).isEqualTo(next.getOrDefault(producer, 0));
                next.put(producer, i + 1);
            }
            for (Producers p : producers) {
                for (int t = 0; t < p.threads; t++) {
                    assertThat(next.getOrDefault(p.name + "-" + t, 0))
                            .as("consumed of " + p.name + "-" + t)
                            .isEqualTo(p.sent[t].get());
                }
            }
        }
    }
}
