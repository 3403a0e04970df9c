package io.shardq.broker.sqlapi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.shard.BrokerSession;
import io.shardq.broker.shard.Delivery;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Sending from SQL ({@code shardq.send}, {@code shardq.send_batch}; R__shardq_sql_api.sql): what
 * the engine's consumers receive, the caller's transaction deciding (a trigger's outbox), the send
 * privilege, the order of one SQL session's messages, a delivery delay, and the refusals.
 */
@PgTest
class SqlSendTest {
    Broker broker;
    TestDatabase db;

    @BeforeEach
    void start(TestDatabase db) {
        this.db = db;
        broker = Broker.start(
                db.brokerConfig().set(BrokerProperty.HEARTBEAT_MS, 200).build());
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    @Test
    void aMessageSentFromSql_isReceivedWithItsBodyPropertiesAndHeaders() throws Exception {
        broker.admin().queues().create("sql.send", QueueOptions.DEFAULTS.withShards(2));
        String id;
        try (Connection c = db.connect();
                PreparedStatement ps = c.prepareStatement("SELECT shardq.send('sql.send', 'hello from SQL',"
                        + " properties => '{\"n\": 5, \"color\": \"red\", \"ratio\": 0.5, \"ok\": true, \"gone\": null}',"
                        + " correlation_id => 'c-1', type => 'greeting', reply_to => 'sql.send', priority => 7,"
                        + " time_to_live => interval '1 hour')");
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            id = rs.getString(1);
        }
        assertThat(id).startsWith("ID:sql-");
        try (BrokerSession consumer = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
            Delivery d = consumer.receive("sql.send", 10_000, false);
            assertThat(d).isNotNull();
            BrokerMessage m = d.message();
            assertThat(Messages.body(m)).isEqualTo("hello from SQL");
            assertThat(m.bodyType()).isEqualTo(BrokerMessage.BodyType.TEXT);
            assertThat(m.messageId()).isEqualTo(id);
            assertThat(m.properties()).isEqualTo(Map.of("n", 5L, "color", "red", "ratio", 0.5, "ok", true));
            assertThat(m.correlationId()).isEqualTo("c-1");
            assertThat(m.type()).isEqualTo("greeting");
            assertThat(m.replyTo()).isEqualTo("queue:sql.send");
            assertThat(m.priority()).isEqualTo(7);
            assertThat(m.persistent()).isTrue();
            assertThat(m.expiration()).isGreaterThan(m.timestamp());
        }
    }

    @Test
    void bytesAndJsonBodies_andABatch_arriveInTheOrderOneSqlSessionSentThem() throws Exception {
        broker.admin()
                .queues()
                .create("sql.batch", QueueOptions.DEFAULTS.withShards(4).withSliceSize(16));
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("SELECT shardq.send('sql.batch', '\\x0102ff'::bytea)");
            s.execute("SELECT shardq.send('sql.batch', '{\"order\": 42}'::jsonb)");
            // 40 messages cross two 16-message slices
            s.execute("SELECT shardq.send_batch('sql.batch', ARRAY(SELECT 'b' || i FROM generate_series(1, 40) i),"
                    + " ARRAY(SELECT jsonb_build_object('i', i) FROM generate_series(1, 40) i))");
            c.commit();
        }
        List<String> got = new ArrayList<>();
        try (BrokerSession consumer = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
            BrokerMessage bytes = consumer.receive("sql.batch", 10_000, false).message();
            assertThat(bytes.bodyType()).isEqualTo(BrokerMessage.BodyType.BYTES);
            assertThat(bytes.body()).containsExactly(1, 2, 0xff);
            BrokerMessage json = consumer.receive("sql.batch", 10_000, false).message();
            assertThat(json.bodyType()).isEqualTo(BrokerMessage.BodyType.TEXT);
            assertThat(new String(json.body(), StandardCharsets.UTF_8)).isEqualTo("{\"order\": 42}");
            for (int i = 1; i <= 40; i++) {
                BrokerMessage m = consumer.receive("sql.batch", 10_000, false).message();
                got.add(Messages.body(m) + "/" + m.properties().get("i"));
            }
            assertThat(consumer.receive("sql.batch", 200, false)).isNull();
        }
        List<String> expected = new ArrayList<>();
        for (int i = 1; i <= 40; i++) {
            expected.add("b" + i + "/" + (long) i);
        }
        assertThat(got).containsExactlyElementsOf(expected);
    }

    @Test
    void twoSqlSessions_sendToShardsOfTheirOwn_andKeepThemAfterARollback() throws Exception {
        broker.admin().queues().create("sql.owned", QueueOptions.DEFAULTS.withShards(2));
        int id = broker.admin().require("sql.owned").id();
        try (Connection a = db.connect();
                Connection b = db.connect();
                Statement sa = a.createStatement();
                Statement sb = b.createStatement()) {
            sa.execute("SELECT shardq.send('sql.owned', 'a1')");
            sb.execute("SELECT shardq.send('sql.owned', 'b1')");
            a.setAutoCommit(false);
            sa.execute("SELECT shardq.send('sql.owned', 'a-rolled-back')");
            a.rollback(); // forgets the session's choice; its advisory lock finds the same shard again
            a.setAutoCommit(true);
            sa.execute("SELECT shardq.send('sql.owned', 'a2')");
            sb.execute("SELECT shardq.send('sql.owned', 'b2')");
        }
        Map<String, Integer> shardOf = new java.util.HashMap<>();
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT convert_from(body, 'UTF8'), shard_no FROM shardq.m_" + id
                        + " ORDER BY shard_no, seq")) {
            while (rs.next()) {
                shardOf.put(rs.getString(1), rs.getInt(2));
            }
        }
        assertThat(shardOf).containsOnlyKeys("a1", "a2", "b1", "b2");
        assertThat(shardOf.get("a2")).isEqualTo(shardOf.get("a1"));
        assertThat(shardOf.get("b2")).isEqualTo(shardOf.get("b1"));
        assertThat(shardOf.get("a1")).isNotEqualTo(shardOf.get("b1"));
    }

    @Test
    void aTriggersOutbox_sendsExactlyWhenTheRowCommits() throws Exception {
        broker.admin().queues().create("sql.outbox", QueueOptions.DEFAULTS.withShards(2));
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE app_order (id integer PRIMARY KEY, total numeric NOT NULL)");
            s.execute("CREATE FUNCTION app_order_outbox() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                    + " PERFORM shardq.send('sql.outbox', 'order ' || NEW.id,"
                    + " properties => jsonb_build_object('total', NEW.total)); RETURN NEW; END $$");
            s.execute("CREATE TRIGGER app_order_outbox AFTER INSERT ON app_order FOR EACH ROW"
                    + " EXECUTE FUNCTION app_order_outbox()");
            c.setAutoCommit(false);
            s.execute("INSERT INTO app_order VALUES (1, 10.5)");
            c.rollback();
            s.execute("INSERT INTO app_order VALUES (2, 20.25)");
            c.commit();
            s.execute("INSERT INTO app_order VALUES (3, 1)");
            c.rollback();
        }
        try (BrokerSession consumer = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
            BrokerMessage m = consumer.receive("sql.outbox", 10_000, false).message();
            assertThat(Messages.body(m)).isEqualTo("order 2");
            assertThat(m.properties()).containsEntry("total", 20.25);
            assertThat(consumer.receive("sql.outbox", 300, false)).isNull();
        }
        assertThat(broker.admin().queues().backlog("sql.outbox")).isZero();
    }

    @Test
    void aRoleWithoutTheSendPrivilege_isRefusedNamingIt_andSendsOnceGranted() throws Exception {
        broker.admin().queues().create("sql.grants", QueueOptions.DEFAULTS.withShards(1));
        String role = "sender_" + UUID.randomUUID().toString().substring(0, 8);
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE ROLE \"" + role + "\"");
            s.execute("GRANT USAGE ON SCHEMA shardq TO \"" + role + "\"");
            s.execute("SET ROLE \"" + role + "\"");
            assertThatThrownBy(() -> s.execute("SELECT shardq.send('sql.grants', 'no')"))
                    .isInstanceOfSatisfying(
                            SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("42501"))
                    .hasMessageContaining("role \"" + role + "\" may not send to queue \"sql.grants\"")
                    .hasMessageContaining("needs the send privilege");
            s.execute("RESET ROLE");
            s.execute("SELECT shardq.grant('sql.grants', '" + role + "', 'send')");
            s.execute("SET ROLE \"" + role + "\"");
            s.execute("SELECT shardq.send('sql.grants', 'yes')");
            s.execute("RESET ROLE");
            s.execute("DROP OWNED BY \"" + role + "\"");
            s.execute("DROP ROLE \"" + role + "\"");
        }
        try (BrokerSession consumer = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
            assertThat(Messages.body(
                            consumer.receive("sql.grants", 10_000, false).message()))
                    .isEqualTo("yes");
            assertThat(consumer.receive("sql.grants", 200, false)).isNull();
        }
    }

    @Test
    void aDelayedMessage_waitsForItsTime() throws Exception {
        broker.admin().queues().create("sql.delay", QueueOptions.DEFAULTS.withShards(1));
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute(
                    "SELECT shardq.send('sql.delay', 'later', properties => '{\"k\": 1}', delay => interval '1 second')");
        }
        try (BrokerSession consumer = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
            BrokerMessage m = consumer.receive("sql.delay", 30_000, false).message();
            assertThat(Messages.body(m)).isEqualTo("later");
            assertThat(m.properties()).containsEntry("k", 1L);
            assertThat(m.deliverAt()).isGreaterThanOrEqualTo(m.timestamp() + 1000);
        }
    }

    @Test
    void aPublishFromSql_reachesTheSubscriptionsWhoseSelectorsSelectIt_storedOnce() throws Exception {
        broker.admin().topics().create("sql.topic", QueueOptions.DEFAULTS.withShards(2));
        broker.admin().topics().addSubscriber("sql.topic", "all", null);
        broker.admin().topics().addSubscriber("sql.topic", "red", "color = 'red'");
        broker.admin().topics().addSubscriber("sql.topic", "big", "n > 10 AND JMSPriority = 4");
        broker.admin().topics().addSubscriber("sql.topic", "typed", "JMSType = 'x' AND JMSMessageID LIKE 'ID:sql-%'");
        broker.admin().topics().addSubscriber("sql.topic", "none", "color = 'green'");
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("SELECT shardq.send('sql.topic', 'r1', properties => '{\"color\": \"red\", \"n\": 1}')");
            s.execute(
                    "SELECT shardq.send_batch('sql.topic', ARRAY['b20', 'r30'],"
                            + " ARRAY['{\"color\": \"blue\", \"n\": 20}', '{\"color\": \"red\", \"n\": 30}']::jsonb[], type => 'x')");
            s.execute(
                    "SELECT shardq.send('sql.topic', 'r40', properties => '{\"color\": \"red\", \"n\": 40}', priority => 5)");
        }
        Map<String, List<String>> expected = Map.of(
                "all", List.of("r1", "b20", "r30", "r40"),
                "red", List.of("r1", "r30", "r40"),
                "big", List.of("b20", "r30"),
                "typed", List.of("b20", "r30"),
                "none", List.of());
        for (Map.Entry<String, List<String>> e : expected.entrySet()) {
            try (BrokerSession session = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
                var consumer = session.subscribe(
                        "sql.topic",
                        new io.shardq.broker.SubscriptionSpec(
                                io.shardq.broker.SubscriptionSpec.Kind.SHARED_DURABLE,
                                e.getKey(),
                                null,
                                null,
                                false,
                                "conn"));
                List<String> got = new ArrayList<>();
                for (int i = 0; i < e.getValue().size(); i++) {
                    Delivery d = consumer.receive(10_000, false);
                    assertThat(d).as("%s message %s", e.getKey(), i).isNotNull();
                    got.add(Messages.body(d.message()));
                }
                assertThat(consumer.receive(200, false)).as(e.getKey()).isNull();
                // r40 (priority 5) may come first: priority ordering; the order of one session is the batch test's
                assertThat(got).as(e.getKey()).containsExactlyInAnyOrderElementsOf(e.getValue());
            }
        }
        // stored once each, whatever the number of subscriptions
        assertThat(rows("sql.topic")).isEqualTo(4);
    }

    @Test
    void aPublishNoSubscriptionWants_isNotStored() throws Exception {
        broker.admin().topics().create("sql.unwanted", QueueOptions.DEFAULTS.withShards(1));
        broker.admin().topics().addSubscriber("sql.unwanted", "eu", "region = 'EU'");
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("SELECT shardq.send('sql.unwanted', 'us', properties => '{\"region\": \"US\"}')");
            s.execute("SELECT shardq.send('sql.unwanted', 'none')");
        }
        assertThat(rows("sql.unwanted")).isZero();
    }

    private long rows(String destination) throws SQLException {
        int id = broker.admin().require(destination).id();
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM shardq.m_" + id)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void badInput_isRefusedWithAClearError_andNothingIsSent() throws Exception {
        broker.admin().queues().create("sql.bad", QueueOptions.DEFAULTS.withShards(1));
        Object[][] cases = {
            {"SELECT shardq.send('sql.missing', 'x')", "42704", "destination \"sql.missing\" does not exist"},
            {"SELECT shardq.send('sql.bad', 'x', properties => '[1]')", "22023", "must be a JSON object"},
            {"SELECT shardq.send('sql.bad', 'x', properties => '{\"a\": {\"b\": 1}}')", "22023", "is a JSON object"},
            {
                "SELECT shardq.send('sql.bad', 'x', properties => '{\"1a\": 1}')",
                "22023",
                "property name \"1a\" is invalid"
            },
            {
                "SELECT shardq.send('sql.bad', 'x', properties => '{\"JMSType\": \"t\"}')",
                "22023",
                "names starting with JMS"
            },
            {
                "SELECT shardq.send('sql.bad', 'x', properties => '{\"n\": 99999999999999999999}')",
                "22003",
                "beyond a long"
            },
            {"SELECT shardq.send('sql.bad', 'x', priority => 10)", "22023", "priority 10 is invalid"},
            {"SELECT shardq.send('sql.bad', 'x', time_to_live => interval '0')", "22023", "time to live"},
            {"SELECT shardq.send('sql.bad', NULL::text)", "22004", "body 1 is NULL"},
            {"SELECT shardq.send('bad name!', 'x')", "22023", "destination name \"bad name!\" is invalid"}
        };
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            for (Object[] k : cases) {
                assertThatThrownBy(() -> s.execute((String) k[0]))
                        .as((String) k[0])
                        .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState())
                                .isEqualTo(k[1]))
                        .hasMessageContaining((String) k[2]);
            }
            s.execute("SELECT shardq.stop_queue('sql.bad', enqueue => true, dequeue => false)");
            assertThatThrownBy(() -> s.execute("SELECT shardq.send('sql.bad', 'x')"))
                    .isInstanceOfSatisfying(
                            SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("55000"))
                    .hasMessageContaining("stopped for sending");
        }
        assertThat(broker.admin().queues().backlog("sql.bad")).isZero();
    }

    @Test
    void aRawWriteToAMessageTable_byARoleGrantedSendAndReceive_changesNoMessage() throws Exception {
        broker.admin().queues().create("sql.raw", QueueOptions.DEFAULTS.withShards(1));
        int id = broker.admin().require("sql.raw").id();
        String role = "sqlraw_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        String insert = "INSERT INTO shardq.m_" + id + " SELECT * FROM shardq.m_" + id;
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("SELECT shardq.send('sql.raw', 'kept')");
            s.execute("CREATE ROLE " + role + " LOGIN"); // Citus reaches the workers as the role
            s.execute("SELECT shardq.grant('sql.raw', '" + role + "', 'send')");
            s.execute("SELECT shardq.grant('sql.raw', '" + role + "', 'receive')");
            boolean citus;
            try (ResultSet rs = s.executeQuery("SELECT shardq.on_citus()")) {
                rs.next();
                citus = rs.getBoolean(1);
            }
            s.execute("SET ROLE " + role);
            try {
                if (citus) {
                    // no statement trigger fires on Citus: row-level security lets the role write no row
                    assertThat(s.executeUpdate("DELETE FROM shardq.m_" + id)).isZero();
                    assertThatThrownBy(() -> s.execute(insert))
                            .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState())
                                    .isEqualTo("42501"))
                            .hasMessageContaining("row-level security");
                } else {
                    for (String write : List.of("DELETE FROM shardq.m_" + id, insert)) {
                        assertThatThrownBy(() -> s.execute(write))
                                .as(write)
                                .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState())
                                        .isEqualTo("42501"))
                                .hasMessageContaining("sent with JMS or shardq.send");
                    }
                }
            } finally {
                s.execute("RESET ROLE");
            }
            if (!citus) { // the trigger refuses the table's owner too
                assertThatThrownBy(() -> s.execute("DELETE FROM shardq.m_" + id))
                        .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState())
                                .isEqualTo("42501"))
                        .hasMessageContaining("sent with JMS or shardq.send");
            }
            s.execute("DROP OWNED BY " + role);
            s.execute("DROP ROLE " + role);
        }
        assertThat(rows("sql.raw")).isEqualTo(1);
        assertThat(broker.admin().queues().backlog("sql.raw")).isEqualTo(1);
    }
}
