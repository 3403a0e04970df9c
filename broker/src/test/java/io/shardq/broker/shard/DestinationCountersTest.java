package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.DestinationCounters;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import org.junit.jupiter.api.Test;

/** The per-destination counts an instance keeps for metrics, against a known workload. */
@PgTest
class DestinationCountersTest {

    @Test
    void counters_followSendsDeliveriesRedeliveriesDeadLettersAndExpiry(TestDatabase db) {
        try (Broker broker = Broker.start(db.brokerConfig().build())) {
            broker.admin()
                    .queues()
                    .create("counted", QueueOptions.DEFAULTS.withShards(1).withMaxAttempts(2));
            assertThat(broker.destinationCounters("counted")).isEmpty();
            try (BrokerSession p = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                p.send("counted", Messages.text("expired", System.currentTimeMillis() - 60_000, 0));
                for (int i = 0; i < 10; i++) {
                    p.send("counted", Messages.text("m" + i));
                }
                p.send("counted", Messages.text("rolled back"));
                p.rollback();
                for (int i = 0; i < 10; i++) {
                    p.send("counted", Messages.text("m" + i));
                }
                p.send("counted", Messages.text("expired", System.currentTimeMillis() - 60_000, 0));
                p.commit();
            }
            assertThat(broker.destinationCounters("counted"))
                    .hasValueSatisfying(c -> assertThat(c.enqueued()).isEqualTo(11));
            try (BrokerSession c = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                receive(c, 3);
                c.commit(); // 3 consumed
                receive(c, 2);
                c.rollback(); // attempt 1 of m3, m4
                receive(c, 2);
                c.rollback(); // attempt 2: both dead-lettered on the next take
                receive(c, 5); // m5..m9
                assertThat(c.receive("counted", 200, false))
                        .as("the expired one is passed over")
                        .isNull();
                c.commit();
            }
            DestinationCounters counted = broker.destinationCounters("counted").orElseThrow();
            assertThat(counted).isEqualTo(new DestinationCounters("counted", "queue", 11, 8, 2, 2, 1));
            assertThat(broker.destinationCounters("counted.DLQ").orElseThrow().enqueued())
                    .isEqualTo(2);
            assertThat(broker.destinationCounters())
                    .extracting(DestinationCounters::name)
                    .containsExactly("counted", "counted.DLQ");
            broker.admin().queues().drop("counted", true);
            assertThat(broker.destinationCounters("counted")).isEmpty();
        }
    }

    private static void receive(BrokerSession session, int n) {
        for (int i = 0; i < n; i++) {
            assertThat(session.receive("counted", 5000, false)).isNotNull();
        }
    }
}
