package io.shardq.broker.instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import io.shardq.broker.Admin;
import io.shardq.broker.Broker;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.SubscriptionSpec;
import io.shardq.broker.shard.BrokerConsumer;
import io.shardq.broker.shard.BrokerSession;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Consumer counts and purge counts come from the database (issue 24): an Admin with no engine of
 * its own sees every instance's queue consumers ({@link QueueConsumerCounts}) and topic
 * subscription consumers, and what purges discarded, whoever purged.
 */
@PgTest
class ConsumerCountsTest {
    static final Duration PATIENCE = Duration.ofSeconds(30);

    @Test
    void queueAndSubscriptionConsumers_ofEveryInstance_areCountedInTheDatabase(TestDatabase db) throws Exception {
        Admin outside = new Admin(db.dataSource());
        try (Broker a = Broker.start(db.brokerConfig()
                        .set(BrokerProperty.INSTANCE_NAME, "cc-a")
                        .build());
                Broker b = Broker.start(db.brokerConfig()
                        .set(BrokerProperty.INSTANCE_NAME, "cc-b")
                        .build())) {
            a.admin().queues().create("cc.q", QueueOptions.DEFAULTS.withShards(2));
            a.admin().topics().create("cc.t", QueueOptions.DEFAULTS);
            BrokerSession sa = a.openSession(BrokerSession.Mode.TRANSACTED);
            BrokerSession sb = b.openSession(BrokerSession.Mode.TRANSACTED);
            BrokerConsumer a1 = sa.createConsumer("cc.q", null);
            sa.createConsumer("cc.q", null);
            sb.createConsumer("cc.q", null);
            sb.subscribe(
                    "cc.t",
                    new SubscriptionSpec(SubscriptionSpec.Kind.SHARED_DURABLE, "audit", null, null, false, "conn-b"));

            await().atMost(PATIENCE)
                    .until(() -> counts(outside, "cc.q"), c -> c.equals(Map.of("cc-a", 2L, "cc-b", 1L)));
            // one destination's rows (shardq queue stats)
            assertThat(outside.cluster().consumersOf("cc.q", 30))
                    .extracting(Admin.Consumers::instanceName, Admin.Consumers::consumers)
                    .containsExactlyInAnyOrder(tuple("cc-a", 2L), tuple("cc-b", 1L));
            assertThat(outside.cluster().consumersOf("cc.t", 30))
                    .singleElement()
                    .satisfies(c -> assertThat(c.subscription()).isEqualTo("audit"));
            assertThat(outside.cluster().consumers(30).stream()
                            .filter(c -> c.destination().equals("cc.t")))
                    .singleElement()
                    .satisfies(c -> {
                        assertThat(c.kind()).isEqualTo("topic");
                        assertThat(c.subscription()).isEqualTo("audit");
                        assertThat(c.instanceName()).isEqualTo("cc-b");
                        assertThat(c.consumers()).isEqualTo(1);
                    });

            a1.close();
            await().atMost(PATIENCE)
                    .until(() -> counts(outside, "cc.q"), c -> c.equals(Map.of("cc-a", 1L, "cc-b", 1L)));
            sa.close();
            await().atMost(PATIENCE).until(() -> counts(outside, "cc.q"), c -> c.equals(Map.of("cc-b", 1L)));
            b.close(); // a stopped instance's consumers do not count
            await().atMost(PATIENCE).until(() -> counts(outside, "cc.q"), Map::isEmpty);
            assertThat(outside.cluster().consumers(30))
                    .noneMatch(c -> c.instanceName().equals("cc-b"));
        }
    }

    @Test
    void purges_areCountedApartFromConsumption_whoeverPurges(TestDatabase db) throws Exception {
        try (Broker broker = Broker.start(db.brokerConfig().build())) {
            broker.admin().queues().create("cc.p", QueueOptions.DEFAULTS.withShards(2));
            send(broker, "cc.p", 5);
            assertThat(broker.admin().queues().purge("cc.p")).isEqualTo(5);
            send(broker, "cc.p", 3);
            try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                assertThat(s.receive("cc.p", 5_000, false)).isNotNull();
                s.commit();
            }
            assertThat(new Admin(db.dataSource()).queues().purge("cc.p")).isEqualTo(2);
            assertThat(broker.admin().queues().purges().stream()
                            .filter(p -> p.name().equals("cc.p")))
                    .singleElement()
                    .satisfies(p -> {
                        assertThat(p.purged()).isEqualTo(7);
                        assertThat(p.purges()).isEqualTo(2);
                        assertThat(p.lastPurgeAtMillis()).isPositive();
                    });
            // what the console derives: consumed = enqueued - backlog - purged
            var stats = broker.admin().queues().stats("cc.p");
            assertThat(stats.enqueued() - stats.backlog() - 7).isEqualTo(1);
            // a queue never purged has no row
            broker.admin().queues().create("cc.never", QueueOptions.DEFAULTS);
            assertThat(broker.admin().queues().purges()).noneMatch(p -> p.name().equals("cc.never"));
            // one queue's (shardq queue stats): zeros when never purged
            Admin.Purges p = broker.admin().queues().purgesOf("cc.p");
            assertThat(p.purged()).isEqualTo(7);
            assertThat(p.purges()).isEqualTo(2);
            assertThat(p.lastPurgeAtMillis()).isPositive();
            assertThat(broker.admin().queues().purgesOf("cc.never")).isEqualTo(new Admin.Purges("cc.never", 0, 0, 0));
        }
    }

    private static void send(Broker broker, String queue, int n) {
        try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            for (int i = 0; i < n; i++) {
                s.send(queue, Messages.text("m" + i));
            }
            s.commit();
        }
    }

    /** Queue consumers by instance name, as an outside reader sees them. */
    private static Map<String, Long> counts(Admin admin, String queue) {
        Map<String, Long> out = new TreeMap<>();
        List<Admin.Consumers> all = admin.cluster().consumers(30);
        for (Admin.Consumers c : all) {
            if (c.destination().equals(queue)) {
                assertThat(c.subscription()).isEmpty();
                out.merge(c.instanceName(), c.consumers(), Long::sum);
            }
        }
        return out;
    }
}
