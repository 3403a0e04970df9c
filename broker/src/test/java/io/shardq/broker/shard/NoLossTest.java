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
                    .queues()
                    .create("noloss", QueueOptions.DEFAULTS.withShards(8).withSliceSize(5000));
            Workload w = new Workload("noloss", 8, 8, 200_000, 10);
            w.run(p -> broker, c -> broker, null);

            assertThat(w.failedProducers.get() + w.failedConsumers.get())
                    .as("failed sessions: %s", w.failures)
                    .isZero();
            assertThat(w.sent.values().stream().mapToInt(java.util.List::size).sum())
                    .isEqualTo(200_000);
            w.assertExactlyOnce();
            w.assertPerProducerOrder();
            assertThat(broker.admin().queues().backlog("noloss")).isZero();
            // consumers kept up with producers of the same instance: served from the cache
            assertThat(broker.stats().dequeued()).isEqualTo(200_000);
            assertThat(broker.stats().sqlReadsPerDequeue()).isLessThan(0.01);
        }
    }

    @Test
    void fourConsumersShareOneShard_everyMessageOnce_andTheCursorCatchesUp(TestDatabase db) throws Exception {
        try (Broker broker = Broker.start(db.brokerConfig().build())) {
            broker.admin()
                    .queues()
                    .create("oneshard", QueueOptions.DEFAULTS.withShards(1).withSliceSize(5000));
            Workload w = new Workload("oneshard", 2, 4, 40_000, 100);
            w.run(p -> broker, c -> broker, null);

            assertThat(w.failures).isEmpty();
            w.assertExactlyOnce();
            w.assertPerProducerOrder();
            // consumers took ranges of the one shard in parallel; what they committed out of order
            // was logged, and the cursor passed over it: nothing is left to deliver
            assertThat(broker.admin().queues().backlog("oneshard")).isZero();
            try (var c = db.connect();
                    var rs = c.createStatement()
                            .executeQuery(
                                    // joins on the shard number, no correlated subquery: runs on Citus too
                                    "select c.position, s.next_seq - 1, coalesce(l.n, 0)"
                                            + " from shardq.cursor c join shardq.shard s using (destination_id, shard_no)"
                                            + " left join (select subscription_id, shard_no, sum(last_seq - first_seq + 1) n"
                                            + " from shardq.dequeue_range group by subscription_id, shard_no) l"
                                            + " on l.subscription_id = c.subscription_id and l.shard_no = c.shard_no"
                                            + " where c.destination_id = "
                                            + broker.admin().require("oneshard").id())) {
                rs.next();
                long position = rs.getLong(1);
                long head = rs.getLong(2);
                long logged = rs.getLong(3);
                assertThat(position + logged)
                        .as("cursor %d + logged %d", position, logged)
                        .isEqualTo(head);
            }
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
            b.admin()
                    .queues()
                    .create("shared", QueueOptions.DEFAULTS.withShards(4).withSliceSize(2000));
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
            assertThat(a.admin().queues().backlog("shared")).isZero();
        } finally {
            a.close();
            b.close();
        }
    }
}
