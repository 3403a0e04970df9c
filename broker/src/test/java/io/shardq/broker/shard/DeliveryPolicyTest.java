package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.Broker;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.ShardQException;
import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A destination's delivery policy (V011, {@code shardq.set_delivery_policy}): its expiry queue
 * receives the messages found expired at delivery; its own redelivery delay overrides the
 * instance's; bad values are refused naming the problem.
 */
@PgTest
class DeliveryPolicyTest {
    static String body(Delivery d) {
        return new String(d.message().body(), StandardCharsets.UTF_8);
    }

    static BrokerMessage expiring(String text, long expiration) {
        return Messages.text(text, expiration, 0);
    }

    @Test
    void expiredMessages_goToTheExpiryQueue_withWhyAndWhence_andAreDroppedWithout(TestDatabase db) {
        try (Broker broker = Broker.start(db.brokerConfig().build())) {
            broker.admin().queues().create("policy.exp", QueueOptions.DEFAULTS.withShards(1));
            broker.admin().queues().create("policy.drop", QueueOptions.DEFAULTS.withShards(1));
            DestinationInfo d = broker.admin().setDeliveryPolicy("policy.exp", "policy.expired", null, null);
            assertThat(d.expiryName()).isEqualTo("policy.expired");
            long past = System.currentTimeMillis() - 1_000;
            try (BrokerSession p = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE);
                    BrokerSession c = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
                for (String q : new String[] {"policy.exp", "policy.drop"}) {
                    p.send(q, expiring("old", past));
                    p.send(q, Messages.text("live"));
                }
                long expiredBefore = broker.stats().expired();
                assertThat(body(c.receive("policy.exp", 30_000, false))).isEqualTo("live");
                assertThat(body(c.receive("policy.drop", 30_000, false))).isEqualTo("live");
                assertThat(broker.stats().expired() - expiredBefore).isEqualTo(2);

                Delivery moved = c.receive("policy.expired", 30_000, false);
                assertThat(moved).isNotNull();
                assertThat(body(moved)).isEqualTo("old");
                assertThat(moved.message().expiration()).isZero(); // it does not expire again there
                assertThat(moved.message().properties())
                        .containsEntry(BrokerSession.ORIGINAL_DESTINATION, "policy.exp")
                        .containsEntry(BrokerSession.ACTUAL_EXPIRY, past)
                        .hasEntrySatisfying(BrokerSession.DEAD_LETTER_REASON, r -> assertThat((String) r)
                                .startsWith("expired at "));
                assertThat(c.receive("policy.expired", 200, false)).isNull(); // policy.drop's was dropped
                assertThat(broker.admin().queues().backlog("policy.exp")).isZero();
            }
            DestinationInfo cleared = broker.admin().setDeliveryPolicy("policy.exp", "", null, null);
            assertThat(cleared.expiryName()).isNull();
        }
    }

    @Test
    void aDestinationsRedeliveryDelay_overridesTheInstances(TestDatabase db) {
        try (Broker broker = Broker.start(db.brokerConfig().build())) { // the instance: no delay
            broker.admin().queues().create("policy.redeliver", QueueOptions.DEFAULTS.withShards(1));
            DestinationInfo d = broker.admin().setDeliveryPolicy("policy.redeliver", null, 1_500, 1.0);
            assertThat(d.redeliveryDelayMs()).isEqualTo(1_500);
            assertThat(d.redeliveryMultiplier()).isEqualTo(1.0);
            try (BrokerSession p = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE);
                    BrokerSession c = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                p.send("policy.redeliver", Messages.text("first"));
                p.send("policy.redeliver", Messages.text("second"));
                assertThat(body(c.receive("policy.redeliver", 30_000, false))).isEqualTo("first");
                long rolledBack = System.nanoTime(); // before: the delay runs from inside the rollback
                c.rollback();
                assertThat(body(c.receive("policy.redeliver", 30_000, false))).isEqualTo("second");
                Delivery again = c.receive("policy.redeliver", 30_000, false);
                assertThat(body(again)).isEqualTo("first");
                assertThat(System.nanoTime() - rolledBack).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(1_500));
                c.commit();
            }
        }
    }

    @Test
    void badPolicies_areRefused_namingTheProblem(TestDatabase db) {
        try (Broker broker = Broker.start(db.brokerConfig().build())) {
            broker.admin().queues().create("policy.bad", QueueOptions.DEFAULTS);
            assertThatThrownBy(() -> broker.admin().setDeliveryPolicy("policy.bad", null, -1, null))
                    .isInstanceOf(ShardQException.class)
                    .hasMessageContaining("redelivery delay -1 ms is invalid")
                    .satisfies(e -> assertThat(((ShardQException) e).kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT));
            assertThatThrownBy(() -> broker.admin().setDeliveryPolicy("policy.bad", null, null, 0.5))
                    .isInstanceOf(ShardQException.class)
                    .hasMessageContaining("redelivery multiplier 0.5 is invalid");
            assertThatThrownBy(() -> broker.admin().setDeliveryPolicy("policy.bad", "policy.bad", null, null))
                    .isInstanceOf(ShardQException.class)
                    .hasMessageContaining("cannot be \"policy.bad\" itself");
            assertThatThrownBy(() -> broker.admin().setDeliveryPolicy("policy.bad", "no;pe", null, null))
                    .isInstanceOf(ShardQException.class)
                    .satisfies(e -> assertThat(((ShardQException) e).kind()).isEqualTo(ErrorKind.INVALID_NAME));
            assertThatThrownBy(() -> broker.admin().setDeliveryPolicy("policy.nosuch", null, 10, null))
                    .isInstanceOf(ShardQException.class)
                    .satisfies(e -> assertThat(((ShardQException) e).kind()).isEqualTo(ErrorKind.UNKNOWN_DESTINATION));
            DestinationInfo unchanged = broker.admin().require("policy.bad");
            assertThat(unchanged.redeliveryDelayMs()).isNull();
            assertThat(unchanged.expiryName()).isNull();
        }
    }
}
