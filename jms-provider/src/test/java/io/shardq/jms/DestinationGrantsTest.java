package io.shardq.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.Admin;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.Privilege;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import jakarta.jms.Connection;
import jakarta.jms.InvalidDestinationException;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSSecurityException;
import jakarta.jms.JMSSecurityRuntimeException;
import jakarta.jms.Queue;
import jakarta.jms.QueueBrowser;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collections;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Per-destination grants: a JMS user other than the factory's role may send, receive, browse or
 * administer a queue only with the grant, as PostgreSQL says; a psql session of that role reads
 * the messages only with browse. Roles are cluster-wide, so each test makes its own (random
 * name) and drops it.
 */
@PgTest
class DestinationGrantsTest {
    private static final String PASSWORD = "pw-" + UUID.randomUUID();

    TestDatabase db;
    String role;

    @BeforeEach
    void role(TestDatabase db) throws Exception {
        this.db = db;
        role = "grants_" + UUID.randomUUID().toString().substring(0, 8);
        try (var c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE ROLE \"" + role + "\" LOGIN PASSWORD '" + PASSWORD + "'");
        }
    }

    @AfterEach
    void dropRole() throws Exception {
        try (var c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("DROP OWNED BY \"" + role + "\"");
            s.execute("DROP ROLE \"" + role + "\"");
        }
    }

    private ShardQConnectionFactory factory(int grantCacheMs) {
        return new ShardQConnectionFactory(db.brokerConfig()
                .set(BrokerProperty.GRANT_CACHE_MS, grantCacheMs)
                .build());
    }

    private static void sendAsOwner(ShardQConnectionFactory f, String queue, int n) throws Exception {
        try (Connection c = f.createConnection()) {
            Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            var p = s.createProducer(s.createQueue(queue));
            for (int i = 0; i < n; i++) {
                p.send(s.createTextMessage("m" + i));
            }
        }
    }

    private java.sql.Connection psqlAsRole() throws SQLException {
        return DriverManager.getConnection(db.jdbcUrl(), role, PASSWORD);
    }

    @Test
    void everyOperation_withoutItsGrant_isRefusedNamingUserQueueAndPrivilege_andChangesNothing() throws Exception {
        try (ShardQConnectionFactory f = factory(10_000)) {
            sendAsOwner(f, "g.none", 3);
            Admin admin = f.broker().admin();
            try (Connection c = f.createConnection(role, PASSWORD)) {
                c.start();
                Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                Queue q = s.createQueue("g.none");
                assertThatThrownBy(() -> s.createProducer(q))
                        .isInstanceOf(JMSSecurityException.class)
                        .hasMessageContaining("\"" + role + "\"")
                        .hasMessageContaining("\"g.none\"")
                        .hasMessageContaining("send");
                var anonymous = s.createProducer(null);
                TextMessage m = s.createTextMessage("not allowed");
                assertThatThrownBy(() -> anonymous.send(q, m))
                        .isInstanceOf(JMSSecurityException.class)
                        .hasMessageContaining("send");
                assertThat(m.getJMSMessageID()).isNull(); // refused before the message was touched
                assertThatThrownBy(() -> s.createConsumer(q))
                        .isInstanceOf(JMSSecurityException.class)
                        .hasMessageContaining("receive");
                assertThatThrownBy(() -> s.createBrowser(q))
                        .isInstanceOf(JMSSecurityException.class)
                        .hasMessageContaining("browse");
            }
            try (JMSContext ctx = f.createContext(role, PASSWORD)) {
                Queue q = ctx.createQueue("g.none");
                assertThatThrownBy(() -> ctx.createProducer().send(q, "not allowed"))
                        .isInstanceOf(JMSSecurityRuntimeException.class)
                        .hasMessageContaining("send");
                assertThatThrownBy(() -> ctx.createConsumer(q))
                        .isInstanceOf(JMSSecurityRuntimeException.class)
                        .hasMessageContaining("receive");
                assertThatThrownBy(() -> ctx.createBrowser(q)).isInstanceOf(JMSSecurityRuntimeException.class);
            }
            try (var c = psqlAsRole();
                    Statement st = c.createStatement()) {
                // with no grant at all the role may not even name the schema: PostgreSQL says so
                assertThatThrownBy(() -> st.executeQuery("select shardq.purge_queue('g.none')"))
                        .isInstanceOf(SQLException.class)
                        .hasMessageContaining("permission denied for schema shardq");
                // with a grant on another queue it may, and the admin functions say what is missing
                admin.queues().create("g.other", io.shardq.broker.QueueOptions.DEFAULTS);
                admin.grants().grant("g.other", role, Privilege.BROWSE);
                assertThatThrownBy(() -> st.executeQuery("select shardq.purge_queue('g.none')"))
                        .isInstanceOf(SQLException.class)
                        .hasMessageContaining("role \"" + role + "\" may not purge destination \"g.none\"")
                        .hasMessageContaining("administer")
                        .satisfies(e ->
                                assertThat(((SQLException) e).getSQLState()).isEqualTo("42501"));
                assertThatThrownBy(() -> st.executeQuery("select shardq.grant('g.none', '" + role + "', 'receive')"))
                        .hasMessageContaining("may not grant privileges on destination \"g.none\"");
                assertThatThrownBy(() -> st.executeQuery("select shardq.stop_queue('g.none')"))
                        .hasMessageContaining("may not stop destination");
                assertThatThrownBy(() -> st.executeQuery("select shardq.drop_queue('g.none', force => true)"))
                        .hasMessageContaining("only the owner of the shardq schema");
            }
            // the engine's Admin API over a pool logged in as the role: the same refusal, as SECURITY
            var asRole = new org.postgresql.ds.PGSimpleDataSource();
            asRole.setURL(db.jdbcUrl());
            asRole.setUser(role);
            asRole.setPassword(PASSWORD);
            assertThatThrownBy(() -> new Admin(asRole).queues().purge("g.none"))
                    .isInstanceOf(io.shardq.broker.ShardQException.class)
                    .hasMessageContaining("may not purge destination \"g.none\"")
                    .extracting(e -> ((io.shardq.broker.ShardQException) e).kind())
                    .isEqualTo(io.shardq.broker.ErrorKind.SECURITY);
            assertThatThrownBy(() -> new Admin(asRole).grants().grant("g.none", role, Privilege.ADMINISTER))
                    .extracting(e -> ((io.shardq.broker.ShardQException) e).kind())
                    .isEqualTo(io.shardq.broker.ErrorKind.SECURITY);
            assertThat(admin.queues().backlog("g.none")).isEqualTo(3);
            assertThat(admin.require("g.none").enqueueEnabled()).isTrue();
            assertThat(admin.grants().list("g.none")).isEmpty();
        }
    }

    @Test
    void eachOperation_withItsGrant_works() throws Exception {
        try (ShardQConnectionFactory f = factory(10_000)) {
            sendAsOwner(f, "g.all", 2);
            Admin admin = f.broker().admin();
            for (Privilege p : Privilege.values()) {
                admin.grants().grant("g.all", role, p);
            }
            assertThat(admin.grants().list("g.all"))
                    .extracting(Admin.Grant::privilege)
                    .containsExactlyInAnyOrder(Privilege.values());
            try (Connection c = f.createConnection(role, PASSWORD)) {
                c.start();
                Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                Queue q = s.createQueue("g.all");
                s.createProducer(q).send(s.createTextMessage("m2"));
                QueueBrowser b = s.createBrowser(q);
                assertThat(Collections.list(b.getEnumeration())).hasSize(3);
                var consumer = s.createConsumer(q);
                assertThat(((TextMessage) consumer.receive(5000)).getText()).isEqualTo("m0");
            }
            try (JMSContext ctx = f.createContext(role, PASSWORD)) {
                Queue q = ctx.createQueue("g.all");
                ctx.createProducer().send(q, "m3");
                assertThat(ctx.createConsumer(q).receiveBody(String.class, 5000))
                        .isEqualTo("m1");
            }
            assertThat(admin.queues().backlog("g.all")).isEqualTo(2);
            try (var c = psqlAsRole();
                    Statement st = c.createStatement();
                    ResultSet rs = st.executeQuery("select shardq.purge_queue('g.all')")) {
                rs.next();
                assertThat(rs.getLong(1)).isEqualTo(2);
            }
            assertThat(admin.queues().backlog("g.all")).isZero();
        }
    }

    @Test
    void aRevoke_reachesAnOpenConnection_onceItsCacheTimeHasPassed() throws Exception {
        try (ShardQConnectionFactory f = factory(0)) { // 0: ask PostgreSQL every time
            f.broker().admin().queues().create("g.revoke", io.shardq.broker.QueueOptions.DEFAULTS);
            Admin admin = f.broker().admin();
            admin.grants().grant("g.revoke", role, Privilege.SEND);
            admin.grants().grant("g.revoke", role, Privilege.RECEIVE);
            try (Connection c = f.createConnection(role, PASSWORD)) {
                c.start();
                Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                Queue q = s.createQueue("g.revoke");
                var producer = s.createProducer(q);
                var consumer = s.createConsumer(q);
                producer.send(s.createTextMessage("before"));
                admin.grants().revoke("g.revoke", role, Privilege.SEND);
                assertThatThrownBy(() -> producer.send(s.createTextMessage("after")))
                        .isInstanceOf(JMSSecurityException.class)
                        .hasMessageContaining("send");
                assertThat(((TextMessage) consumer.receive(5000)).getText()).isEqualTo("before");
                admin.grants().revoke("g.revoke", role, Privilege.RECEIVE);
                assertThatThrownBy(() -> consumer.receiveNoWait()).isInstanceOf(JMSSecurityException.class);
            }
            assertThat(admin.grants().list("g.revoke")).isEmpty();
            assertThat(admin.queues().backlog("g.revoke")).isZero();
        }
    }

    @Test
    void aRevoke_stopsAListener_tellsTheExceptionListener_andAGrantResumesIt() throws Exception {
        try (ShardQConnectionFactory f = factory(0)) {
            Admin admin = f.broker().admin();
            admin.queues().create("g.listener", io.shardq.broker.QueueOptions.DEFAULTS);
            admin.grants().grant("g.listener", role, Privilege.RECEIVE);
            var received = new java.util.concurrent.LinkedBlockingQueue<String>();
            var refused = new java.util.concurrent.LinkedBlockingQueue<jakarta.jms.JMSException>();
            try (Connection c = f.createConnection(role, PASSWORD)) {
                c.setExceptionListener(refused::add);
                Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                s.createConsumer(s.createQueue("g.listener")).setMessageListener(m -> {
                    try {
                        received.add(((TextMessage) m).getText());
                    } catch (jakarta.jms.JMSException e) {
                        throw new IllegalStateException(e);
                    }
                });
                c.start();
                sendAsOwner(f, "g.listener", 1);
                assertThat(received.poll(10, java.util.concurrent.TimeUnit.SECONDS))
                        .isEqualTo("m0");

                admin.grants().revoke("g.listener", role, Privilege.RECEIVE);
                jakarta.jms.JMSException told = refused.poll(10, java.util.concurrent.TimeUnit.SECONDS);
                assertThat(told)
                        .isInstanceOf(JMSSecurityException.class)
                        .hasMessageContaining("may not receive from destination \"g.listener\"");
                // told only after a check that failed: the dispatcher takes nothing from now on
                sendAsOwner(f, "g.listener", 1);
                assertThat(admin.queues().backlog("g.listener")).isEqualTo(1);

                admin.grants().grant("g.listener", role, Privilege.RECEIVE);
                assertThat(received.poll(10, java.util.concurrent.TimeUnit.SECONDS))
                        .isEqualTo("m0");
                assertThat(refused).isEmpty(); // told once
                // acknowledged after onMessage returns: wait for it before closing (a close right
                // after onMessage can beat the acknowledgement, and the message is redelivered)
                org.awaitility.Awaitility.await()
                        .atMost(java.time.Duration.ofSeconds(10))
                        .until(() -> admin.queues().backlog("g.listener") == 0);
            }
        }
    }

    @Test
    void aUserOtherThanTheFactorysRole_neverCreatesAQueueByUsingIt() throws Exception {
        try (ShardQConnectionFactory f = factory(10_000);
                Connection c = f.createConnection(role, PASSWORD)) {
            Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            assertThatThrownBy(() -> s.createProducer(s.createQueue("g.missing")))
                    .isInstanceOf(InvalidDestinationException.class)
                    .hasMessageContaining("does not exist");
            assertThat(f.broker().admin().list()).noneMatch(d -> d.name().equals("g.missing"));
        }
    }

    @Test
    void aPlainJdbcSession_readsTheMessageTable_onlyWithBrowse_andNeverWritesIt() throws Exception {
        try (ShardQConnectionFactory f = factory(10_000)) {
            sendAsOwner(f, "g.sql", 3);
            Admin admin = f.broker().admin();
            String table = "shardq.m_" + admin.require("g.sql").id();
            try (var c = psqlAsRole();
                    Statement st = c.createStatement()) {
                assertThatThrownBy(() -> st.executeQuery("select count(*) from " + table))
                        .isInstanceOf(SQLException.class)
                        .hasMessageContaining("permission denied")
                        .satisfies(e ->
                                assertThat(((SQLException) e).getSQLState()).isEqualTo("42501"));
                admin.grants().grant("g.sql", role, Privilege.BROWSE);
                try (ResultSet rs = st.executeQuery("select count(*) from " + table)) {
                    rs.next();
                    assertThat(rs.getLong(1)).isEqualTo(3);
                }
                // the catalog and the leaves stay closed; raw writes are refused even with the grants
                assertThatThrownBy(() -> st.executeQuery("select * from shardq.destination"))
                        .hasMessageContaining("permission denied");
                assertThatThrownBy(() -> st.executeQuery("select * from " + table + "_0_0"))
                        .hasMessageContaining("permission denied");
                for (Privilege p : Privilege.values()) {
                    admin.grants().grant("g.sql", role, p);
                }
                String insert = "insert into " + table + " values (0, 0, 99, 0, 0, 0, 4, null, '\\x', '\\x')";
                if (db.citus()) {
                    // no statement trigger fires on Citus: row-level security keeps the role's
                    // writes out (docs/design/citus.md, "Who may write a message table")
                    assertThatThrownBy(() -> st.executeUpdate(insert)).hasMessageContaining("row-level security");
                    assertThat(st.executeUpdate("delete from " + table)).isZero();
                } else {
                    assertThatThrownBy(() -> st.executeUpdate(insert)).hasMessageContaining("is refused");
                    assertThatThrownBy(() -> st.executeUpdate("delete from " + table))
                            .hasMessageContaining("is refused");
                    assertThatThrownBy(() -> st.executeUpdate("truncate " + table))
                            .hasMessageContaining("is refused");
                }
                admin.grants().revoke("g.sql", role, Privilege.BROWSE);
                assertThatThrownBy(() -> st.executeQuery("select count(*) from " + table))
                        .hasMessageContaining("permission denied");
            }
            assertThat(admin.queues().backlog("g.sql")).isEqualTo(3);
        }
    }
}
