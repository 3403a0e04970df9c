package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.Engines;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.ShardQException;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The database moved a cursor without this instance learning it (what a lost reply to a
 * consumer's commit leaves behind): the next commit on the shard fails its guard, and from then on
 * the instance delivers from the database's position. Before, it kept its stale cursor, every later
 * commit failed, and the shard's messages went to the dead-letter queue one attempt at a time.
 */
@PgTest
class StaleCursorRecoveryTest {

    @Test
    void aGuardFailure_makesTheInstanceReReadTheCursor_noWedge_noDeadLetters(TestDatabase db) throws Exception {
        try (Broker broker = Broker.start(db.brokerConfig().build())) {
            broker.admin()
                    .queues()
                    .create("stale.q", QueueOptions.DEFAULTS.withShards(1).withMaxAttempts(3));
            try (BrokerSession p = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                for (int i = 1; i <= 20; i++) {
                    p.send("stale.q", Messages.text("m" + i));
                }
                p.commit();
            }
            List<String> got = new ArrayList<>();
            try (BrokerSession c = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                for (int i = 0; i < 5; i++) {
                    got.add(Messages.body(c.receive("stale.q", 5000, false).message()));
                }
                c.commit(); // cursor at 5, here and in the database
                // a commit of m6..m10 took effect, and its reply never came back
                long sub = broker.admin().require("stale.q").queueSubscription();
                try (Connection sql = db.connect();
                        PreparedStatement ps = sql.prepareStatement(
                                "UPDATE shardq.cursor SET position = position + 5 WHERE subscription_id = ?")) {
                    ps.setLong(1, sub);
                    assertThat(ps.executeUpdate()).isEqualTo(1);
                }
                Delivery stale = c.receive("stale.q", 5000, false);
                assertThat(Messages.body(stale.message())).isEqualTo("m6"); // the instance did not know yet
                assertThatThrownBy(c::commit)
                        .isInstanceOf(ShardQException.class)
                        .extracting(e -> ((ShardQException) e).kind())
                        .isEqualTo(ErrorKind.ROLLED_BACK);
                // from now on: the database's position, every message once, and commits work
                for (int i = 0; i < 10; i++) {
                    Delivery d = c.receive("stale.q", 5000, false);
                    assertThat(d).as("message %d after the failed commit", i).isNotNull();
                    got.add(Messages.body(d.message()));
                    assertThat(d.deliveryCount()).isEqualTo(1);
                    c.commit();
                }
                assertThat(c.receive("stale.q", 200, false)).isNull();
            }
            assertThat(got)
                    .containsExactly(
                            "m1", "m2", "m3", "m4", "m5", "m11", "m12", "m13", "m14", "m15", "m16", "m17", "m18", "m19",
                            "m20");
            assertThat(broker.admin().queues().backlog("stale.q")).isZero();
            assertThat(broker.stats().deadLettered()).isZero();
        }
    }

    /**
     * A consumer commit planned under one lease of this instance, then held up before it reached
     * PostgreSQL (as when it waits for a pool connection while PostgreSQL restarts), while the
     * instance forgot the shard (as after another session's commit in doubt) and took the lease
     * again: the re-read hands the held-up commit's messages out again, so that commit must not log
     * them when it finally runs (V017's lease_seq). Before, it found lease_instance still this
     * instance's, logged them, and they were consumed twice (seen once in PostgresRestartTest under
     * load).
     */
    @Test
    void aCommitPlannedBeforeTheInstanceTookTheShardAgain_logsNothing_andNothingIsConsumedTwice(TestDatabase db)
            throws Exception {
        try (Broker broker = oneShardQueue(db, "relet.q", 6)) {
            BrokerSession a = broker.openSession(BrokerSession.Mode.TRANSACTED);
            BrokerSession b = broker.openSession(BrokerSession.Mode.TRANSACTED);
            BrokerSession c = broker.openSession(BrokerSession.Mode.TRANSACTED);
            assertThat(Messages.body(a.receive("relet.q", 5000, false).message()))
                    .isEqualTo("m1");
            List<String> bGot = List.of(
                    Messages.body(b.receive("relet.q", 5000, false).message()),
                    Messages.body(b.receive("relet.q", 5000, false).message()));
            assertThat(bGot).containsExactly("m2", "m3"); // b does not hold m1: its commit logs, not moves

            Subscription sub = Engines.of(broker).runtime("relet.q", false).queue();
            ShardState shard = sub.shards()[0];
            List<String> cGot = new ArrayList<>();
            shard.afterPlan = () -> {
                shard.afterPlan = null;
                takeAgain(broker, sub, shard);
                for (int i = 0; i < 6; i++) { // the re-read hands every message out again
                    Delivery d = c.receive("relet.q", 5000, false);
                    assertThat(d).as("message %d after the re-lease", i).isNotNull();
                    cGot.add(Messages.body(d.message()));
                }
            };
            assertThatThrownBy(b::commit)
                    .isInstanceOf(ShardQException.class)
                    .extracting(e -> ((ShardQException) e).kind())
                    .isEqualTo(ErrorKind.ROLLED_BACK);
            assertThat(cGot).containsExactlyInAnyOrder("m1", "m2", "m3", "m4", "m5", "m6");
            c.commit();
            assertThatThrownBy(a::commit).isInstanceOf(ShardQException.class); // its claim is from the old lease
            a.close();
            b.close();
            c.close();
            assertThat(broker.admin().queues().backlog("relet.q")).isZero();
            try (BrokerSession after = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                assertThat(after.receive("relet.q", 200, false)).isNull();
            }
        }
    }

    /**
     * The same hold-up for a commit that <em>moves</em> the cursor: while it waits, the instance
     * forgets the shard and takes it again, the re-read hands its messages out again, and a session
     * of the new lease consumes one of them out of order (it logs it: the cursor stays where the old
     * plan found it). The old commit's move must then fail (its lease acquisition, V017's lease_seq,
     * is gone), or that message is consumed twice. Before, the move's guard named only the position
     * and the instance, and it passed (seen once as a message consumed twice in
     * BackendFaultsTest under load, with connection cuts making instances re-take leases).
     */
    @Test
    void aCursorMovePlannedBeforeTheInstanceTookTheShardAgain_movesNothing_andNothingIsConsumedTwice(TestDatabase db)
            throws Exception {
        try (Broker broker = oneShardQueue(db, "remove.q", 4)) {
            BrokerSession a = broker.openSession(BrokerSession.Mode.TRANSACTED);
            BrokerSession c = broker.openSession(BrokerSession.Mode.TRANSACTED);
            BrokerSession d = broker.openSession(BrokerSession.Mode.TRANSACTED);
            List<String> aGot = List.of(
                    Messages.body(a.receive("remove.q", 5000, false).message()),
                    Messages.body(a.receive("remove.q", 5000, false).message()));
            assertThat(aGot).containsExactly("m1", "m2"); // a's commit moves the cursor from 0 to 2

            Subscription sub = Engines.of(broker).runtime("remove.q", false).queue();
            ShardState shard = sub.shards()[0];
            List<String> consumed = new ArrayList<>();
            shard.afterPlan = () -> {
                shard.afterPlan = null;
                takeAgain(broker, sub, shard);
                // the re-read hands m1 and m2 out again: c holds m1, d takes m2 and commits it,
                // logged beyond the cursor (d does not hold the message at the cursor)
                assertThat(Messages.body(c.receive("remove.q", 5000, false).message()))
                        .isEqualTo("m1");
                assertThat(Messages.body(d.receive("remove.q", 5000, false).message()))
                        .isEqualTo("m2");
                d.commit();
                consumed.add("m2");
            };
            assertThatThrownBy(a::commit)
                    .isInstanceOf(ShardQException.class)
                    .extracting(e -> ((ShardQException) e).kind())
                    .isEqualTo(ErrorKind.ROLLED_BACK);
            c.commit(); // m1: the cursor moves from 0 over the logged m2
            consumed.add("m1");
            a.close();
            c.close();
            d.close();
            try (BrokerSession rest = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                for (Delivery m = rest.receive("remove.q", 2000, false);
                        m != null;
                        m = rest.receive("remove.q", 200, false)) {
                    consumed.add(Messages.body(m.message()));
                }
                rest.commit();
            }
            assertThat(consumed).containsExactlyInAnyOrder("m1", "m2", "m3", "m4");
            assertThat(broker.admin().queues().backlog("remove.q")).isZero();
        }
    }

    /**
     * A session delivered a message in its open transaction, then the instance forgot the shard and
     * took the lease again (another session's commit in doubt, a connection cut): the re-read hands
     * the message out again, to this same session. Its commit must fail and roll both deliveries
     * back. Before, the session dropped its claim of the old lease when it took a range under the
     * new one, and the commit succeeded with the message delivered twice in one transaction (seen
     * in BackendFaultsTest as "0:13:0" delivered as shard 0 seq 126 twice in one batch).
     */
    @Test
    void aMessageDeliveredAgainToTheSameSessionAfterARelease_failsItsCommit_andIsConsumedOnce(TestDatabase db)
            throws Exception {
        try (Broker broker = oneShardQueue(db, "again.q", 3)) {
            Subscription sub = Engines.of(broker).runtime("again.q", false).queue();
            ShardState shard = sub.shards()[0];
            List<String> consumed = new ArrayList<>();
            try (BrokerSession a = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                assertThat(Messages.body(a.receive("again.q", 5000, false).message()))
                        .isEqualTo("m1");
                takeAgain(broker, sub, shard);
                assertThat(Messages.body(a.receive("again.q", 5000, false).message()))
                        .isEqualTo("m1"); // the re-read hands it out again
                assertThatThrownBy(a::commit)
                        .isInstanceOf(ShardQException.class)
                        .extracting(e -> ((ShardQException) e).kind())
                        .isEqualTo(ErrorKind.ROLLED_BACK);
                for (Delivery m = a.receive("again.q", 5000, false); m != null; m = a.receive("again.q", 200, false)) {
                    consumed.add(Messages.body(m.message()));
                }
                a.commit();
            }
            assertThat(consumed).containsExactly("m1", "m2", "m3");
            assertThat(broker.admin().queues().backlog("again.q")).isZero();
        }
    }

    /**
     * A second acquisition of a shard this instance holds (two threads of it deciding to take the
     * same free shard, as many new subscriptions at once do) leaves the lease as it is: the cursor
     * row is not numbered anew, so a commit planned meanwhile still passes its lease_seq guard.
     * Before, the second statement re-took our own row, and the commit failed with "cursor was not
     * at 0" (TopicScaleTest, every run, once the move's guard named lease_seq).
     */
    @Test
    void aSecondAcquisitionOfAHeldShard_doesNotFailTheCommitsPlannedMeanwhile(TestDatabase db) throws Exception {
        try (Broker broker = oneShardQueue(db, "twice.q", 2)) {
            Subscription sub = Engines.of(broker).runtime("twice.q", false).queue();
            ShardState shard = sub.shards()[0];
            try (BrokerSession a = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                assertThat(Messages.body(a.receive("twice.q", 5000, false).message()))
                        .isEqualTo("m1");
                shard.afterPlan = () -> {
                    shard.afterPlan = null;
                    try (Connection sql = Engines.of(broker).dataSource().getConnection()) {
                        assertThat(sub.takeLeases(sql, List.of(0))).isFalse(); // held here already
                    } catch (java.sql.SQLException e) {
                        throw new AssertionError(e);
                    }
                };
                a.commit();
                assertThat(Messages.body(a.receive("twice.q", 5000, false).message()))
                        .isEqualTo("m2");
                a.commit();
            }
            assertThat(broker.admin().queues().backlog("twice.q")).isZero();
        }
    }

    /** A broker with PREFETCH 1 and a one-shard queue holding m1..m{count}. */
    private static Broker oneShardQueue(TestDatabase db, String queue, int count) {
        Broker broker =
                Broker.start(db.brokerConfig().set(BrokerProperty.PREFETCH, 1).build());
        broker.admin().queues().create(queue, QueueOptions.DEFAULTS.withShards(1));
        try (BrokerSession p = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            for (int i = 1; i <= count; i++) {
                p.send(queue, Messages.text("m" + i));
            }
            p.commit();
        }
        return broker;
    }

    /**
     * The instance forgets the shard (what another session's commit in doubt does) and takes its
     * lease again, re-reading cursor and log. A background acquisition of the instance may take it
     * first (then this one leaves it alone): either way the shard is leased anew, from the database.
     */
    private static void takeAgain(Broker broker, Subscription sub, ShardState shard) {
        int before = shard.leaseEpoch;
        shard.forget(before);
        try (Connection sql = Engines.of(broker).dataSource().getConnection()) {
            sub.takeLeases(sql, List.of(0));
        } catch (java.sql.SQLException e) {
            throw new AssertionError(e);
        }
        assertThat(shard.leased).as("leased again").isTrue();
        assertThat(shard.leaseEpoch).as("a new lease, not the forgotten one").isGreaterThan(before + 1);
    }
}
