package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.ShardQException;
import io.shardq.broker.shard.BrokerSession.Outcome;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A session on an application's connection that is told how the application's transaction ended
 * ({@code Broker#openSession(Connection, true)}, {@link BrokerSession#transactionEnded}), as a
 * framework's transaction synchronization does it; and, for comparison, one that is not told.
 */
@PgTest
class ApplicationOutcomeTest {
    Broker broker;
    TestDatabase db;

    @BeforeEach
    void start(TestDatabase db) throws Exception {
        this.db = db;
        // a long fallback poll: a consumer that finds a committed send soon was woken by the commit
        broker = Broker.start(db.brokerConfig()
                .set(BrokerProperty.HEARTBEAT_MS, 200)
                .set(BrokerProperty.POLL_MAX_MS, 60_000)
                .set(BrokerProperty.PREFETCH, 1) // sessions share a shard message by message
                .build());
        try (Connection c = db.connect();
                Statement st = c.createStatement()) {
            st.execute("create table if not exists public.orders (id int primary key)");
        }
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    private void send(String queue, String text) {
        try (BrokerSession producer = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
            producer.send(queue, Messages.text(text));
        }
    }

    private static void insertOrder(Connection app, int id) throws Exception {
        try (Statement st = app.createStatement()) {
            st.execute("insert into public.orders values (" + id + ")");
        }
    }

    private int orders() throws Exception {
        try (Connection c = db.connect();
                Statement st = c.createStatement();
                var rs = st.executeQuery("select count(*) from public.orders")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    @Test
    void receive_rolledBackByApplication_isDeliveredAgain_countedAsAFailedDelivery() throws Exception {
        broker.admin().queues().create("outcome.rollback", QueueOptions.DEFAULTS.withShards(1));
        send("outcome.rollback", "order 1");
        try (Connection app = db.connect()) {
            app.setAutoCommit(false);
            try (BrokerSession s = broker.openSession(app, true)) {
                Delivery d = s.receive("outcome.rollback", 10_000, false);
                assertThat(d.deliveryCount()).isEqualTo(1);
                insertOrder(app, 1);
                s.commit(); // written into the application's transaction
                assertThat(s.awaitingOutcome()).isTrue();
                app.rollback();
                s.transactionEnded(Outcome.ROLLED_BACK);
                assertThat(s.awaitingOutcome()).isFalse();

                Delivery again = s.receive("outcome.rollback", 10_000, false);
                assertThat(Messages.body(again.message())).isEqualTo("order 1");
                assertThat(again.deliveryCount()).isEqualTo(2);
                insertOrder(app, 1);
                s.commit();
                app.commit();
                s.transactionEnded(Outcome.COMMITTED);
            }
        }
        assertThat(orders()).isEqualTo(1);
        assertThat(broker.admin().queues().backlog("outcome.rollback")).isZero();
        try (BrokerSession other = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            assertThat(other.receive("outcome.rollback", 500, false)).isNull();
        }
    }

    @Test
    void rollbackWithoutCommit_givesTheMessageBack_counted() throws Exception {
        broker.admin().queues().create("outcome.nocommit", QueueOptions.DEFAULTS.withShards(1));
        send("outcome.nocommit", "m");
        try (Connection app = db.connect()) {
            app.setAutoCommit(false);
            try (BrokerSession s = broker.openSession(app, true)) {
                assertThat(s.receive("outcome.nocommit", 10_000, false).deliveryCount())
                        .isEqualTo(1);
                app.rollback(); // the application failed before the session's commit()
                s.transactionEnded(Outcome.ROLLED_BACK);
            }
        }
        try (BrokerSession other = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            Delivery d = other.receive("outcome.nocommit", 10_000, false);
            assertThat(d.deliveryCount()).isEqualTo(2);
            other.commit();
        }
    }

    @Test
    void receive_committed_isFinal_andTheShardStaysWithTheInstance() throws Exception {
        broker.admin().queues().create("outcome.commit", QueueOptions.DEFAULTS.withShards(1));
        for (int i = 0; i < 3; i++) {
            send("outcome.commit", "m" + i);
        }
        try (Connection app = db.connect();
                BrokerSession plain = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            app.setAutoCommit(false);
            try (BrokerSession s = broker.openSession(app, true)) {
                Delivery d = s.receive("outcome.commit", 10_000, false);
                assertThat(Messages.body(d.message())).isEqualTo("m0");
                s.commit();
                // while the application's commit is pending, another session of the instance takes
                // the next message of the same shard; its own commit does not wait for the application
                Delivery next = plain.receive("outcome.commit", 10_000, false);
                assertThat(Messages.body(next.message())).isEqualTo("m1");
                plain.commit();
                app.commit();
                s.transactionEnded(Outcome.COMMITTED);
                Delivery third = s.receive("outcome.commit", 10_000, false);
                assertThat(Messages.body(third.message())).isEqualTo("m2");
                assertThat(third.deliveryCount()).isEqualTo(1);
                s.commit();
                app.commit();
                s.transactionEnded(Outcome.COMMITTED);
            }
        }
        assertThat(broker.admin().queues().backlog("outcome.commit")).isZero();
        try (BrokerSession other = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            assertThat(other.receive("outcome.commit", 500, false)).isNull();
        }
    }

    @Test
    void send_committed_wakesAWaitingConsumer_rolledBack_isNeverDelivered() throws Exception {
        broker.admin().queues().create("outcome.send", QueueOptions.DEFAULTS.withShards(1));
        try (Connection app = db.connect();
                BrokerSession consumer = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            app.setAutoCommit(false);
            try (BrokerSession s = broker.openSession(app, true)) {
                s.send("outcome.send", Messages.text("rolled back"));
                s.commit();
                app.rollback();
                s.transactionEnded(Outcome.ROLLED_BACK);

                s.send("outcome.send", Messages.text("committed"));
                s.commit();
                assertThat(consumer.receive("outcome.send", -1, false)).isNull(); // not committed yet
                app.commit();
                s.transactionEnded(Outcome.COMMITTED);
            }
            // the fallback poll is a minute away: only the commit's wake-up can deliver this in time
            Delivery d = consumer.receive("outcome.send", 10_000, false);
            assertThat(Messages.body(d.message())).isEqualTo("committed");
            consumer.commit();
            assertThat(consumer.receive("outcome.send", 500, false)).isNull();
        }
        assertThat(broker.admin().queues().backlog("outcome.send")).isZero();
    }

    @Test
    void useBeforeTheOutcome_isRefused_andSessionsNotOpenedToAwait_refuseOutcomes() throws Exception {
        broker.admin().queues().create("outcome.refused", QueueOptions.DEFAULTS.withShards(1));
        try (Connection app = db.connect()) {
            app.setAutoCommit(false);
            try (BrokerSession s = broker.openSession(app, true)) {
                s.send("outcome.refused", Messages.text("x"));
                s.commit();
                assertThatThrownBy(() -> s.send("outcome.refused", Messages.text("y")))
                        .isInstanceOf(ShardQException.class)
                        .hasMessageContaining("has not ended yet")
                        .satisfies(e -> assertThat(((ShardQException) e).kind()).isEqualTo(ErrorKind.ILLEGAL_STATE));
                assertThatThrownBy(s::commit).hasMessageContaining("transactionEnded");
                app.rollback();
                s.transactionEnded(Outcome.ROLLED_BACK);
            }
            try (BrokerSession untold = broker.openSession(app)) {
                assertThatThrownBy(() -> untold.transactionEnded(Outcome.COMMITTED))
                        .isInstanceOf(ShardQException.class)
                        .hasMessageContaining("not opened to be told outcomes");
            }
            app.setAutoCommit(true);
            try (BrokerSession s = broker.openSession(app, true)) {
                s.send("outcome.refused", Messages.text("z"));
                assertThatThrownBy(s::commit).hasMessageContaining("autocommit");
            }
        }
        assertThat(broker.admin().queues().backlog("outcome.refused")).isZero();
    }

    @Test
    void closedBeforeTheOutcome_theApplicationCommits_noDuplicate() throws Exception {
        broker.admin().queues().create("outcome.closed", QueueOptions.DEFAULTS.withShards(1));
        send("outcome.closed", "once");
        try (Connection app = db.connect()) {
            app.setAutoCommit(false);
            BrokerSession s = broker.openSession(app, true);
            s.receive("outcome.closed", 10_000, false);
            s.commit();
            s.close(); // outcome unknown: the instance re-reads the shard, after the application's end
            app.commit();
        }
        try (BrokerSession other = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            assertThat(other.receive("outcome.closed", 1000, false)).isNull();
        }
        assertThat(broker.admin().queues().backlog("outcome.closed")).isZero();
    }

    @Test
    void closedBeforeTheOutcome_theApplicationRollsBack_deliveredAgain() throws Exception {
        broker.admin().queues().create("outcome.closedrb", QueueOptions.DEFAULTS.withShards(1));
        send("outcome.closedrb", "again");
        try (Connection app = db.connect()) {
            app.setAutoCommit(false);
            BrokerSession s = broker.openSession(app, true);
            s.receive("outcome.closedrb", 10_000, false);
            s.commit();
            s.close();
            app.rollback();
        }
        try (BrokerSession other = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            Delivery d = other.receive("outcome.closedrb", 10_000, false);
            assertThat(Messages.body(d.message())).isEqualTo("again");
            other.commit();
        }
    }

    /**
     * What a session on an application's connection that is not told outcomes does (the behaviour
     * before outcomes existed, kept for {@code openSession(Connection)}): a receive the application
     * rolls back after commit() is delivered again once the instance re-reads the shard, but it was
     * not counted as a failed delivery.
     */
    @Test
    void untoldSession_rolledBackReceive_isDeliveredAgain_uncounted() throws Exception {
        broker.admin().queues().create("outcome.untold", QueueOptions.DEFAULTS.withShards(1));
        send("outcome.untold", "m");
        try (Connection app = db.connect()) {
            app.setAutoCommit(false);
            try (BrokerSession s = broker.openSession(app)) {
                s.receive("outcome.untold", 10_000, false);
                s.commit();
                app.rollback();
            }
        }
        try (BrokerSession other = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            Delivery d = other.receive("outcome.untold", 10_000, false);
            assertThat(Messages.body(d.message())).isEqualTo("m");
            assertThat(d.deliveryCount()).isEqualTo(1);
            other.commit();
        }
    }
}
