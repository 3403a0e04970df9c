package io.shardq.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.shardq.broker.Broker;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.shard.BrokerSession;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * A session holding a lock on a consumed slice blocks its retirement: the meters and the
 * instance MBean show it (and who holds it) while it lasts, and nothing once the slice retires.
 */
@PgTest
class RetirementBlockedTest {

    @Test
    void retirementBlocked_byALock_isShownWhileItLasts(TestDatabase db) throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        try (Broker broker = Broker.start(
                        db.brokerConfig().set(BrokerProperty.HEARTBEAT_MS, 200).build());
                ShardQMetrics metrics =
                        new ShardQMetrics(broker, Duration.ofSeconds(5), Tags.empty(), Clock.systemUTC(), false);
                ShardQMBeans.Registration jmx = ShardQMBeans.register(broker, server)) {
            MeterRegistry r = new SimpleMeterRegistry();
            metrics.bindTo(r);
            Gauge blocked = r.get("shardq.retirement.blocked").gauge();
            TimeGauge duration = r.get("shardq.retirement.blocked.duration").timeGauge();
            ObjectName instance = new ObjectName("io.shardq:type=Instance,instance=" + broker.instanceId());
            assertThat(blocked.value()).isZero();

            broker.admin()
                    .queues()
                    .create("held", QueueOptions.DEFAULTS.withShards(1).withSliceSize(16));
            try (Connection holder = db.connect()) {
                holder.setAutoCommit(false);
                try (BrokerSession p = broker.openSession(BrokerSession.Mode.TRANSACTED);
                        BrokerSession c = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                    for (int i = 0; i < 20; i++) {
                        p.send("held", Messages.text("m" + i));
                    }
                    p.commit();
                    try (Statement s = holder.createStatement()) { // a careless report query, left open
                        int id = broker.admin().require("held").id();
                        s.executeQuery("select count(*) from shardq.m_" + id + "_0_0")
                                .close();
                    }
                    for (int i = 0; i < 20; i++) {
                        assertThat(c.receive("held", 2000, false)).isNotNull();
                    }
                    c.commit();
                }
                Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> blocked.value() == 1);
                Awaitility.await()
                        .atMost(Duration.ofSeconds(20))
                        .until(() -> duration.value(TimeUnit.MILLISECONDS) > 0);
                assertThat(server.getAttribute(instance, "RetirementBlocked")).isEqualTo(true);
                assertThat((String) server.getAttribute(instance, "RetirementBlockedBy"))
                        .contains("idle in transaction");
                assertThat(r.get("shardq.slices.retired").functionCounter().count())
                        .isZero();
                holder.rollback();
            }
            Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> blocked.value() == 0);
            assertThat(duration.value(TimeUnit.MILLISECONDS)).isZero();
            assertThat(r.get("shardq.slices.retired").functionCounter().count()).isPositive();
            assertThat(server.getAttribute(instance, "RetirementBlockedBy")).isEqualTo("");
        }
    }
}
