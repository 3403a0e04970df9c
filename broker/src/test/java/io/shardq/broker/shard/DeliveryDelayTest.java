package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.SettableClock;
import io.shardq.broker.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Delivery delay in the engine, on a clock the test moves: a delayed message waits in the
 * scheduled area, holds back nothing behind it, and is delivered once it is due, never before;
 * a restart in the middle loses and duplicates nothing.
 */
@PgTest
class DeliveryDelayTest {
    static final long DEADLINE_MS = 30_000;

    final SettableClock clock = SettableClock.now();

    static BrokerMessage delayed(String text, long deliverAt) {
        return Messages.text(text, 0, deliverAt);
    }

    static String body(BrokerMessage m) {
        return new String(m.body(), java.nio.charset.StandardCharsets.UTF_8);
    }

    static long scheduledRows(TestDatabase db, String queue) throws Exception {
        try (Connection c = db.connect();
                Statement st = c.createStatement();
                ResultSet rs =
                        st.executeQuery("select count(*) from shardq.scheduled_message s join shardq.destination d"
                                + " on d.id = s.destination_id where d.name = '" + queue + "'")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void aDelayedMessage_holdsBackNothingBehindIt_andArrivesOnceDue(TestDatabase db) throws Exception {
        try (Broker broker = Broker.start(db.brokerConfig().build(), clock)) {
            broker.admin().queues().create("delay.head", QueueOptions.DEFAULTS.withShards(1));
            try (BrokerSession p = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE);
                    BrokerSession c = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
                long due = clock.millis() + Duration.ofHours(1).toMillis();
                p.send("delay.head", delayed("late", due));
                for (int i = 0; i < 100; i++) {
                    p.send("delay.head", Messages.text("m" + i));
                }
                for (int i = 0; i < 100; i++) {
                    Delivery d = c.receive("delay.head", DEADLINE_MS, false);
                    assertThat(d).as("message %d", i).isNotNull();
                    assertThat(body(d.message())).isEqualTo("m" + i);
                }
                assertThat(c.receive("delay.head", -1, false)).isNull();
                assertThat(scheduledRows(db, "delay.head")).isEqualTo(1);
                assertThat(broker.admin().queues().stats("delay.head").scheduled())
                        .isEqualTo(1);
                assertThat(broker.admin().queues().stats("delay.head").backlog())
                        .isZero();

                clock.advance(Duration.ofMinutes(59));
                assertThat(c.receive("delay.head", 300, false)).isNull(); // not due: never early

                clock.advance(Duration.ofMinutes(1));
                Delivery d = c.receive("delay.head", DEADLINE_MS, false);
                assertThat(d).isNotNull();
                assertThat(body(d.message())).isEqualTo("late");
                assertThat(d.message().deliverAt()).isEqualTo(due);
                assertThat(d.deliveryCount()).isEqualTo(1);
                assertThat(scheduledRows(db, "delay.head")).isZero();
                assertThat(broker.admin().queues().stats("delay.head").scheduled())
                        .isZero();
            }
        }
    }

    @Test
    void aDelayedPublish_reachesEverySubscription_onceDue(TestDatabase db) throws Exception {
        try (Broker broker = Broker.start(db.brokerConfig().build(), clock)) {
            broker.admin().topics().create("delay.topic", QueueOptions.DEFAULTS.withShards(2));
            try (BrokerSession s = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
                BrokerConsumer a = s.subscribe("delay.topic", TopicTest.durable("delay-a", "sub"));
                BrokerConsumer b = s.subscribe("delay.topic", TopicTest.durable("delay-b", "sub"));
                s.send("delay.topic", delayed("later", clock.millis() + 60_000));
                s.send("delay.topic", Messages.text("now"));
                assertThat(body(a.receive(DEADLINE_MS, false).message())).isEqualTo("now");
                assertThat(body(b.receive(DEADLINE_MS, false).message())).isEqualTo("now");
                assertThat(a.receive(300, false)).isNull(); // not due
                assertThat(scheduledRows(db, "delay.topic")).isEqualTo(1);
                clock.advance(Duration.ofMinutes(1));
                assertThat(body(a.receive(DEADLINE_MS, false).message())).isEqualTo("later");
                assertThat(body(b.receive(DEADLINE_MS, false).message())).isEqualTo("later");
                assertThat(scheduledRows(db, "delay.topic")).isZero();
            }
        }
    }

    @Test
    void aDelayedSend_inARolledBackTransaction_isNotScheduled_andACommittedOneIs(TestDatabase db) throws Exception {
        try (Broker broker = Broker.start(db.brokerConfig().build(), clock)) {
            broker.admin().queues().create("delay.tx", QueueOptions.DEFAULTS);
            long due = clock.millis() + 60_000;
            try (BrokerSession p = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                p.send("delay.tx", delayed("rolled back", due));
                p.rollback();
                assertThat(scheduledRows(db, "delay.tx")).isZero();
                p.send("delay.tx", delayed("committed", due));
                assertThat(scheduledRows(db, "delay.tx")).isZero(); // not before commit
                p.commit();
                assertThat(scheduledRows(db, "delay.tx")).isEqualTo(1);
            }
        }
    }

    /**
     * The mover reads past the last row it moved (keyset). A sending transaction that commits after
     * its own due time, when the mover has already moved a message due later, is behind that
     * position: the commit asks this instance's mover for a full scan at once. With a poll interval
     * of ten minutes nothing else would find it within the test's deadline.
     */
    @Test
    void aMessageCommittedAfterItsTime_behindTheMoversPosition_isMovedAtOnce(TestDatabase db) throws Exception {
        BrokerConfig config =
                db.brokerConfig().set(BrokerProperty.SCHEDULE_POLL_MS, 600_000).build();
        try (Broker broker = Broker.start(config, clock)) {
            broker.admin().queues().create("delay.late", QueueOptions.DEFAULTS.withShards(1));
            long base = clock.millis();
            try (BrokerSession slow = broker.openSession(BrokerSession.Mode.TRANSACTED);
                    BrokerSession p = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE);
                    BrokerSession c = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
                slow.send("delay.late", delayed("committed late", base + 1_000));
                p.send("delay.late", delayed("due later", base + 2_000));
                clock.advance(Duration.ofSeconds(3));
                Delivery first = c.receive("delay.late", DEADLINE_MS, false);
                assertThat(first).isNotNull();
                assertThat(body(first.message())).isEqualTo("due later"); // the position is past 'committed late'

                slow.commit();
                Delivery late = c.receive("delay.late", DEADLINE_MS, false);
                assertThat(late).as("the message committed after its time").isNotNull();
                assertThat(body(late.message())).isEqualTo("committed late");
                assertThat(late.message().deliverAt()).isEqualTo(base + 1_000);
                assertThat(scheduledRows(db, "delay.late")).isZero();
            }
        }
    }

    /**
     * The same on another instance, whose commit does not wake the leader's mover: the leader's
     * full scan every poll interval finds it.
     */
    @Test
    void aMessageCommittedAfterItsTime_onAnotherInstance_isMovedByTheNextFullScan(TestDatabase db) throws Exception {
        BrokerConfig config = db.brokerConfig().build(); // poll-ms 100
        try (Broker first = Broker.start(config, clock);
                Broker second = Broker.start(config, clock)) {
            Awaitility.await()
                    .atMost(Duration.ofSeconds(20))
                    .until(() -> first.isMaintenanceLeader() != second.isMaintenanceLeader());
            Broker leader = first.isMaintenanceLeader() ? first : second;
            Broker follower = leader == first ? second : first;
            leader.admin().queues().create("delay.late2", QueueOptions.DEFAULTS.withShards(1));
            long base = clock.millis();
            try (BrokerSession slow = follower.openSession(BrokerSession.Mode.TRANSACTED);
                    BrokerSession p = leader.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE);
                    BrokerSession c = leader.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
                slow.send("delay.late2", delayed("committed late", base + 1_000));
                p.send("delay.late2", delayed("due later", base + 2_000));
                clock.advance(Duration.ofSeconds(3));
                Delivery first1 = c.receive("delay.late2", DEADLINE_MS, false);
                assertThat(first1).isNotNull();
                assertThat(body(first1.message())).isEqualTo("due later");

                slow.commit();
                Delivery late = c.receive("delay.late2", DEADLINE_MS, false);
                assertThat(late)
                        .as("the message committed after its time on the follower")
                        .isNotNull();
                assertThat(body(late.message())).isEqualTo("committed late");
                assertThat(scheduledRows(db, "delay.late2")).isZero();
            }
        }
    }

    /**
     * A destination that refuses (enqueue stopped) is skipped, the others' messages move on, and its
     * messages, now behind the mover's position, move once it accepts again (the full scan).
     */
    @Test
    void aRefusingDestination_holdsBackNoOther_andItsMessagesMoveOnceItAccepts(TestDatabase db) throws Exception {
        try (Broker broker = Broker.start(db.brokerConfig().build(), clock)) {
            broker.admin().queues().create("delay.stopped", QueueOptions.DEFAULTS.withShards(1));
            broker.admin().queues().create("delay.open", QueueOptions.DEFAULTS.withShards(1));
            long base = clock.millis();
            try (BrokerSession p = broker.openSession(BrokerSession.Mode.TRANSACTED);
                    BrokerSession c = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
                for (int i = 0; i < 1_500; i++) { // more than a mover's batch, all due before the other's
                    p.send("delay.stopped", delayed("s" + i, base + 1_000));
                }
                p.send("delay.open", delayed("open", base + 2_000));
                p.commit();
                broker.admin().queues().stop("delay.stopped", true, false);
                clock.advance(Duration.ofSeconds(3));
                Delivery open = c.receive("delay.open", DEADLINE_MS, false);
                assertThat(open).isNotNull();
                assertThat(body(open.message())).isEqualTo("open");
                assertThat(scheduledRows(db, "delay.stopped")).isEqualTo(1_500);

                broker.admin().queues().start("delay.stopped", true, false);
                Set<String> received = new HashSet<>();
                while (received.size() < 1_500) {
                    Delivery d = c.receive("delay.stopped", DEADLINE_MS, false);
                    assertThat(d).as("after %d", received.size()).isNotNull();
                    assertThat(received.add(body(d.message()))).isTrue();
                }
                assertThat(scheduledRows(db, "delay.stopped")).isZero();
            }
        }
    }

    /**
     * 10,000 messages, half delayed by up to 5 s (on the test's clock), half not, over 4 shards;
     * the clock moves in steps of 250 ms and the instance is restarted half-way. Every message
     * arrives exactly once, and none before its time.
     */
    @Test
    void tenThousandMixed_noneEarly_noneLost_noneTwice_acrossARestart(TestDatabase db) throws Exception {
        int total = 10_000;
        Random random = new Random(11);
        Map<String, Long> dueOf = new HashMap<>();
        long base = clock.millis();
        Broker broker = Broker.start(db.brokerConfig().build(), clock);
        try {
            broker.admin().queues().create("delay.mixed", QueueOptions.DEFAULTS.withShards(4));
            try (BrokerSession p = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                for (int i = 0; i < total; i++) {
                    String text = "m" + i;
                    if (random.nextBoolean()) {
                        long due = base + 1 + random.nextInt(5_000);
                        dueOf.put(text, due);
                        p.send("delay.mixed", delayed(text, due));
                    } else {
                        p.send("delay.mixed", Messages.text(text));
                    }
                    if (i % 100 == 99) {
                        p.commit();
                    }
                }
                p.commit();
            }
            Set<String> received = new HashSet<>();
            int undelayed = total - dueOf.size();
            BrokerSession c = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE);
            try {
                // before the clock moves: exactly the undelayed ones
                while (received.size() < undelayed) {
                    Delivery d = c.receive("delay.mixed", DEADLINE_MS, false);
                    assertThat(d)
                            .as("after %d of the undelayed", received.size())
                            .isNotNull();
                    String text = body(d.message());
                    assertThat(dueOf)
                            .as("%s is delayed and came before the clock moved", text)
                            .doesNotContainKey(text);
                    assertThat(received.add(text)).as("%s twice", text).isTrue();
                }
                for (int step = 1; step <= 21; step++) {
                    clock.advance(Duration.ofMillis(250));
                    long now = clock.millis();
                    long dueByNow =
                            dueOf.values().stream().filter(t -> t <= now).count();
                    if (step == 10) {
                        c.close();
                        broker.close(); // half-way: a new instance takes over the scheduled area
                        broker = Broker.start(db.brokerConfig().build(), clock);
                        c = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE);
                    }
                    while (received.size() < undelayed + dueByNow) {
                        Delivery d = c.receive("delay.mixed", DEADLINE_MS, false);
                        assertThat(d)
                                .as("step %d: %d of %d due", step, received.size() - undelayed, dueByNow)
                                .isNotNull();
                        String text = body(d.message());
                        assertThat(dueOf.get(text))
                                .as("%s due", text)
                                .isNotNull()
                                .isLessThanOrEqualTo(now);
                        assertThat(received.add(text)).as("%s twice", text).isTrue();
                    }
                }
                assertThat(received).hasSize(total);
                assertThat(c.receive("delay.mixed", 200, false)).isNull();
                assertThat(scheduledRows(db, "delay.mixed")).isZero();
            } finally {
                c.close();
            }
        } finally {
            broker.close();
        }
    }
}
