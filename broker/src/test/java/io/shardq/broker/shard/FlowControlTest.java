package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Producer flow control ({@code shardq.flow.max-untaken}): a producer's commit returns only once
 * the instance's busy consumers took the untaken messages back to the bound; without active
 * consumers, or with the setting at its default (off), a queue buffers as before.
 */
@PgTest
class FlowControlTest {

    @Test
    void producerCommit_waitsForBusyConsumers_untilTheyTakeTheBacklogDownToTheBound(TestDatabase db) throws Exception {
        var config = db.brokerConfig()
                .set(BrokerProperty.FLOW_MAX_UNTAKEN, 10)
                .set(BrokerProperty.FLOW_MAX_WAIT_MS, 120_000)
                .set(BrokerProperty.FLOW_CONSUMER_ACTIVE_MS, 120_000)
                .set(BrokerProperty.PREFETCH, 1) // one message per take: the bound is the setting
                .build();
        try (Broker broker = Broker.start(config);
                BrokerSession producer = broker.openSession(BrokerSession.Mode.TRANSACTED);
                BrokerSession consumer = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            broker.admin().queues().create("flow.q", QueueOptions.DEFAULTS.withShards(1));
            sendAndCommit(producer, 0, 40);
            // nobody consumes yet: the queue buffers, the producer is not held back
            assertThat(broker.stats().flowWaits()).isZero();

            AtomicInteger received = new AtomicInteger();
            assertThat(consumer.receive("flow.q", 5000, false)).isNotNull(); // takes m0: 39 untaken
            received.incrementAndGet();
            // the consumer is at work and 49 are untaken after this commit: the commit is held back
            CompletableFuture<Integer> receivedWhenReleased = CompletableFuture.supplyAsync(() -> {
                sendAndCommit(producer, 40, 10);
                return received.get();
            });
            Awaitility.await()
                    .atMost(Duration.ofSeconds(60))
                    .until(() -> broker.stats().flowHeld() == 1);
            for (int i = 1; i < 50 && !receivedWhenReleased.isDone(); i++) {
                assertThat(consumer.receive("flow.q", 5000, false)).isNotNull();
                received.incrementAndGet();
            }
            // released when the consumer took m39, leaving m40..m49 untaken: 10 (the 40th receive
            // may not have returned yet when the producer looks)
            assertThat(receivedWhenReleased.get(60, TimeUnit.SECONDS)).isGreaterThanOrEqualTo(39);
            assertThat(broker.stats().flowWaits()).isEqualTo(1);
            assertThat(broker.stats().flowHeld()).isZero();
            consumer.commit();
        }
    }

    @Test
    void theBound_isAtLeastTwoRangesPerOpenConsumer(TestDatabase db) throws Exception {
        var config = db.brokerConfig()
                .set(BrokerProperty.FLOW_MAX_UNTAKEN, 10)
                .set(BrokerProperty.FLOW_MAX_WAIT_MS, 120_000)
                .set(BrokerProperty.FLOW_CONSUMER_ACTIVE_MS, 120_000)
                .build(); // prefetch 10: three open consumers raise the bound from 10 to 60
        try (Broker broker = Broker.start(config);
                BrokerSession producer = broker.openSession(BrokerSession.Mode.TRANSACTED);
                BrokerSession consumer = broker.openSession(BrokerSession.Mode.TRANSACTED);
                BrokerSession idle1 = broker.openSession(BrokerSession.Mode.TRANSACTED);
                BrokerSession idle2 = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            broker.admin().queues().create("flow.bound", QueueOptions.DEFAULTS.withShards(1));
            idle1.createConsumer("flow.bound", null);
            BrokerConsumer second = idle2.createConsumer("flow.bound", null);
            BrokerConsumer c = consumer.createConsumer("flow.bound", null);
            sendAndCommit(producer, "flow.bound", 0, 40);
            assertThat(c.receive(5000, false)).isNotNull(); // takes m0..m9: 30 untaken, consumers at work
            sendAndCommit(producer, "flow.bound", 40, 30); // 60 untaken: not beyond 2 x 10 x 3
            assertThat(broker.stats().flowWaits()).isZero();

            second.close(); // two open consumers: the bound is 40, and 60 wait
            CompletableFuture<Void> held =
                    CompletableFuture.runAsync(() -> sendAndCommit(producer, "flow.bound", 70, 10));
            Awaitility.await()
                    .atMost(Duration.ofSeconds(60))
                    .until(() -> broker.stats().flowHeld() == 1);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!held.isDone() && System.nanoTime() - deadline < 0) {
                // null once all 80 are taken: the released producer may still be on its way out
                c.receive(100, false);
            }
            held.get(60, TimeUnit.SECONDS); // released by the takes: its own limit is 120 s
            assertThat(broker.stats().flowWaits()).isEqualTo(1);
            consumer.rollback();
        }
    }

    @Test
    void aTopicsPublisher_waitsForItsSlowestLocalSubscription(TestDatabase db) throws Exception {
        var config = db.brokerConfig()
                .set(BrokerProperty.FLOW_TOPIC_MAX_UNTAKEN, 10)
                .set(BrokerProperty.FLOW_MAX_WAIT_MS, 120_000)
                .set(BrokerProperty.FLOW_CONSUMER_ACTIVE_MS, 120_000)
                .set(BrokerProperty.PREFETCH, 1)
                .build();
        try (Broker broker = Broker.start(config);
                BrokerSession producer = broker.openSession(BrokerSession.Mode.TRANSACTED);
                BrokerSession fastSession = broker.openSession(BrokerSession.Mode.TRANSACTED);
                BrokerSession slowSession = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            broker.admin().topics().create("flow.t", QueueOptions.DEFAULTS.withShards(1));
            BrokerConsumer fast = fastSession.subscribe(
                    "flow.t",
                    new io.shardq.broker.SubscriptionSpec(
                            io.shardq.broker.SubscriptionSpec.Kind.SHARED_DURABLE, "fast", null, null, false, "c"));
            BrokerConsumer slow = slowSession.subscribe(
                    "flow.t",
                    new io.shardq.broker.SubscriptionSpec(
                            io.shardq.broker.SubscriptionSpec.Kind.SHARED_DURABLE, "slow", null, null, false, "c"));
            sendAndCommit(producer, "flow.t", 0, 40);
            for (int i = 0; i < 40; i++) {
                assertThat(fast.receive(5000, false)).isNotNull(); // the fast one takes everything
            }
            fastSession.commit();
            assertThat(slow.receive(5000, false)).isNotNull(); // the slow one is at work, 39 untaken
            CompletableFuture<Void> held = CompletableFuture.runAsync(() -> sendAndCommit(producer, "flow.t", 40, 10));
            // held back by the slow subscription, although the fast one has nothing untaken
            Awaitility.await()
                    .atMost(Duration.ofSeconds(60))
                    .until(() -> broker.stats().flowHeld() == 1);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!held.isDone() && System.nanoTime() - deadline < 0) {
                slow.receive(100, false);
            }
            held.get(60, TimeUnit.SECONDS);
            assertThat(broker.stats().flowWaits()).isEqualTo(1);
            slowSession.rollback();
        }
    }

    @Test
    void forTopics_onByDefault_andOffAtZero(TestDatabase db) throws Exception {
        for (int bound : new int[] {-1, 0}) {
            var builder = db.brokerConfig().set(BrokerProperty.FLOW_CONSUMER_ACTIVE_MS, 120_000);
            if (bound >= 0) {
                builder.set(BrokerProperty.FLOW_TOPIC_MAX_UNTAKEN, bound);
            }
            String topic = "flow.default" + (bound + 1);
            try (Broker broker = Broker.start(builder.build());
                    BrokerSession producer = broker.openSession(BrokerSession.Mode.TRANSACTED);
                    BrokerSession consumer = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                broker.admin().topics().create(topic, QueueOptions.DEFAULTS.withShards(1));
                BrokerConsumer c = consumer.subscribe(
                        topic,
                        new io.shardq.broker.SubscriptionSpec(
                                io.shardq.broker.SubscriptionSpec.Kind.SHARED_DURABLE, "s", null, null, false, "c"));
                sendAndCommit(producer, topic, 0, 10);
                assertThat(c.receive(5000, false)).isNotNull(); // at work
                // the consumer took the first 10 (its prefetch); the default bound is 100 untaken:
                // this commit leaves 101, and waits (100 ms at most)
                sendAndCommit(producer, topic, 10, 101);
                assertThat(broker.stats().flowWaits()).as("bound %d", bound).isEqualTo(bound == 0 ? 0 : 1);
                consumer.rollback();
            }
        }
    }

    @Test
    void forQueues_offByDefault_producersAreNeverHeldBack(TestDatabase db) throws Exception {
        try (Broker broker = Broker.start(db.brokerConfig().build());
                BrokerSession producer = broker.openSession(BrokerSession.Mode.TRANSACTED);
                BrokerSession consumer = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            broker.admin().queues().create("flow.off", QueueOptions.DEFAULTS.withShards(1));
            sendAndCommit(producer, "flow.off", 0, 100);
            assertThat(consumer.receive("flow.off", 5000, false)).isNotNull();
            sendAndCommit(producer, "flow.off", 100, 100); // 190 untaken, the consumer at work
            assertThat(broker.stats().flowWaits()).isZero();
            consumer.rollback();
        }
    }

    private static void sendAndCommit(BrokerSession s, int from, int n) {
        sendAndCommit(s, "flow.q", from, n);
    }

    private static void sendAndCommit(BrokerSession s, String queue, int from, int n) {
        for (int i = from; i < from + n; i++) {
            s.send(queue, Messages.text("m" + i));
        }
        s.commit();
    }
}
