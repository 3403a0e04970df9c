package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The engine times each step from a producer's commit to a consumer's, per message. */
@PgTest
class StepTimesTest {

    @Test
    void everyStepIsCounted_oncePerCommitOrMessage(TestDatabase db) {
        try (Broker broker = Broker.start(db.brokerConfig().build())) {
            broker.admin().queues().create("steps.q", QueueOptions.DEFAULTS.withShards(2));
            broker.stats().steps().interval(); // start a fresh interval
            try (BrokerSession producer = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                for (int i = 0; i < 300; i++) {
                    producer.send("steps.q", Messages.text("m" + i));
                    if (i % 3 == 2) {
                        producer.commit(); // 100 raises of one shard's head: more than the ring keeps
                    }
                }
            }
            int received = 0;
            try (BrokerSession consumer = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                while (received < 300 && consumer.receive("steps.q", 5000, false) != null) {
                    received++;
                    if (received % 10 == 0) {
                        consumer.commit();
                    }
                }
            }
            assertThat(received).isEqualTo(300);
            Map<StepTimes.Step, StepTimes.Summary> steps =
                    broker.stats().steps().interval();
            assertThat(steps.get(StepTimes.Step.SEND_COMMIT).count()).isEqualTo(100);
            assertThat(steps.get(StepTimes.Step.CONSUMER_COMMIT).count()).isEqualTo(30);
            // the head remembers its last 64 raises (3 messages each): older messages are not timed
            assertThat(steps.get(StepTimes.Step.VISIBLE_TO_TAKEN).count()).isEqualTo(ShardHead.RING * 3);
            assertThat(broker.stats()
                            .steps()
                            .interval()
                            .get(StepTimes.Step.SEND_COMMIT)
                            .count())
                    .as("a new interval starts at each read")
                    .isZero();
        }
    }

    @Test
    void commitTotals_countEverySuccessfulCommit_notRollbacks(TestDatabase db) {
        try (Broker broker = Broker.start(db.brokerConfig().build())) {
            broker.admin().queues().create("commits.q", QueueOptions.DEFAULTS.withShards(2));
            EngineStats stats = broker.stats();
            try (BrokerSession producer = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                for (int i = 0; i < 12; i++) {
                    producer.send("commits.q", Messages.text("m" + i));
                    if (i % 3 == 2) {
                        producer.commit(); // 4 commits of 3 messages
                    }
                }
                producer.send("commits.q", Messages.text("rolled back"));
                producer.rollback();
            }
            assertThat(stats.sendCommits()).isEqualTo(4);
            assertThat(stats.sendCommitNanos()).isPositive();
            assertThat(stats.consumeCommits()).isZero();
            try (BrokerSession consumer = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                for (int i = 0; i < 12; i++) {
                    assertThat(consumer.receive("commits.q", 5000, false)).isNotNull();
                    if (i % 4 == 3) {
                        consumer.commit(); // 3 commits of 4 messages
                    }
                }
                consumer.commit(); // nothing taken: no commit to count
                assertThat(consumer.receive("commits.q", 200, false)).isNull();
            }
            assertThat(stats.consumeCommits()).isEqualTo(3);
            assertThat(stats.consumeCommitNanos()).isPositive();
            assertThat(stats.sendCommits()).isEqualTo(4);
        }
    }
}
