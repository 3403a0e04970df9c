package io.shardq.broker.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.ShardQException;
import io.shardq.broker.SubscriptionSpec;
import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.shard.BrokerConsumer;
import io.shardq.broker.shard.BrokerSession;
import io.shardq.broker.shard.Delivery;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.SettableClock;
import io.shardq.broker.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Delivery delay for NON_PERSISTENT messages, on a clock the test moves: held in the sending
 * instance's memory (never in shardq.scheduled_message), counted as scheduled, not browsed, not
 * delivered before it is due, delivered once it is; the same for a topic's subscriptions; past the
 * instance's non-persistent memory bound a send is refused, naming the bound.
 */
@PgTest
class DelayedNonPersistentTest {
    static final long DEADLINE_MS = 30_000;

    final SettableClock clock = SettableClock.now();

    static BrokerMessage nonPersistent(String text, long deliverAt) {
        BrokerMessage m = Messages.nonPersistent(text);
        return new BrokerMessage(
                m.messageId(),
                m.bodyType(),
                m.timestamp(),
                null,
                null,
                null,
                4,
                0,
                deliverAt,
                false,
                Map.of(),
                m.body());
    }

    static long scheduledRows(TestDatabase db) throws Exception {
        try (Connection c = db.connect();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("select count(*) from shardq.scheduled_message")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void aDelayedNonPersistentMessage_isHeldInMemoryAsScheduled_andDeliveredOnceDue(TestDatabase db) throws Exception {
        try (Broker broker = Broker.start(
                db.brokerConfig().set(BrokerProperty.SCHEDULE_POLL_MS, 20).build(), clock)) {
            broker.admin().queues().create("npd.q", QueueOptions.DEFAULTS.withShards(1));
            try (BrokerSession p = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE);
                    BrokerSession c = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
                long due = clock.millis() + Duration.ofMinutes(5).toMillis();
                p.send("npd.q", nonPersistent("late", due));
                p.send("npd.q", Messages.nonPersistent("now"));

                Delivery first = c.receive("npd.q", DEADLINE_MS, false);
                assertThat(Messages.body(first.message())).isEqualTo("now");
                // the clock does not move: the delayed one cannot be due, whatever the scheduling
                assertThat(c.receive("npd.q", 200, false)).isNull();
                assertThat(broker.admin().queues().stats("npd.q").scheduled()).isEqualTo(1);
                assertThat(scheduledRows(db)).as("never written to PostgreSQL").isZero();
                assertThat(broker.browse("npd.q", 10))
                        .as("browsers do not show it before it is due")
                        .isEmpty();

                clock.advance(Duration.ofMinutes(5));
                Delivery late = c.receive("npd.q", DEADLINE_MS, false);
                assertThat(late).isNotNull();
                assertThat(Messages.body(late.message())).isEqualTo("late");
                assertThat(late.message().persistent()).isFalse();
                assertThat(clock.millis()).isGreaterThanOrEqualTo(due);
                assertThat(broker.admin().queues().stats("npd.q").scheduled()).isZero();
            }
        }
    }

    @Test
    void aTransactedDelayedNonPersistentSend_isHeldFromItsCommit_andARollbackHoldsNothing(TestDatabase db) {
        try (Broker broker = Broker.start(
                db.brokerConfig().set(BrokerProperty.SCHEDULE_POLL_MS, 20).build(), clock)) {
            broker.admin().queues().create("npd.tx", QueueOptions.DEFAULTS.withShards(1));
            try (BrokerSession p = broker.openSession(BrokerSession.Mode.TRANSACTED);
                    BrokerSession c = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
                long due = clock.millis() + 60_000;
                p.send("npd.tx", nonPersistent("rolled back", due));
                assertThat(broker.admin().queues().stats("npd.tx").scheduled())
                        .as("not before commit")
                        .isZero();
                p.rollback();
                p.send("npd.tx", nonPersistent("committed", due));
                p.commit();
                assertThat(broker.admin().queues().stats("npd.tx").scheduled()).isEqualTo(1);
                clock.advance(Duration.ofMinutes(1));
                Delivery d = c.receive("npd.tx", DEADLINE_MS, false);
                assertThat(Messages.body(d.message())).isEqualTo("committed");
                assertThat(c.receive("npd.tx", 200, false))
                        .as("the rolled back one never comes")
                        .isNull();
            }
        }
    }

    @Test
    void aDelayedNonPersistentTopicMessage_reachesTheSubscriptionsOnceDue(TestDatabase db) {
        try (Broker broker = Broker.start(
                db.brokerConfig().set(BrokerProperty.SCHEDULE_POLL_MS, 20).build(), clock)) {
            broker.admin().topics().create("npd.t", QueueOptions.DEFAULTS.withShards(1));
            try (BrokerSession p = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE);
                    BrokerSession c1 = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE);
                    BrokerSession c2 = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
                BrokerConsumer s1 = c1.subscribe(
                        "npd.t", new SubscriptionSpec(SubscriptionSpec.Kind.NON_DURABLE, null, null, null, false, "a"));
                BrokerConsumer s2 = c2.subscribe(
                        "npd.t",
                        new SubscriptionSpec(SubscriptionSpec.Kind.SHARED_DURABLE, "s2", null, null, false, "b"));
                p.send("npd.t", nonPersistent("event", clock.millis() + 30_000));
                assertThat(s1.receive(200, false)).isNull();
                clock.advance(Duration.ofSeconds(30));
                assertThat(Messages.body(s1.receive(DEADLINE_MS, false).message()))
                        .isEqualTo("event");
                assertThat(Messages.body(s2.receive(DEADLINE_MS, false).message()))
                        .isEqualTo("event");
                assertThat(s1.receive(200, false)).isNull();
            }
        }
    }

    @Test
    void delayedNonPersistentMessages_pastTheMemoryBound_areRefused_namingIt(TestDatabase db) {
        try (Broker broker = Broker.start(
                db.brokerConfig()
                        .set(BrokerProperty.NON_PERSISTENT_MAX_BYTES, 4096)
                        .build(),
                clock)) {
            broker.admin().queues().create("npd.bound", QueueOptions.DEFAULTS.withShards(1));
            try (BrokerSession p = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
                long due = clock.millis() + 60_000;
                int held = 0;
                ShardQException refused = null;
                for (int i = 0; i < 10_000 && refused == null; i++) {
                    try {
                        p.send("npd.bound", nonPersistent("m" + i + "x".repeat(100), due));
                        held++;
                    } catch (ShardQException e) {
                        refused = e;
                    }
                }
                assertThat(refused).as("refused before 10,000 sends").isNotNull();
                assertThat(held).isPositive();
                assertThat(refused.kind()).isEqualTo(ErrorKind.RESOURCE_EXHAUSTED);
                assertThat(refused.getMessage())
                        .contains("shardq.non-persistent.max-bytes = 4096")
                        .contains(held + " held until their delivery delay passes");
                assertThat(broker.admin().queues().stats("npd.bound").scheduled())
                        .isEqualTo(held);
                assertThatThrownBy(() -> p.send("npd.bound", nonPersistent("again" + "x".repeat(100), due)))
                        .isInstanceOf(ShardQException.class);
            }
        }
    }
}
