package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.ShardQException;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.OwnPostgres;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two-phase commit in the engine (issue 13): PREPARE TRANSACTION from a session, the outcome from
 * any instance, and what a prepared but undecided transaction holds back.
 */
@PgTest
@Timeout(120) // a prepared transaction's row locks make a mistake hang, not fail
class PreparedTransactionsTest {
    static final String PREFIX = "engine-test:";

    Broker broker;
    TestDatabase db;
    int gids;

    @BeforeEach
    void start(TestDatabase db) {
        this.db = db;
        db.assumeNotCitus("XA is refused there (CitusClusterTest.anXaSession_isRefusedWithAClearError)");
        broker = Broker.start(config(db).build());
        Assumptions.assumeTrue(
                broker.xa().maxPreparedTransactions() > 0,
                "the test server has max_prepared_transactions = 0 (SHARDQ_TEST_JDBC_URL): XA tests skipped");
    }

    static BrokerConfig.Builder config(TestDatabase db) {
        return db.brokerConfig().set(BrokerProperty.HEARTBEAT_MS, 200).set(BrokerProperty.LEASE_TTL_MS, 1500);
    }

    @AfterEach
    void stop() {
        if (broker != null) { // null when skipped on Citus
            broker.close();
        }
    }

    String gid() {
        return PREFIX + ProcessHandle.current().pid() + "." + (++gids) + "." + System.nanoTime();
    }

    void sendOne(String queue, String body) {
        try (BrokerSession s = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
            s.send(queue, Messages.text(body));
        }
    }

    @Test
    void preparedSend_isInvisible_untilCommitPrepared() {
        broker.admin().queues().create("xa.send", QueueOptions.DEFAULTS.withShards(1));
        String gid = gid();
        try (BrokerSession xa = broker.xa().openSession();
                BrokerSession reader = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            xa.xaAssociate(true);
            xa.send("xa.send", Messages.text("two-phase"));
            xa.xaAssociate(false);
            assertThat(xa.prepare(gid)).isTrue();
            assertThat(xa.preparedGid()).isEqualTo(gid);
            assertThat(broker.xa().list(PREFIX)).containsExactly(gid);
            assertThat(reader.receive("xa.send", 300, false)).isNull();

            assertThat(broker.xa().commit(gid)).isTrue();
            assertThat(xa.preparedGid()).isNull();
            Delivery d = reader.receive("xa.send", 5000, false);
            assertThat(Messages.body(d.message())).isEqualTo("two-phase");
            reader.commit();
        }
        assertThat(broker.xa().list(PREFIX)).isEmpty();
        assertThat(broker.admin().queues().backlog("xa.send")).isZero();
    }

    @Test
    void preparedSend_isGone_afterRollbackPrepared() {
        broker.admin().queues().create("xa.sendrb", QueueOptions.DEFAULTS.withShards(1));
        String gid = gid();
        try (BrokerSession xa = broker.xa().openSession()) {
            xa.xaAssociate(true);
            xa.send("xa.sendrb", Messages.text("never"));
            xa.xaAssociate(false);
            assertThat(xa.prepare(gid)).isTrue();
            assertThat(broker.xa().rollback(gid)).isTrue();
            assertThat(broker.xa().rollback(gid)).isFalse(); // decided already
            // the session works again after the outcome
            xa.xaAssociate(true);
            xa.send("xa.sendrb", Messages.text("after"));
            xa.commit(); // one phase
        }
        try (BrokerSession reader = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            assertThat(Messages.body(reader.receive("xa.sendrb", 5000, false).message()))
                    .isEqualTo("after");
            assertThat(reader.receive("xa.sendrb", 200, false)).isNull();
            reader.commit();
        }
    }

    @Test
    void preparedReceive_isRedelivered_afterRollbackPrepared_withOneMoreAttempt() {
        broker.admin().queues().create("xa.recvrb", QueueOptions.DEFAULTS.withShards(1));
        sendOne("xa.recvrb", "again");
        String gid = gid();
        try (BrokerSession xa = broker.xa().openSession();
                BrokerSession other = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            xa.xaAssociate(true);
            assertThat(Messages.body(xa.receive("xa.recvrb", 5000, false).message()))
                    .isEqualTo("again");
            xa.xaAssociate(false);
            assertThat(xa.prepare(gid)).isTrue();
            assertThat(other.receive("xa.recvrb", 300, false)).isNull(); // held while prepared

            assertThat(broker.xa().rollback(gid)).isTrue();
            Delivery d = other.receive("xa.recvrb", 5000, false);
            assertThat(Messages.body(d.message())).isEqualTo("again");
            assertThat(d.deliveryCount()).isEqualTo(2);
            other.commit();
        }
        assertThat(broker.admin().queues().backlog("xa.recvrb")).isZero();
    }

    @Test
    void preparedReceive_isConsumedOnce_afterCommitPrepared() {
        broker.admin().queues().create("xa.recv", QueueOptions.DEFAULTS.withShards(1));
        sendOne("xa.recv", "once");
        String gid = gid();
        try (BrokerSession xa = broker.xa().openSession()) {
            xa.xaAssociate(true);
            assertThat(xa.receive("xa.recv", 5000, false)).isNotNull();
            xa.xaAssociate(false);
            assertThat(xa.prepare(gid)).isTrue();
            assertThat(broker.xa().commit(gid)).isTrue();
        }
        try (BrokerSession other = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            assertThat(other.receive("xa.recv", 300, false)).isNull();
        }
        assertThat(broker.admin().queues().backlog("xa.recv")).isZero();
    }

    /**
     * The instance that prepared a receive goes away undecided: another instance must neither
     * deliver the message while the transaction is prepared (its cursor row stays locked; lease
     * acquisition skips it) nor lose it; the outcome decides.
     */
    @Test
    void preparedReceive_ofAGoneInstance_isHeldUntilDecided_thenRedeliveredOrConsumed() {
        broker.admin().queues().create("xa.gone", QueueOptions.DEFAULTS.withShards(1));
        sendOne("xa.gone", "rolled-back");
        sendOne("xa.gone", "committed");
        String first = gid();
        String second = gid();
        Broker a = Broker.start(config(db).build());
        try (BrokerSession xa = a.xa().openSession()) {
            xa.xaAssociate(true);
            assertThat(Messages.body(xa.receive("xa.gone", 5000, false).message()))
                    .isEqualTo("rolled-back");
            assertThat(xa.prepare(first)).isTrue();
            // prepared: the session takes nothing new until the outcome
            assertThatThrownBy(() -> xa.xaAssociate(true)).hasMessageContaining(first);
        } finally {
            a.close(); // never waits for the prepared transaction's locks
        }
        try (BrokerSession other = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            // the gone instance's lease expires (1.5 s) within this wait; the row stays locked
            assertThat(other.receive("xa.gone", 3000, false)).isNull();
            assertThat(broker.xa().list(PREFIX)).containsExactly(first);

            assertThat(broker.xa().rollback(first)).isTrue();
            assertThat(Messages.body(other.receive("xa.gone", 10_000, false).message()))
                    .isEqualTo("rolled-back");
            other.rollback(); // for the next round
        }
        // this time the session closes before the outcome, which is decided through the instance
        try (BrokerSession xa = broker.xa().openSession()) {
            xa.xaAssociate(true);
            List<String> got = new java.util.ArrayList<>();
            Delivery d;
            while (got.size() < 2 && (d = xa.receive("xa.gone", 10_000, false)) != null) {
                got.add(Messages.body(d.message()));
            }
            assertThat(got).containsExactly("rolled-back", "committed");
            assertThat(xa.prepare(second)).isTrue();
        }
        try (BrokerSession other = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            assertThat(other.receive("xa.gone", 1000, false)).isNull();
            assertThat(broker.xa().commit(second)).isTrue();
            assertThat(other.receive("xa.gone", 1000, false)).isNull();
        }
        assertThat(broker.admin().queues().backlog("xa.gone")).isZero();
        assertThat(broker.xa().list(PREFIX)).isEmpty();
    }

    /**
     * A send whose shard another instance waits on would NOTIFY it in the transaction, which
     * PostgreSQL refuses to prepare: the XA session sends that wake-up after the commit instead.
     */
    @Test
    void preparedSend_toAShardAnotherInstanceWaitsOn_prepares_andWakesItAfterTheCommit() throws Exception {
        broker.admin().queues().create("xa.wake", QueueOptions.DEFAULTS.withShards(1));
        String gid = gid();
        try (Broker waiterInstance = Broker.start(config(db).build())) {
            java.util.concurrent.CompletableFuture<String> got =
                    java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                        try (BrokerSession s = waiterInstance.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
                            Delivery d = s.receive("xa.wake", 60_000, false);
                            return d == null ? null : Messages.body(d.message());
                        }
                    });
            org.awaitility.Awaitility.await("the other instance waits on the shard")
                    .atMost(java.time.Duration.ofSeconds(30))
                    .until(() -> {
                        try (java.sql.Connection c = db.connect();
                                java.sql.Statement st = c.createStatement();
                                java.sql.ResultSet rs =
                                        st.executeQuery("select s.waiter from shardq.shard s join shardq.destination d"
                                                + " on d.id = s.destination_id where d.name = 'xa.wake'")) {
                            return rs.next() && rs.getLong(1) == waiterInstance.instanceId();
                        }
                    });
            try (BrokerSession xa = broker.xa().openSession()) {
                xa.xaAssociate(true);
                xa.send("xa.wake", Messages.text("woken"));
                xa.xaAssociate(false);
                assertThat(xa.prepare(gid)).isTrue();
                assertThat(broker.xa().commit(gid)).isTrue();
            }
            assertThat(got.get(60, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo("woken");
        }
    }

    @Test
    void xaSession_refusesWork_outsideABranch_andLocalCompletion_whilePrepared() {
        broker.admin().queues().create("xa.refuse", QueueOptions.DEFAULTS.withShards(1));
        String gid = gid();
        try (BrokerSession xa = broker.xa().openSession()) {
            assertThatThrownBy(() -> xa.send("xa.refuse", Messages.text("x")))
                    .isInstanceOf(ShardQException.class)
                    .hasMessageContaining("not associated with a global transaction");
            xa.xaAssociate(true);
            xa.send("xa.refuse", Messages.text("x"));
            assertThat(xa.prepare(gid)).isTrue();
            assertThatThrownBy(xa::commit).hasMessageContaining(gid).hasMessageContaining("prepared");
            assertThatThrownBy(xa::rollback).hasMessageContaining(gid);
            assertThatThrownBy(() -> xa.send("xa.refuse", Messages.text("y"))).hasMessageContaining(gid);
            assertThatThrownBy(() -> xa.prepare(gid())).hasMessageContaining("prepared already");
            assertThat(broker.xa().rollback(gid)).isTrue();
        }
    }

    @Test
    void prepare_refusesAnInvalidGid_andADuplicate() {
        broker.admin().queues().create("xa.gid", QueueOptions.DEFAULTS.withShards(1));
        broker.admin().queues().create("xa.gid2", QueueOptions.DEFAULTS.withShards(1));
        try (BrokerSession xa = broker.xa().openSession()) {
            xa.xaAssociate(true);
            xa.send("xa.gid", Messages.text("x"));
            assertThatThrownBy(() -> xa.prepare("bad'gid"))
                    .isInstanceOf(ShardQException.class)
                    .satisfies(e -> assertThat(((ShardQException) e).kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT))
                    .hasMessageContaining("bad'gid");
            assertThatThrownBy(() -> xa.prepare("g".repeat(200))).hasMessageContaining("200 characters");
            String gid = gid();
            assertThat(xa.prepare(gid)).isTrue();
            assertThat(broker.xa().commit(gid)).isTrue();

            xa.xaAssociate(true);
            xa.send("xa.gid", Messages.text("y"));
            String taken = gid();
            try (BrokerSession other = broker.xa().openSession()) {
                other.xaAssociate(true);
                // another queue: a prepared send holds its shard's row lock until the outcome, and xa's
                // prepare below would wait for it
                other.send("xa.gid2", Messages.text("z"));
                assertThat(other.prepare(taken)).isTrue();
            }
            // the same gid again: PostgreSQL refuses, the transaction rolls back
            assertThatThrownBy(() -> xa.prepare(taken))
                    .isInstanceOf(ShardQException.class)
                    .hasMessageContaining("exists already");
            assertThat(broker.xa().rollback(taken)).isTrue();
        }
        try (BrokerSession reader = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            assertThat(Messages.body(reader.receive("xa.gid", 5000, false).message()))
                    .isEqualTo("x");
            assertThat(reader.receive("xa.gid", 300, false)).isNull();
            reader.commit();
        }
    }

    @Test
    void prepare_withNothingDone_isReadOnly() {
        try (BrokerSession xa = broker.xa().openSession()) {
            xa.xaAssociate(true);
            assertThat(xa.prepare(gid())).isFalse();
        }
        assertThat(broker.xa().list(PREFIX)).isEmpty();
    }

    @Test
    void openXaSession_refused_whenTheServerHasNoPreparedTransactions() throws Exception {
        try (OwnPostgres pg = OwnPostgres.start("shardq-no-2pc", 0)) {
            BrokerConfig config = BrokerConfig.builder()
                    .isolated()
                    .set(BrokerProperty.JDBC_URL, pg.jdbcUrl())
                    .set(BrokerProperty.JDBC_USER, "postgres")
                    .build();
            try (Broker off = Broker.start(config)) {
                assertThat(off.xa().maxPreparedTransactions()).isZero();
                assertThatThrownBy(() -> off.xa().openSession())
                        .isInstanceOf(ShardQException.class)
                        .satisfies(e -> assertThat(((ShardQException) e).kind()).isEqualTo(ErrorKind.CONFIGURATION))
                        .hasMessageContaining("max_prepared_transactions is 0");
            }
        }
    }
}
