package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import org.junit.jupiter.api.Test;

@PgTest
class NoLossTest {

    @Test
    void eightProducersEightConsumers_everyMessageExactlyOnce_inProducerOrder(TestDatabase db) throws Exception {
        try (Broker broker =
                Broker.start(db.brokerConfig().set(BrokerProperty.POOL_SIZE, 24).build())) {
            broker.admin()
                    .createQueue("noloss", QueueOptions.DEFAULTS.withShards(8).withSliceSize(5000));
            Workload w = new Workload("noloss", 8, 8, 200_000, 10);
            w.run(p -> broker, c -> broker, null);

            assertThat(w.failedProducers.get() + w.failedConsumers.get()).isZero();
            assertThat(w.sent.values().stream().mapToInt(java.util.List::size).sum())
                    .isEqualTo(200_000);
            w.assertExactlyOnce();
            w.assertPerProducerOrder();
            assertThat(broker.admin().backlog("noloss")).isZero();
            // consumers kept up with producers of the same instance: served from the cache
            assertThat(broker.stats().dequeued()).isEqualTo(200_000);
            assertThat(broker.stats().sqlReadsPerDequeue()).isLessThan(0.01);
        }
    }

    @Test
    void twoInstances_shareAQueue_andStoppingOneLosesNothing(TestDatabase db) throws Exception {
        var config = db.brokerConfig()
                .set(BrokerProperty.HEARTBEAT_MS, 200)
                .set(BrokerProperty.LEASE_TTL_MS, 2000)
                .build();
        Broker a = Broker.start(config);
        Broker b = Broker.start(config);
        try {
            assertThat(a.instanceId()).isNotEqualTo(b.instanceId());
            b.admin().createQueue("shared", QueueOptions.DEFAULTS.withShards(4).withSliceSize(2000));
            Workload w = new Workload("shared", 4, 4, 40_000, 10);
            // producers 0,1 and consumers 0,1 on A; the rest on B; B is closed mid-run
            w.run(p -> p < 2 ? a : b, c -> c < 2 ? a : b, () -> {
                try {
                    org.awaitility.Awaitility.await()
                            .atMost(java.time.Duration.ofMinutes(2))
                            .until(() -> w.committedReceives.get() > 10_000);
                } finally {
                    b.close();
                }
            });
            // B's sessions failed when it closed; A's consumers took over B's shards
            w.assertExactlyOnce();
            w.assertPerProducerOrder();
            assertThat(a.admin().backlog("shared")).isZero();
        } finally {
            a.close();
            b.close();
        }
    }
}
