package io.shardq.broker.shard;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Redelivery delay ({@code shardq.redelivery.delay-ms}, {@code multiplier}): a rolled-back message
 * is not delivered again before its delay, growing with each failed attempt; the messages behind
 * it are delivered meanwhile. Lower bounds only: a loaded machine may deliver later, never sooner.
 */
@PgTest
class RedeliveryDelayTest {
    static final long DELAY_MS = 2_000;

    static String body(Delivery d) {
        return new String(d.message().body(), StandardCharsets.UTF_8);
    }

    @Test
    void aRolledBackMessage_waitsItsDelay_doubledAfterTheSecondFailure_andHoldsNothingBack(TestDatabase db) {
        try (Broker broker = Broker.start(db.brokerConfig()
                .set(BrokerProperty.REDELIVERY_DELAY_MS, (int) DELAY_MS)
                .set(BrokerProperty.REDELIVERY_MULTIPLIER, "2")
                .build())) {
            broker.admin().queues().create("redeliver.q", QueueOptions.DEFAULTS.withShards(1));
            try (BrokerSession p = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE);
                    BrokerSession c = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                p.send("redeliver.q", Messages.text("first"));
                p.send("redeliver.q", Messages.text("second"));
                p.send("redeliver.q", Messages.text("third"));

                Delivery d = c.receive("redeliver.q", 30_000, false);
                assertThat(body(d)).isEqualTo("first");
                // stamped before the rollback: the delay runs from inside it, so the wait measured
                // from here is never shorter than the delay, however the threads are scheduled
                long rolledBack = System.nanoTime();
                c.rollback();

                // the messages behind it are not held back by its delay
                Delivery next = c.receive("redeliver.q", 30_000, false);
                assertThat(body(next)).isEqualTo("second");
                assertThat(body(c.receive("redeliver.q", 30_000, false))).isEqualTo("third");
                c.commit();

                Delivery again = c.receive("redeliver.q", 30_000, false);
                long waited = System.nanoTime() - rolledBack;
                assertThat(body(again)).isEqualTo("first");
                assertThat(again.deliveryCount()).isEqualTo(2);
                assertThat(waited)
                        .as("ns before the first redelivery")
                        .isGreaterThanOrEqualTo(MILLISECONDS.toNanos(DELAY_MS));
                long secondRollback = System.nanoTime();
                c.rollback();

                Delivery third = c.receive("redeliver.q", 30_000, false);
                waited = System.nanoTime() - secondRollback;
                assertThat(body(third)).isEqualTo("first");
                assertThat(third.deliveryCount()).isEqualTo(3);
                assertThat(waited)
                        .as("ns before the second redelivery (x2)")
                        .isGreaterThanOrEqualTo(MILLISECONDS.toNanos(2 * DELAY_MS));
                c.commit();
                assertThat(c.receive("redeliver.q", -1, false)).isNull();
            }
        }
    }

    @Test
    void withoutADelay_aRolledBackMessageComesBackFirst(TestDatabase db) {
        try (Broker broker = Broker.start(db.brokerConfig().build())) {
            broker.admin().queues().create("redeliver.now", QueueOptions.DEFAULTS.withShards(1));
            try (BrokerSession p = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE);
                    BrokerSession c = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                p.send("redeliver.now", Messages.text("first"));
                p.send("redeliver.now", Messages.text("second"));
                assertThat(body(c.receive("redeliver.now", 30_000, false))).isEqualTo("first");
                c.rollback();
                Delivery d = c.receive("redeliver.now", 30_000, false);
                assertThat(body(d)).isEqualTo("first");
                assertThat(d.deliveryCount()).isEqualTo(2);
                c.commit();
            }
        }
    }
}
