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
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Receiving from SQL ({@code shardq.receive}, {@code shardq.receive_subscription};
 * R__shardq_sql_receive.sql): what a SQL consumer gets of a message the JVM sent, the caller's
 * transaction deciding (a rollback gives back and raises the delivery count, for SQL and JVM
 * consumers alike, until the dead-letter queue), a topic's subscriptions, a selector, a wait, the
 * receive privilege and the refusals.
 */
@PgTest
class SqlReceiveTest {
    Broker broker;
    TestDatabase db;

    @BeforeEach
    void start(TestDatabase db) {
        this.db = db;
        broker = Broker.start(db.brokerConfig()
                .set(BrokerProperty.HEARTBEAT_MS, 200)
                .set(BrokerProperty.LEASE_TTL_MS, 2000)
                .build());
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    /** One received row: the columns the tests look at. */
    record Row(
            String id,
            String bodyType,
            String text,
            byte[] bytes,
            String properties,
            String correlationId,
            String type,
            String replyTo,
            int priority,
            int deliveryCount) {}

    static List<Row> receive(Connection c, String sql) throws SQLException {
        List<Row> rows = new ArrayList<>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT message_id, body_type, body_text, body_bytes, properties::text,"
                        + " correlation_id, type, reply_to, priority, delivery_count FROM " + sql)) {
            while (rs.next()) {
                rows.add(new Row(
                        rs.getString(1),
                        rs.getString(2),
                        rs.getString(3),
                        rs.getBytes(4),
                        rs.getString(5),
                        rs.getString(6),
                        rs.getString(7),
                        rs.getString(8),
                        rs.getInt(9),
                        rs.getInt(10)));
            }
        }
        return rows;
    }

    static List<String> texts(List<Row> rows) {
        return rows.stream().map(Row::text).toList();
    }

    @Test
    void whatTheJvmSent_isReceivedWithItsHeadersAndProperties_andConsumedAtCommit() throws Exception {
        broker.admin().queues().create("r.basic", QueueOptions.DEFAULTS.withShards(1));
        Map<String, Object> props = new LinkedHashMap<>();
        props.put("n", 7);
        props.put("big", 1L << 40);
        props.put("ratio", 0.25);
        props.put("ok", true);
        props.put("color", "red");
        BrokerMessage text = new BrokerMessage(
                "ID:jvm-1",
                BrokerMessage.BodyType.TEXT,
                System.currentTimeMillis(),
                "corr-1",
                "order",
                "queue:r.replies",
                6,
                0,
                0,
                true,
                props,
                "héllo".getBytes(StandardCharsets.UTF_8));
        try (BrokerSession p = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            p.send("r.basic", text);
            p.send("r.basic", Messages.bytes("ID:jvm-2", Map.of(), new byte[] {0, 1, (byte) 0xFF}));
            p.commit();
        }
        try (Connection c = db.connect()) {
            c.setAutoCommit(false);
            List<Row> rows = receive(c, "shardq.receive('r.basic', 10)");
            assertThat(rows).hasSize(2);
            Row t = rows.get(0);
            assertThat(t.id()).isEqualTo("ID:jvm-1");
            assertThat(t.bodyType()).isEqualTo("text");
            assertThat(t.text()).isEqualTo("héllo");
            assertThat(t.bytes()).isNull();
            assertThat(t.properties())
                    .isEqualTo("{\"n\": 7, \"ok\": true, \"big\": 1099511627776, \"color\": \"red\", \"ratio\": 0.25}");
            assertThat(t.correlationId()).isEqualTo("corr-1");
            assertThat(t.type()).isEqualTo("order");
            assertThat(t.replyTo()).isEqualTo("queue:r.replies");
            assertThat(t.priority()).isEqualTo(6);
            assertThat(t.deliveryCount()).isEqualTo(1);
            Row b = rows.get(1);
            assertThat(b.id()).isEqualTo("ID:jvm-2");
            assertThat(b.bodyType()).isEqualTo("bytes");
            assertThat(b.bytes()).containsExactly(0, 1, 0xFF);
            assertThat(b.properties()).isNull();
            // taken in this transaction: a second receive in it does not get them again
            assertThat(receive(c, "shardq.receive('r.basic', 10)")).isEmpty();
            c.commit();
        }
        assertThat(broker.admin().queues().backlog("r.basic")).isZero();
        try (BrokerSession consumer = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
            assertThat(consumer.receive("r.basic", 200, false)).isNull();
        }
    }

    @Test
    void aRollback_raisesTheDeliveryCount_forSqlAndJvmConsumersAlike_untilTheDeadLetterQueue() throws Exception {
        broker.admin()
                .queues()
                .create("r.attempts", QueueOptions.DEFAULTS.withShards(1).withMaxAttempts(4));
        broker.admin().queues().create("r.other", QueueOptions.DEFAULTS.withShards(1));
        try (BrokerSession p = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
            p.send("r.attempts", Messages.text("poison"));
        }
        try (Connection a = db.connect()) {
            a.setAutoCommit(false);
            assertThat(waitFor(a, "shardq.receive('r.attempts')"))
                    .extracting(Row::deliveryCount)
                    .containsExactly(1);
            a.rollback();
            assertThat(receive(a, "shardq.receive('r.attempts')"))
                    .extracting(Row::deliveryCount)
                    .containsExactly(2);
            a.rollback();
            // a failed delivery is counted by the session's next receive (of any queue), in its
            // transaction: once one commits, every consumer sees the count
            assertThat(receive(a, "shardq.receive('r.other')")).isEmpty();
            a.commit();
        }
        try (BrokerSession jvm = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            Delivery d = jvm.receive("r.attempts", 30_000, false);
            assertThat(d).isNotNull();
            assertThat(d.deliveryCount()).isEqualTo(3);
            jvm.rollback();
        }
        broker.close(); // its leases are given back: the SQL consumer takes the shard
        try (Connection b = db.connect()) {
            b.setAutoCommit(false);
            assertThat(waitFor(b, "shardq.receive('r.attempts')"))
                    .extracting(Row::text, Row::deliveryCount)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("poison", 4));
            b.rollback();
            // out of attempts: moved to the dead-letter queue, with why and where from
            assertThat(receive(b, "shardq.receive('r.attempts')")).isEmpty();
            b.commit();
        }
        broker = Broker.start(
                db.brokerConfig().set(BrokerProperty.HEARTBEAT_MS, 200).build());
        try (BrokerSession jvm = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
            Delivery d = jvm.receive("r.attempts.DLQ", 30_000, false);
            assertThat(d).isNotNull();
            assertThat(Messages.body(d.message())).isEqualTo("poison");
            assertThat(d.message().properties())
                    .containsEntry(
                            BrokerSession.DEAD_LETTER_REASON, "delivery failed 4 times; r.attempts allows 4 attempts")
                    .containsEntry(BrokerSession.ORIGINAL_DESTINATION, "r.attempts");
            assertThat(jvm.receive("r.attempts", 200, false)).isNull();
        }
    }

    /** Receives until a row comes (the JVM's leases may take a heartbeat to be given back). */
    private static List<Row> waitFor(Connection c, String sql) throws SQLException {
        // a free lease is taken at once; one still held (a JVM's, until its release commits) at a later receive
        List<Row> rows = receive(c, sql);
        for (int i = 0; rows.isEmpty() && i < 100; i++) {
            c.rollback();
            rows = receive(c, sql.replace(")", ", wait => '1 second')"));
        }
        return rows;
    }

    @Test
    void aTopicsSubscriptions_eachReceiveWhatTheyWant() throws Exception {
        broker.admin().topics().create("r.topic", QueueOptions.DEFAULTS.withShards(2));
        broker.admin().topics().addSubscriber("r.topic", "all", null);
        broker.admin().topics().addSubscriber("r.topic", "red", "color = 'red'");
        try (BrokerSession p = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            for (String color : List.of("red", "blue", "red", "green")) {
                p.send("r.topic", Messages.text(color, Map.of("color", color)));
            }
            p.commit();
        }
        try (Connection c = db.connect()) {
            c.setAutoCommit(false);
            assertThat(texts(receive(c, "shardq.receive_subscription('r.topic', 'all', 10)")))
                    .containsExactlyInAnyOrder("red", "blue", "red", "green");
            assertThat(texts(receive(c, "shardq.receive_subscription('r.topic', 'red', 10)")))
                    .containsExactly("red", "red");
            c.commit();
            assertThat(receive(c, "shardq.receive_subscription('r.topic', 'all', 10)"))
                    .isEmpty();
            assertThat(receive(c, "shardq.receive_subscription('r.topic', 'red', 10)"))
                    .isEmpty();
            c.commit();
        }
    }

    @Test
    void aSelector_takesWhatItSelects_andLeavesTheRestForOthers() throws Exception {
        broker.admin().queues().create("r.selector", QueueOptions.DEFAULTS.withShards(1));
        try (Connection c = db.connect()) {
            try (Statement s = c.createStatement()) {
                s.execute("SELECT shardq.send_batch('r.selector', ARRAY['a1', 'b2', 'a3', 'b4'],"
                        + " ARRAY['{\"k\": \"a\", \"n\": 1}', '{\"k\": \"b\", \"n\": 2}', '{\"k\": \"a\", \"n\": 3}',"
                        + " '{\"k\": \"b\", \"n\": 4}']::jsonb[])");
            }
            c.setAutoCommit(false);
            assertThat(texts(receive(c, "shardq.receive('r.selector', 10, selector => 'k = ''b'' OR n > 2')")))
                    .containsExactly("b2", "a3", "b4");
            c.commit();
            assertThat(texts(receive(c, "shardq.receive('r.selector', 10)"))).containsExactly("a1");
            c.commit();
        }
        assertThat(broker.admin().queues().backlog("r.selector")).isZero();
    }

    @Test
    void aReceiveThatWaits_getsAMessageSentWhileItWaits() throws Exception {
        broker.admin().queues().create("r.wait", QueueOptions.DEFAULTS.withShards(2));
        try (Connection c = db.connect()) {
            c.setAutoCommit(false);
            CompletableFuture<List<Row>> waiting = CompletableFuture.supplyAsync(() -> {
                try {
                    return receive(c, "shardq.receive('r.wait', 5, wait => '2 minutes')");
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            try (Connection sender = db.connect();
                    Statement s = sender.createStatement()) {
                s.execute("SELECT shardq.send('r.wait', 'late')");
            }
            assertThat(texts(waiting.get(3, TimeUnit.MINUTES))).containsExactly("late");
            c.commit();
        }
    }

    @Test
    void aRoleWithOnlySend_mayNotReceive_andReceivesOnceGranted() throws Exception {
        broker.admin().queues().create("r.grants", QueueOptions.DEFAULTS.withShards(1));
        String role = "receiver_" + UUID.randomUUID().toString().substring(0, 8);
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE ROLE \"" + role + "\"");
            s.execute("GRANT USAGE ON SCHEMA shardq TO \"" + role + "\"");
            s.execute("SELECT shardq.grant('r.grants', '" + role + "', 'send')");
            s.execute("SET ROLE \"" + role + "\"");
            s.execute("SELECT shardq.send('r.grants', 'mine')");
            assertThatThrownBy(() -> s.execute("SELECT * FROM shardq.receive('r.grants')"))
                    .isInstanceOfSatisfying(
                            SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("42501"))
                    .hasMessageContaining("role \"" + role + "\" may not receive from queue \"r.grants\"")
                    .hasMessageContaining("needs the receive privilege");
            s.execute("RESET ROLE");
            s.execute("SELECT shardq.grant('r.grants', '" + role + "', 'receive')");
            s.execute("SET ROLE \"" + role + "\"");
            assertThat(texts(receive(c, "shardq.receive('r.grants')"))).containsExactly("mine");
            s.execute("RESET ROLE");
            s.execute("DROP OWNED BY \"" + role + "\"");
            s.execute("DROP ROLE \"" + role + "\"");
        }
    }

    @Test
    void badInput_isRefusedWithAClearError_andNothingIsTaken() throws Exception {
        broker.admin().queues().create("r.bad", QueueOptions.DEFAULTS.withShards(1));
        broker.admin().topics().create("r.badtopic", QueueOptions.DEFAULTS.withShards(1));
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("SELECT shardq.send('r.bad', 'kept')");
        }
        Object[][] cases = {
            {"shardq.receive('r.missing')", "42704", "queue \"r.missing\" does not exist"},
            {"shardq.receive('r.badtopic')", "42809", "\"r.badtopic\" is a topic, not a queue"},
            {"shardq.receive_subscription('r.badtopic', 'nobody')", "42704", "subscription \"nobody\" of topic"},
            {"shardq.receive('r.bad', 0)", "22023", "max_messages 0 is invalid"},
            {"shardq.receive('r.bad', 1, wait => '-1 second')", "22023", "wait -00:00:01 is invalid"},
            {
                "shardq.receive('r.bad', 1, selector => 'k = ')",
                "42601",
                "selector \"k = \" is invalid: the selector ends too early"
            },
        };
        try (Connection c = db.connect()) {
            for (Object[] x : cases) {
                assertThatThrownBy(() -> receive(c, (String) x[0]))
                        .as((String) x[0])
                        .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState())
                                .isEqualTo(x[1]))
                        .hasMessageContaining((String) x[2]);
            }
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
            }
            assertThatThrownBy(() -> receive(c, "shardq.receive('r.bad', 1, wait => '1 second')"))
                    .isInstanceOfSatisfying(
                            SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("0A000"))
                    .hasMessageContaining("needs READ COMMITTED");
            c.rollback();
        }
        broker.admin().queues().stop("r.bad", false, true);
        try (Connection c = db.connect()) {
            assertThatThrownBy(() -> receive(c, "shardq.receive('r.bad')"))
                    .isInstanceOfSatisfying(
                            SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("55000"))
                    .hasMessageContaining("stopped for receiving");
        }
        broker.admin().queues().start("r.bad", false, true);
        try (Connection c = db.connect()) {
            assertThat(texts(receive(c, "shardq.receive('r.bad')"))).containsExactly("kept");
        }
    }
}
