package io.shardq.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.Broker;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.SettableClock;
import io.shardq.broker.testing.TestDatabase;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/** The same figures as MXBeans in the platform MBean server, registered and unregistered explicitly. */
@PgTest
class ShardQMBeansTest {
    private final SettableClock clock = SettableClock.now();
    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();

    @Test
    void mbeans_showAKnownWorkload(TestDatabase db) throws Exception {
        try (Broker broker = Broker.start(db.brokerConfig().build())) {
            Workload.run(broker);
            try (ShardQMBeans.Registration jmx =
                    ShardQMBeans.register(broker, server, Duration.ofSeconds(5), clock, false)) {
                long id = broker.instanceId();
                ObjectName orders = new ObjectName("io.shardq:type=Destination,instance=" + id + ",name=orders");
                ObjectName prices = new ObjectName("io.shardq:type=Destination,instance=" + id + ",name=prices");
                ObjectName slow =
                        new ObjectName("io.shardq:type=Subscription,instance=" + id + ",destination=prices,name=slow");
                ObjectName rates = new ObjectName("io.shardq:type=KvCache,instance=" + id + ",name=rates");
                ObjectName instance = new ObjectName("io.shardq:type=Instance,instance=" + id);
                assertThat(server.queryNames(new ObjectName("io.shardq:instance=" + id + ",*"), null))
                        .containsExactlyInAnyOrderElementsOf(jmx.names())
                        .contains(orders, prices, slow, rates, instance);

                assertThat(server.getAttribute(orders, "Kind")).isEqualTo("queue");
                assertThat(server.getAttribute(orders, "Enqueued")).isEqualTo(11L);
                assertThat(server.getAttribute(orders, "Dequeued")).isEqualTo(4L);
                assertThat(server.getAttribute(orders, "Redelivered")).isEqualTo(2L);
                assertThat(server.getAttribute(orders, "DeadLettered")).isEqualTo(2L);
                assertThat(server.getAttribute(orders, "Backlog")).isEqualTo(4L);
                assertThat(server.getAttribute(orders, "Scheduled")).isEqualTo(1L);
                assertThat((Long) server.getAttribute(orders, "OldestMessageAgeMillis"))
                        .isPositive();
                assertThat(server.getAttribute(prices, "Kind")).isEqualTo("topic");
                assertThat(server.getAttribute(prices, "Backlog")).isEqualTo(5L);
                assertThat(server.getAttribute(prices, "Scheduled")).isEqualTo(-1L);
                assertThat(server.getAttribute(slow, "Lag")).isEqualTo(5L);
                assertThat(server.getAttribute(slow, "Kind")).isEqualTo("shared durable");
                assertThat(server.getAttribute(rates, "Hits")).isEqualTo(3L);
                assertThat(server.getAttribute(rates, "Misses")).isEqualTo(2L);
                assertThat(server.getAttribute(rates, "Loads")).isEqualTo(1L);
                assertThat(server.getAttribute(rates, "Evictions")).isEqualTo(0L);
                assertThat(server.getAttribute(instance, "SendCommits")).isEqualTo(4L);
                assertThat(server.getAttribute(instance, "ConsumeCommits")).isEqualTo(3L);
                assertThat(server.getAttribute(instance, "MessageCacheHitRatio"))
                        .isEqualTo(broker.messageCacheStats().hitRatio());
                assertThat(server.getAttribute(instance, "RetirementBlocked")).isEqualTo(false);
                assertThat(server.getAttribute(instance, "RetirementBlockedBy")).isEqualTo("");

                assertThatThrownBy(() -> ShardQMBeans.register(broker, server, Duration.ofSeconds(5), clock, false))
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("io.shardq:type=Instance,instance=" + id);
            }
            assertThat(server.queryNames(new ObjectName("io.shardq:instance=" + broker.instanceId() + ",*"), null))
                    .as("all unregistered on close")
                    .isEmpty();
        }
    }

    @Test
    void mbeans_ofADroppedDestination_areUnregistered(TestDatabase db) throws Exception {
        try (Broker broker = Broker.start(db.brokerConfig().build());
                ShardQMBeans.Registration jmx =
                        ShardQMBeans.register(broker, server, Duration.ofSeconds(5), clock, false)) {
            long id = broker.instanceId();
            ObjectName gone = new ObjectName("io.shardq:type=Destination,instance=" + id + ",name=gone");
            assertThat(server.isRegistered(gone)).isFalse();
            broker.admin().queues().create("gone", QueueOptions.DEFAULTS.withShards(1));
            clock.advance(Duration.ofSeconds(5));
            jmx.refresh();
            assertThat(server.isRegistered(gone)).isTrue();
            assertThat(server.getAttribute(gone, "Backlog")).isEqualTo(0L);

            broker.admin().queues().drop("gone", true);
            clock.advance(Duration.ofSeconds(5));
            jmx.refresh();
            assertThat(server.isRegistered(gone)).isFalse();
            assertThat(jmx.names()).doesNotContain(gone).isNotEmpty();
        }
    }
}
