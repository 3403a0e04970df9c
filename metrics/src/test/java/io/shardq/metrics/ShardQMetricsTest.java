package io.shardq.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.shardq.broker.Broker;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.shard.BrokerSession;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.SettableClock;
import io.shardq.broker.testing.TestDatabase;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The Micrometer binder against a known workload ({@link Workload}) on a real PostgreSQL. */
@PgTest
class ShardQMetricsTest {
    private final SettableClock clock = SettableClock.now();

    private ShardQMetrics metrics(Broker broker) {
        return new ShardQMetrics(broker, Duration.ofSeconds(5), Tags.empty(), clock, false);
    }

    @Test
    void meters_showAKnownWorkload(TestDatabase db) {
        try (Broker broker = Broker.start(db.brokerConfig().build());
                ShardQMetrics metrics = metrics(broker)) {
            Workload.run(broker);
            broker.admin().queues().create("np", QueueOptions.DEFAULTS.withShards(1));
            try (BrokerSession p = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                p.send("np", Messages.nonPersistent("in memory only"));
                p.commit();
            }
            MeterRegistry r = new SimpleMeterRegistry();
            metrics.bindTo(r);

            assertThat(counter(r, "shardq.destination.enqueued", "orders")).isEqualTo(Workload.SENT + 1);
            assertThat(counter(r, "shardq.destination.dequeued", "orders")).isEqualTo(4);
            assertThat(counter(r, "shardq.destination.redelivered", "orders")).isEqualTo(2);
            assertThat(counter(r, "shardq.destination.dead.lettered", "orders")).isEqualTo(2);
            assertThat(counter(r, "shardq.destination.expired", "orders")).isZero();
            assertThat(gauge(r, "shardq.destination.backlog", "orders")).isEqualTo(4);
            assertThat(gauge(r, "shardq.destination.scheduled", "orders")).isEqualTo(1);
            assertThat(r.get("shardq.destination.oldest.age")
                            .tags("destination", "orders", "kind", "queue")
                            .timeGauge()
                            .value(TimeUnit.MILLISECONDS))
                    .isPositive();
            assertThat(counter(r, "shardq.destination.enqueued", "orders.DLQ")).isEqualTo(2);
            assertThat(gauge(r, "shardq.destination.backlog", "orders.DLQ")).isEqualTo(2);

            assertThat(r.get("shardq.destination.enqueued")
                            .tags("destination", "prices", "kind", "topic")
                            .functionCounter()
                            .count())
                    .isEqualTo(5);
            assertThat(r.get("shardq.destination.dequeued")
                            .tags("destination", "prices", "kind", "topic")
                            .functionCounter()
                            .count())
                    .isEqualTo(5);
            assertThat(r.get("shardq.destination.backlog")
                            .tags("destination", "prices", "kind", "topic")
                            .gauge()
                            .value())
                    .as("retained for slow")
                    .isEqualTo(5);
            assertThat(subscription(r, "shardq.subscription.lag", "slow")).isEqualTo(5);
            assertThat(subscription(r, "shardq.subscription.lag", "fast")).isZero();
            assertThat(subscription(r, "shardq.subscription.consumers", "slow")).isZero();
            assertThat(r.get("shardq.subscription.oldest.age")
                            .tags("subscription", "slow")
                            .timeGauge()
                            .value(TimeUnit.MILLISECONDS))
                    .isPositive();
            assertThat(r.get("shardq.subscription.oldest.age")
                            .tags("subscription", "fast")
                            .timeGauge()
                            .value(TimeUnit.MILLISECONDS))
                    .isZero();

            assertThat(kv(r, "shardq.kv.gets", "hit")).isEqualTo(3);
            assertThat(kv(r, "shardq.kv.gets", "miss")).isEqualTo(2);
            assertThat(r.get("shardq.kv.hit.ratio")
                            .tags("cache", "rates")
                            .gauge()
                            .value())
                    .isCloseTo(0.6, within(1e-9));
            assertThat(r.get("shardq.kv.loads")
                            .tags("cache", "rates")
                            .functionTimer()
                            .count())
                    .isEqualTo(1);
            assertThat(r.get("shardq.kv.puts")
                            .tags("cache", "rates")
                            .functionCounter()
                            .count())
                    .isEqualTo(3);
            assertThat(r.get("shardq.kv.evictions")
                            .tags("cache", "rates")
                            .functionCounter()
                            .count())
                    .isZero();
            assertThat(r.get("shardq.kv.entries").tags("cache", "rates").gauge().value())
                    .isGreaterThanOrEqualTo(0);

            var cache = broker.messageCacheStats();
            assertThat(r.get("shardq.message.cache.gets")
                            .tags("result", "hit")
                            .functionCounter()
                            .count())
                    .isEqualTo(cache.hits());
            assertThat(r.get("shardq.message.cache.gets")
                            .tags("result", "miss")
                            .functionCounter()
                            .count())
                    .isEqualTo(cache.misses());
            assertThat(cache.hits() + cache.misses()).isPositive();
            assertThat(r.get("shardq.message.cache.hit.ratio").gauge().value()).isEqualTo(cache.hitRatio());
            assertThat(r.get("shardq.dequeue.sql.reads.per.message").gauge().value())
                    .isEqualTo(broker.stats().sqlReadsPerDequeue());
            // sends: the queue's 10, the delayed one, the topic's 5, and the commit that dead-lettered 2
            FunctionTimer send = r.get("shardq.commit").tags("work", "send").functionTimer();
            assertThat(send.count()).isEqualTo(4);
            assertThat(send.totalTime(TimeUnit.NANOSECONDS)).isPositive();
            FunctionTimer consume =
                    r.get("shardq.commit").tags("work", "consume").functionTimer();
            assertThat(consume.count())
                    .as("the queue's two commits and the topic's")
                    .isEqualTo(3);
            assertThat(counter(r, "shardq.destination.enqueued", "np")).isEqualTo(1);
            assertThat(gauge(r, "shardq.destination.backlog", "np"))
                    .as("a non-persistent message is not in the database")
                    .isZero();
            assertThat(r.get("shardq.non.persistent.size").gauge().value())
                    .isPositive()
                    .isEqualTo(broker.stats().nonPersistentBytes());
            assertThat(r.get("shardq.non.persistent.rejected").functionCounter().count())
                    .isZero();
            assertThat(r.get("shardq.flow.waits").functionTimer().count())
                    .isEqualTo(broker.stats().flowWaits());
            assertThat(r.get("shardq.flow.held").gauge().value()).isZero();
            assertThat(r.get("shardq.kv.size").tags("cache", "rates").gauge().value())
                    .as("on disk")
                    .isPositive();
            assertThat(r.get("shardq.retirement.blocked").gauge().value()).isZero();
            assertThat(r.get("shardq.retirement.blocked.duration").timeGauge().value(TimeUnit.MILLISECONDS))
                    .isZero();
        }
    }

    @Test
    void meters_ofADroppedDestination_disappear_andNewOnesAppear(TestDatabase db) {
        try (Broker broker = Broker.start(db.brokerConfig().build());
                ShardQMetrics metrics = metrics(broker)) {
            broker.admin().queues().create("short.lived", QueueOptions.DEFAULTS.withShards(1));
            MeterRegistry r = new SimpleMeterRegistry();
            MeterRegistry other = new SimpleMeterRegistry();
            metrics.bindTo(r);
            metrics.bindTo(other);
            assertThat(r.find("shardq.destination.backlog")
                            .tag("destination", "short.lived")
                            .gauge())
                    .isNotNull();
            assertThat(other.find("shardq.destination.backlog")
                            .tag("destination", "short.lived")
                            .gauge())
                    .isNotNull();

            broker.admin().queues().drop("short.lived", true);
            broker.admin().queues().create("newcomer", QueueOptions.DEFAULTS.withShards(1));
            metrics.refresh();
            assertThat(r.find("shardq.destination.backlog")
                            .tag("destination", "short.lived")
                            .gauge())
                    .as("the snapshot still serves")
                    .isNotNull();
            clock.advance(Duration.ofSeconds(5));
            metrics.refresh();
            assertThat(r.find("shardq.destination.backlog")
                            .tag("destination", "newcomer")
                            .gauge())
                    .isNotNull();
            assertThat(r.getMeters())
                    .as("no meter of the dropped queue is left")
                    .noneMatch(m -> "short.lived".equals(m.getId().getTag("destination")));
            assertThat(other.getMeters()).as("in any registry").noneMatch(m -> "short.lived"
                    .equals(m.getId().getTag("destination")));
            assertThat(other.find("shardq.destination.backlog")
                            .tag("destination", "newcomer")
                            .gauge())
                    .isNotNull();
        }
    }

    @Test
    void snapshot_servesEveryGauge_forTheInterval(TestDatabase db) {
        try (Broker broker = Broker.start(db.brokerConfig().build());
                ShardQMetrics metrics = metrics(broker)) {
            broker.admin().queues().create("cached", QueueOptions.DEFAULTS.withShards(1));
            MeterRegistry r = new SimpleMeterRegistry();
            metrics.bindTo(r);
            long reads = metrics.snapshotReads();
            Gauge backlog = r.get("shardq.destination.backlog")
                    .tags("destination", "cached")
                    .gauge();
            assertThat(backlog.value()).isZero();
            try (BrokerSession p = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                for (int i = 0; i < 3; i++) {
                    p.send("cached", Messages.text("m" + i));
                }
                p.commit();
            }
            clock.advance(Duration.ofMillis(4_999));
            for (int i = 0; i < 10; i++) {
                r.getMeters().forEach(m -> m.measure().forEach(ms -> ms.getValue()));
            }
            assertThat(backlog.value()).as("served from the snapshot").isZero();
            assertThat(metrics.snapshotReads()).as("no SQL within the interval").isEqualTo(reads);
            // the counters of this instance are read live
            assertThat(r.get("shardq.destination.enqueued")
                            .tags("destination", "cached")
                            .functionCounter()
                            .count())
                    .isEqualTo(3);

            clock.advance(Duration.ofMillis(1));
            assertThat(backlog.value()).isEqualTo(3);
            r.getMeters().forEach(m -> m.measure().forEach(ms -> ms.getValue()));
            assertThat(metrics.snapshotReads()).as("one read for every gauge").isEqualTo(reads + 1);
        }
    }

    @Test
    void close_removesEveryMeter_andRefusesToBindAgain(TestDatabase db) {
        try (Broker broker = Broker.start(db.brokerConfig().build())) {
            broker.admin().queues().create("closing", QueueOptions.DEFAULTS.withShards(1));
            MeterRegistry r = new SimpleMeterRegistry();
            ShardQMetrics metrics = metrics(broker);
            metrics.bindTo(r);
            assertThat(r.getMeters()).isNotEmpty();
            metrics.close();
            metrics.close();
            assertThat(r.getMeters()).isEmpty();
            assertThatThrownBy(() -> metrics.bindTo(r))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("closed");
        }
    }

    @Test
    void scheduledRefresh_registersANewQueue_withoutBeingAsked(TestDatabase db) {
        try (Broker broker = Broker.start(db.brokerConfig().build());
                ShardQMetrics metrics = new ShardQMetrics(broker, Duration.ZERO, Tags.of("app", "test"))) {
            MeterRegistry r = new SimpleMeterRegistry();
            metrics.bindTo(r);
            broker.admin().queues().create("arrives", QueueOptions.DEFAULTS.withShards(1));
            org.awaitility.Awaitility.await()
                    .atMost(Duration.ofSeconds(20))
                    .until(() -> r.find("shardq.destination.backlog")
                                    .tags("destination", "arrives", "app", "test")
                                    .gauge()
                            != null);
        }
    }

    @Test
    void badArguments_areRefused_namingTheProblem(TestDatabase db) {
        assertThatThrownBy(() -> new ShardQMetrics(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("broker is null");
        try (Broker broker = Broker.start(db.brokerConfig().build())) {
            assertThatThrownBy(() -> new ShardQMetrics(broker, Duration.ofSeconds(-1), Tags.empty()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("snapshot interval PT-1S is negative");
        }
    }

    private static double counter(MeterRegistry r, String name, String queue) {
        FunctionCounter c =
                r.get(name).tags("destination", queue, "kind", "queue").functionCounter();
        return c.count();
    }

    private static double gauge(MeterRegistry r, String name, String queue) {
        return r.get(name).tags("destination", queue, "kind", "queue").gauge().value();
    }

    private static double subscription(MeterRegistry r, String name, String sub) {
        return r.get(name)
                .tags("destination", "prices", "subscription", sub)
                .gauge()
                .value();
    }

    private static double kv(MeterRegistry r, String name, String result) {
        return r.get(name)
                .tags("cache", "rates", "result", result)
                .functionCounter()
                .count();
    }
}
