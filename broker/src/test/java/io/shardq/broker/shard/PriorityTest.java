package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.ShardQException;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Priority: within the window ({@code shardq.dequeue.priority-window}) a shard hands out its
 * highest-priority untaken message first, in send order within a priority; a low priority waits at
 * most the window; with several consumers and rollbacks nothing is lost, doubled or left behind.
 */
@PgTest
class PriorityTest {
    record Sent(String text, int priority, int index) {}

    /** {@code n} messages of random priorities, sent by one session in batches of 50. */
    private static List<Sent> sendMixed(Broker broker, String queue, int n, long seed) {
        Random random = new Random(seed);
        List<Sent> sent = new ArrayList<>();
        try (BrokerSession p = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            for (int i = 0; i < n; i++) {
                int priority = random.nextInt(10);
                String text = "m" + i + "/p" + priority;
                p.send(queue, Messages.text(text, priority));
                sent.add(new Sent(text, priority, i));
                if (i % 50 == 49) {
                    p.commit();
                }
            }
            p.commit();
        }
        return sent;
    }

    private static List<String> drain(Broker broker, String queue, BrokerSession.Mode mode, int n) {
        List<String> got = new ArrayList<>();
        try (BrokerSession c = broker.openSession(mode)) {
            while (got.size() < n) {
                Delivery d = c.receive(queue, 10_000, false);
                assertThat(d).as("message %d of %d", got.size() + 1, n).isNotNull();
                got.add(Messages.body(d.message()));
                if (mode == BrokerSession.Mode.TRANSACTED && got.size() % 10 == 0) {
                    c.commit();
                }
            }
            if (mode == BrokerSession.Mode.TRANSACTED) {
                c.commit();
            }
            assertThat(c.receive(queue, -1, false)).isNull();
        }
        return got;
    }

    private static List<String> byPriority(List<Sent> sent) {
        return sent.stream()
                .sorted(Comparator.comparingInt(Sent::priority).reversed().thenComparingInt(Sent::index))
                .map(Sent::text)
                .toList();
    }

    @ParameterizedTest
    @EnumSource(
            value = BrokerSession.Mode.class,
            names = {"AUTO_ACKNOWLEDGE", "TRANSACTED"})
    void aBacklogOfMixedPriorities_inOneShard_isDeliveredHighestFirst_inSendOrderWithinAPriority(
            BrokerSession.Mode mode, TestDatabase db) {
        try (Broker broker = Broker.start(db.brokerConfig().build())) {
            String queue = "prio.one." + mode.name().toLowerCase(java.util.Locale.ROOT);
            broker.admin().queues().create(queue, QueueOptions.DEFAULTS.withShards(1));
            List<Sent> sent = sendMixed(broker, queue, 600, 12);
            assertThat(drain(broker, queue, mode, sent.size())).containsExactlyElementsOf(byPriority(sent));
        }
    }

    @Test
    void aBacklogOverFourShards_reachesOneConsumerHighestFirst(TestDatabase db) {
        try (Broker broker = Broker.start(db.brokerConfig().build())) {
            broker.admin().queues().create("prio.four", QueueOptions.DEFAULTS.withShards(4));
            List<Sent> sent = new ArrayList<>();
            // four producing sessions: each is pinned to its own shard
            for (int s = 0; s < 4; s++) {
                for (Sent x : sendMixed(broker, "prio.four", 200, 40 + s)) {
                    sent.add(new Sent(x.text() + "/s" + s, x.priority(), s * 1000 + x.index()));
                }
            }
            List<String> got = drain(broker, "prio.four", BrokerSession.Mode.AUTO_ACKNOWLEDGE, sent.size());
            List<Integer> priorities =
                    got.stream().map(t -> t.charAt(t.indexOf("/p") + 2) - '0').toList();
            assertThat(priorities)
                    .isSortedAccordingTo(Comparator.reverseOrder())
                    .hasSize(800);
        }
    }

    @Test
    void aLowPriorityMessage_waitsAtMostTheWindow_andWindowZeroKeepsSendOrder(TestDatabase db) {
        try (Broker broker = Broker.start(
                db.brokerConfig().set(BrokerProperty.PRIORITY_WINDOW, 50).build())) {
            broker.admin().queues().create("prio.low", QueueOptions.DEFAULTS.withShards(1));
            try (BrokerSession p = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                p.send("prio.low", Messages.text("low", 0));
                for (int i = 1; i <= 200; i++) {
                    p.send("prio.low", Messages.text("d" + i, 4));
                }
                p.commit();
            }
            List<String> got = drain(broker, "prio.low", BrokerSession.Mode.AUTO_ACKNOWLEDGE, 201);
            // the window runs from the oldest untaken message, the low one: 49 default ones fit beside it
            assertThat(got.indexOf("low")).isEqualTo(49);
            assertThat(got.subList(50, 201))
                    .isSortedAccordingTo(Comparator.comparingInt(t -> Integer.parseInt(t.substring(1))));
        }
        try (Broker broker = Broker.start(
                db.brokerConfig().set(BrokerProperty.PRIORITY_WINDOW, 0).build())) {
            broker.admin().queues().create("prio.fifo", QueueOptions.DEFAULTS.withShards(1));
            List<Sent> sent = sendMixed(broker, "prio.fifo", 300, 7);
            assertThat(drain(broker, "prio.fifo", BrokerSession.Mode.TRANSACTED, 300))
                    .containsExactlyElementsOf(sent.stream().map(Sent::text).toList());
        }
    }

    @Test
    void aWindowOutOfRange_isRefused_namingTheSetting(TestDatabase db) {
        assertThatThrownBy(() -> Broker.start(db.brokerConfig()
                        .set(BrokerProperty.PRIORITY_WINDOW, -1)
                        .build()))
                .isInstanceOf(ShardQException.class)
                .hasMessageContaining("shardq.dequeue.priority-window")
                .hasMessageContaining("0 to 100000");
    }

    @Test
    void consumersRollingBackAtRandom_whileMixedPrioritiesArrive_loseNothing_doubleNothing_leaveNoBacklog(
            TestDatabase db) throws Exception {
        int total = 3000;
        try (Broker broker = Broker.start(db.brokerConfig().build())) {
            // a consumer rolls back one batch in five, so with the default of 5 attempts about one
            // message in 3,000 would go to the dead-letter queue (CI saw m875 and m877 go there):
            // attempts are not what this test is about, so they never run out here
            broker.admin()
                    .queues()
                    .create("prio.busy", QueueOptions.DEFAULTS.withShards(2).withMaxAttempts(1_000));
            Set<String> committed = ConcurrentHashMap.newKeySet();
            AtomicInteger twice = new AtomicInteger();
            ExecutorService pool = Executors.newFixedThreadPool(5);
            try {
                Future<?> producer = pool.submit(() -> sendMixed(broker, "prio.busy", total, 99));
                List<Future<?>> consumers = new ArrayList<>();
                for (int c = 0; c < 4; c++) {
                    long seed = c;
                    consumers.add(pool.submit(() -> {
                        Random random = new Random(seed);
                        try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
                            while (committed.size() < total && System.nanoTime() < deadline) {
                                List<String> batch = new ArrayList<>();
                                for (int i = 0; i < 1 + random.nextInt(12); i++) {
                                    Delivery d = s.receive("prio.busy", 100, false);
                                    if (d == null) {
                                        break;
                                    }
                                    batch.add(Messages.body(d.message()));
                                }
                                if (random.nextInt(5) == 0) {
                                    s.rollback();
                                    continue;
                                }
                                s.commit();
                                for (String text : batch) {
                                    if (!committed.add(text)) {
                                        twice.incrementAndGet();
                                    }
                                }
                            }
                        }
                        return null;
                    }));
                }
                producer.get(120, TimeUnit.SECONDS);
                for (Future<?> f : consumers) {
                    f.get(150, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
            assertThat(twice.get()).isZero();
            assertThat(broker.admin().list())
                    .as("no dead-letter queue was needed")
                    .noneMatch(d -> d.name().equals("prio.busy.DLQ"));
            Set<String> expected = new HashSet<>();
            for (int i = 0; i < total; i++) {
                expected.add("m" + i);
            }
            io.shardq.broker.testing.SameElements.assertSameElements(
                    "committed receives",
                    committed.stream().map(t -> t.substring(0, t.indexOf('/'))).toList(),
                    expected);
            try (BrokerSession idle = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
                assertThat(idle.receive("prio.busy", -1, false)).isNull();
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (broker.admin().queues().stats("prio.busy").backlog() > 0 && System.nanoTime() < deadline) {
                try (BrokerSession idle = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
                    idle.receive("prio.busy", 200, false); // an idle consumer moves the cursor over logged runs
                }
            }
            assertThat(broker.admin().queues().stats("prio.busy").backlog()).isZero();
        }
    }
}
