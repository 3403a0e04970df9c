package io.shardq.jms.xa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.arjuna.ats.arjuna.recovery.RecoveryManager;
import com.arjuna.ats.internal.jta.recovery.arjunacore.XARecoveryModule;
import com.arjuna.ats.jta.recovery.XAResourceRecoveryHelper;
import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.testing.ChildJvm;
import io.shardq.broker.testing.OwnPostgres;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import io.shardq.jms.ShardQXAConnectionFactory;
import jakarta.jms.Connection;
import jakarta.jms.IllegalStateException;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import jakarta.jms.TransactionInProgressException;
import jakarta.jms.TransactionInProgressRuntimeException;
import jakarta.jms.XAConnection;
import jakarta.jms.XAJMSContext;
import jakarta.jms.XASession;
import jakarta.transaction.TransactionManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.postgresql.xa.PGXADataSource;

/**
 * XA (issue 13) with a real transaction manager, Narayana, coordinating a ShardQ XA session and
 * a second database (another database of the same server, through pgjdbc's PGXADataSource): both
 * commit or neither, also across a crash of the JVM between prepare and commit, after which
 * Narayana's recovery in this JVM completes the transaction.
 */
@PgTest
@Timeout(300) // prepared transactions hold row locks: a mistake hangs instead of failing
class XaTransactionsTest {
    static TransactionManager tm;
    static int siblings;

    TestDatabase db;
    TestDatabase other;
    /** This test's queues (the database is the test class's). */
    String queue;

    String crashQueue;
    PGXADataSource otherXa;
    ShardQXAConnectionFactory factory;
    XAConnection xaConnection;
    Connection plain;

    @BeforeAll
    static void narayana() {
        Narayana.configure(Narayana.objectStore());
        tm = com.arjuna.ats.jta.TransactionManager.transactionManager();
    }

    @BeforeEach
    void start(TestDatabase db) throws Exception {
        this.db = db;
        db.assumeNotCitus("XA is refused there (CitusClusterTest.anXaSession_isRefusedWithAClearError)");
        try (java.sql.Connection c = db.connect();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("show max_prepared_transactions")) {
            rs.next();
            Assumptions.assumeTrue(
                    rs.getInt(1) > 0,
                    "XA tests skipped: the test server (SHARDQ_TEST_JDBC_URL) has max_prepared_transactions = 0,"
                            + " and XA needs PREPARE TRANSACTION");
        }
        other = db.sibling("o" + (++siblings));
        queue = "xa.q" + siblings;
        crashQueue = "xa.crash" + siblings;
        try (java.sql.Connection c = other.connect();
                Statement st = c.createStatement()) {
            st.execute("create table orders (id serial primary key, note text not null)");
        }
        otherXa = new PGXADataSource();
        otherXa.setUrl(other.jdbcUrl());
        otherXa.setUser(other.user());
        otherXa.setPassword(other.password());
        factory = new ShardQXAConnectionFactory(config(db).build());
        factory.connectionFactory().broker().admin().queues().create(queue, QueueOptions.DEFAULTS.withShards(1));
        factory.connectionFactory().broker().admin().queues().create(crashQueue, QueueOptions.DEFAULTS.withShards(1));
        xaConnection = factory.createXAConnection();
        xaConnection.start();
        plain = factory.connectionFactory().createConnection();
        plain.start();
    }

    static BrokerConfig.Builder config(TestDatabase db) {
        return db.brokerConfig().set(BrokerProperty.HEARTBEAT_MS, 200).set(BrokerProperty.LEASE_TTL_MS, 1500);
    }

    @AfterEach
    void stop() throws Exception {
        if (plain != null) {
            plain.close();
        }
        if (xaConnection != null) {
            xaConnection.close();
        }
        if (factory != null) {
            factory.close();
        }
        if (other != null) {
            other.close();
        }
    }

    int orders(String note) throws Exception {
        try (java.sql.Connection c = other.connect();
                PreparedStatement ps = c.prepareStatement("select count(*) from orders where note = ?")) {
            ps.setString(1, note);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    void insertOrder(javax.sql.XAConnection x, String note) throws Exception {
        try (java.sql.Connection c = x.getConnection();
                PreparedStatement ps = c.prepareStatement("insert into orders (note) values (?)")) {
            ps.setString(1, note);
            ps.executeUpdate();
        }
    }

    /** The bodies a plain consumer gets from {@code queue} until it is empty, consumed. */
    List<String> drain(String queue, long firstWaitMillis) throws Exception {
        List<String> got = new java.util.ArrayList<>();
        try (Session s = plain.createSession(Session.SESSION_TRANSACTED)) {
            MessageConsumer c = s.createConsumer(s.createQueue(queue));
            Message m = c.receive(firstWaitMillis);
            while (m != null) {
                got.add(((TextMessage) m).getText());
                m = c.receive(500);
            }
            s.commit();
        }
        return got;
    }

    void sendPlain(String queue, String body) throws JMSException {
        try (Session s = plain.createSession(Session.AUTO_ACKNOWLEDGE)) {
            s.createProducer(s.createQueue(queue)).send(s.createTextMessage(body));
        }
    }

    // ---------------------------------------------------------------- in one JVM

    @ParameterizedTest
    @CsvSource({"true", "false"})
    void sendAndInsert_commitTogether_orNeither(boolean commit) throws Exception {
        String body = "order-" + commit;
        javax.sql.XAConnection db2 = otherXa.getXAConnection();
        try (XASession session = xaConnection.createXASession()) {
            tm.begin();
            tm.getTransaction().enlistResource(session.getXAResource());
            tm.getTransaction().enlistResource(db2.getXAResource());
            session.createProducer(session.createQueue(queue)).send(session.createTextMessage(body));
            insertOrder(db2, body);
            if (commit) {
                tm.commit();
            } else {
                tm.rollback();
            }
        } finally {
            db2.close();
        }
        assertThat(orders(body)).isEqualTo(commit ? 1 : 0);
        assertThat(drain(queue, commit ? 10_000 : 1_000)).isEqualTo(commit ? List.of(body) : List.of());
        assertThat(factory.connectionFactory().broker().xa().list("shardq:")).isEmpty();
    }

    @Test
    void receive_inARolledBackTransaction_isRedelivered_andInACommittedOne_consumedOnce() throws Exception {
        sendPlain(queue, "pay");
        javax.sql.XAConnection db2 = otherXa.getXAConnection();
        try (XASession session = xaConnection.createXASession()) {
            MessageConsumer consumer = session.createConsumer(session.createQueue(queue));
            tm.begin();
            tm.getTransaction().enlistResource(session.getXAResource());
            tm.getTransaction().enlistResource(db2.getXAResource());
            Message first = consumer.receive(10_000);
            assertThat(((TextMessage) first).getText()).isEqualTo("pay");
            assertThat(first.getJMSRedelivered()).isFalse();
            insertOrder(db2, "paid");
            tm.rollback();
            assertThat(orders("paid")).isZero();

            tm.begin();
            tm.getTransaction().enlistResource(session.getXAResource());
            tm.getTransaction().enlistResource(db2.getXAResource());
            Message again = consumer.receive(10_000);
            assertThat(((TextMessage) again).getText()).isEqualTo("pay");
            assertThat(again.getJMSRedelivered()).isTrue();
            assertThat(again.getIntProperty("JMSXDeliveryCount")).isEqualTo(2);
            insertOrder(db2, "paid");
            tm.commit();
        } finally {
            db2.close();
        }
        assertThat(orders("paid")).isEqualTo(1);
        assertThat(drain(queue, 1_000)).isEmpty();
    }

    @Test
    void xaSession_refusesLocalCommitAndRollback_andWorkOutsideAGlobalTransaction() throws Exception {
        try (XASession session = xaConnection.createXASession()) {
            assertThat(session.getTransacted()).isTrue();
            assertThatThrownBy(session::commit)
                    .isInstanceOf(TransactionInProgressException.class)
                    .hasMessageContaining("XA session");
            assertThatThrownBy(session::rollback).isInstanceOf(TransactionInProgressException.class);
            var producer = session.createProducer(session.createQueue(queue));
            assertThatThrownBy(() -> producer.send(session.createTextMessage("loose")))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("not associated with a global transaction");
            assertThatThrownBy(() -> ((io.shardq.jms.ShardQSession) session)
                            .cache("any", io.shardq.broker.kv.Codec.utf8(), io.shardq.broker.kv.Codec.utf8()))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("cannot join an XA transaction");
            MessageConsumer consumer = session.createConsumer(session.createQueue(queue));
            assertThatThrownBy(() -> consumer.setMessageListener(m -> {}))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("XA session");
            assertThatThrownBy(() -> consumer.receive(100))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("not associated with a global transaction");
        }
        assertThat(drain(queue, 500)).isEmpty();
    }

    @Test
    void xaContext_sendsInTheGlobalTransaction_andRefusesLocalCommit() throws Exception {
        try (XAJMSContext context = factory.createXAContext()) {
            assertThatThrownBy(context::commit).isInstanceOf(TransactionInProgressRuntimeException.class);
            assertThatThrownBy(context::rollback).isInstanceOf(TransactionInProgressRuntimeException.class);
            tm.begin();
            tm.getTransaction().enlistResource(context.getXAResource());
            context.getContext().createProducer().send(context.createQueue(queue), "from-context");
            tm.commit();
        }
        assertThat(drain(queue, 10_000)).containsExactly("from-context");
    }

    /**
     * Driving the resource by hand: recover() lists ShardQ's prepared branch and not the
     * application's own prepared transaction in the same database, and another resource of the
     * instance commits it.
     */
    @Test
    void recover_listsOnlyShardQBranches_andAnyResourceCompletesThem() throws Exception {
        try (java.sql.Connection c = db.connect();
                Statement st = c.createStatement()) {
            c.setAutoCommit(false);
            st.execute("select 1");
            st.execute("prepare transaction 'application-own-gid'"); // the application's, not ShardQ's
            c.setAutoCommit(true);
        }
        Xid xid = new TestXid(77, "global-1".getBytes(), "branch-1".getBytes());
        try (XASession a = xaConnection.createXASession();
                XASession b = xaConnection.createXASession()) {
            XAResource ra = a.getXAResource();
            XAResource rb = b.getXAResource();
            assertThat(ra.isSameRM(rb)).isFalse();
            assertThat(ra.isSameRM(ra)).isTrue();
            assertThat(ra.setTransactionTimeout(30)).isFalse();
            ra.start(xid, XAResource.TMNOFLAGS);
            a.createProducer(a.createQueue(queue)).send(a.createTextMessage("by-hand"));
            ra.end(xid, XAResource.TMSUCCESS);
            assertThat(ra.prepare(xid)).isEqualTo(XAResource.XA_OK);
            // a second prepare of the same branch: it is no longer active on this resource
            assertThatThrownBy(() -> ra.prepare(xid))
                    .isInstanceOf(XAException.class)
                    .satisfies(e -> assertThat(((XAException) e).errorCode).isEqualTo(XAException.XAER_NOTA));

            Xid[] found = rb.recover(XAResource.TMSTARTRSCAN | XAResource.TMENDRSCAN);
            assertThat(found).hasSize(1);
            assertThat(found[0].getFormatId()).isEqualTo(77);
            assertThat(found[0].getGlobalTransactionId()).isEqualTo("global-1".getBytes());
            assertThat(found[0].getBranchQualifier()).isEqualTo("branch-1".getBytes());
            assertThat(rb.recover(XAResource.TMNOFLAGS)).isEmpty();

            rb.commit(found[0], false);
            assertThatThrownBy(() -> rb.commit(xid, false))
                    .isInstanceOf(XAException.class)
                    .satisfies(e -> assertThat(((XAException) e).errorCode).isEqualTo(XAException.XAER_NOTA));
            assertThatThrownBy(() -> rb.forget(xid)).isInstanceOf(XAException.class);
            // after the outcome, the first session works again
            ra.start(xid, XAResource.TMNOFLAGS);
            a.createProducer(a.createQueue(queue)).send(a.createTextMessage("one-phase"));
            ra.end(xid, XAResource.TMSUCCESS);
            ra.commit(xid, true);
        }
        assertThat(drain(queue, 10_000)).containsExactly("by-hand", "one-phase");
        try (java.sql.Connection c = db.connect();
                Statement st = c.createStatement();
                ResultSet rs =
                        st.executeQuery("select gid from pg_prepared_xacts where database = current_database()")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).isEqualTo("application-own-gid");
        }
    }

    @Test
    void createXAConnection_refused_whenTheServerHasNoPreparedTransactions() throws Exception {
        try (OwnPostgres pg = OwnPostgres.start("shardq-xa-off", 0);
                ShardQXAConnectionFactory off = new ShardQXAConnectionFactory(BrokerConfig.builder()
                        .isolated()
                        .set(BrokerProperty.JDBC_URL, pg.jdbcUrl())
                        .set(BrokerProperty.JDBC_USER, "postgres")
                        .build())) {
            assertThatThrownBy(off::createXAConnection)
                    .isInstanceOf(JMSException.class)
                    .hasMessageContaining("max_prepared_transactions = 0");
            // the same instance's ordinary connections work
            try (Connection c = off.connectionFactory().createConnection()) {
                assertThat(c.getMetaData().getJMSProviderName()).isNotBlank();
            }
        }
    }

    // ---------------------------------------------------------------- a crash between prepare and commit

    /**
     * A child JVM runs the global transaction and halts inside the two-phase commit; Narayana's
     * recovery in this JVM then completes it. {@code decided}: both resources prepared and the
     * decision logged, so recovery commits both (the row and the message exist exactly once, or
     * the received message is consumed exactly once). {@code undecided}: ShardQ prepared, the other
     * resource not, nothing logged, so recovery presumes abort (no row; a sent message never
     * appears, a received one is delivered again). While the transaction is prepared, a received
     * message is delivered to nobody.
     */
    @ParameterizedTest
    @CsvSource({"decided, send", "decided, receive", "undecided, send", "undecided, receive"})
    void crashBetweenPrepareAndCommit_recoveryCompletesIt_exactlyOnce(String point, String operation) throws Exception {
        boolean receive = operation.equals("receive");
        String body = receive ? "waiting" : "crash-" + point;
        if (receive) {
            sendPlain(crashQueue, body);
        }
        try (ChildJvm child = ChildJvm.start(
                XaCrashMain.class,
                point,
                operation,
                db.jdbcUrl(),
                other.jdbcUrl(),
                db.user(),
                db.password(),
                Narayana.objectStore().toString(),
                crashQueue)) {
            String halted = child.awaitLine("HALT", Duration.ofMinutes(2));
            assertThat(halted).startsWith("HALT at " + (point.equals("decided") ? "commit" : "prepare"));
        } // (the JVM halted; close() waits for it to be gone)
        List<String> prepared = factory.connectionFactory().broker().xa().list("shardq:");
        assertThat(prepared).hasSize(1);
        assertThat(orders(body)).isZero();
        if (receive) {
            // prepared and undecided: delivered to nobody (the dead child's lease expires meanwhile)
            assertThat(drain(crashQueue, 3_000)).isEmpty();
        }

        recover();

        boolean committed = point.equals("decided");
        assertThat(orders(body)).isEqualTo(committed ? 1 : 0);
        List<String> expected = committed == receive ? List.of() : List.of(body);
        assertThat(drain(crashQueue, expected.isEmpty() ? 3_000 : 10_000)).isEqualTo(expected);
        assertThat(drain(crashQueue, 500)).isEmpty();
    }

    /** Narayana's recovery scans, with both resources registered, until no ShardQ branch is prepared. */
    void recover() throws Exception {
        RecoveryManager manager = RecoveryManager.manager(RecoveryManager.DIRECT_MANAGEMENT);
        XARecoveryModule module = XARecoveryModule.getRegisteredXARecoveryModule();
        XAConnection recoveryConnection = factory.createXAConnection();
        XASession recoverySession = recoveryConnection.createXASession();
        javax.sql.XAConnection db2 = otherXa.getXAConnection();
        XAResourceRecoveryHelper helper = new XAResourceRecoveryHelper() {
            @Override
            public boolean initialise(String p) {
                return true;
            }

            @Override
            public XAResource[] getXAResources() {
                try {
                    return new XAResource[] {recoverySession.getXAResource(), db2.getXAResource()};
                } catch (java.sql.SQLException e) {
                    throw new java.lang.IllegalStateException(e);
                }
            }
        };
        module.addXAResourceRecoveryHelper(helper);
        try {
            Awaitility.await("recovery completes the prepared branches")
                    .atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        manager.scan();
                        return factory.connectionFactory()
                                        .broker()
                                        .xa()
                                        .list("shardq:")
                                        .isEmpty()
                                && preparedInOther() == 0;
                    });
        } finally {
            module.removeXAResourceRecoveryHelper(helper);
            db2.close();
            recoveryConnection.close();
        }
    }

    int preparedInOther() throws Exception {
        try (java.sql.Connection c = other.connect();
                Statement st = c.createStatement();
                ResultSet rs =
                        st.executeQuery("select count(*) from pg_prepared_xacts where database = current_database()")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    record TestXid(int formatId, byte[] gtrid, byte[] bqual) implements Xid {
        @Override
        public int getFormatId() {
            return formatId;
        }

        @Override
        public byte[] getGlobalTransactionId() {
            return gtrid;
        }

        @Override
        public byte[] getBranchQualifier() {
            return bqual;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Xid x
                    && x.getFormatId() == formatId
                    && Arrays.equals(x.getGlobalTransactionId(), gtrid)
                    && Arrays.equals(x.getBranchQualifier(), bqual);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(gtrid);
        }
    }
}
