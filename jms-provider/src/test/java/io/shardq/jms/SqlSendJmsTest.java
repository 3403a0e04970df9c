package io.shardq.jms;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.BrokerProperty;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import jakarta.jms.BytesMessage;
import jakarta.jms.Connection;
import jakarta.jms.DeliveryMode;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.sql.Statement;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A message sent from SQL ({@code shardq.send}) as a JMS consumer sees it: a TextMessage or a
 * BytesMessage, its properties with JMS types (a JSON integer a long, a fraction a double), the
 * headers given, and selectable by a JMS selector.
 */
@PgTest
class SqlSendJmsTest {
    TestDatabase db;
    ShardQConnectionFactory factory;
    Connection connection;

    @BeforeEach
    void open(TestDatabase db) throws Exception {
        this.db = db;
        factory = new ShardQConnectionFactory(
                db.brokerConfig().set(BrokerProperty.HEARTBEAT_MS, 200).build());
        connection = factory.createConnection();
        connection.start();
    }

    @AfterEach
    void close() throws Exception {
        connection.close();
        factory.close();
    }

    @Test
    void aJmsConsumerReceivesWhatSqlSent() throws Exception {
        try (java.sql.Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("SELECT shardq.create_queue('jms.fromsql', shards => 2)");
            s.execute("SELECT shardq.create_queue('jms.fromsql.replies', shards => 1)");
            s.execute("SELECT shardq.send('jms.fromsql', 'skip me', properties => '{\"color\": \"blue\", \"n\": 9}')");
            s.execute(
                    "SELECT shardq.send('jms.fromsql', 'hello',"
                            + " properties => '{\"color\": \"red\", \"n\": 5, \"ratio\": 0.5, \"ok\": true}',"
                            + " correlation_id => 'c-7', type => 'greeting', reply_to => 'jms.fromsql.replies', priority => 6)");
            s.execute(
                    "SELECT shardq.send('jms.fromsql', '\\xcafe'::bytea, properties => '{\"color\": \"red\", \"n\": 4}')");
        }
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue queue = session.createQueue("jms.fromsql");
        try (MessageConsumer consumer = session.createConsumer(queue, "color = 'red' AND n > 3")) {
            Message first = consumer.receive(10_000);
            assertThat(first).isInstanceOf(TextMessage.class);
            TextMessage text = (TextMessage) first;
            assertThat(text.getText()).isEqualTo("hello");
            assertThat(text.getObjectProperty("n")).isEqualTo(5L);
            assertThat(text.getLongProperty("n")).isEqualTo(5L);
            // a JSON integer is a long, and JMS does not narrow a long to an int
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> text.getIntProperty("n"))
                    .isInstanceOf(jakarta.jms.MessageFormatException.class);
            assertThat(text.getDoubleProperty("ratio")).isEqualTo(0.5);
            assertThat(text.getBooleanProperty("ok")).isTrue();
            assertThat(text.getStringProperty("color")).isEqualTo("red");
            assertThat(text.getJMSCorrelationID()).isEqualTo("c-7");
            assertThat(text.getJMSType()).isEqualTo("greeting");
            assertThat(((Queue) text.getJMSReplyTo()).getQueueName()).isEqualTo("jms.fromsql.replies");
            assertThat(text.getJMSPriority()).isEqualTo(6);
            assertThat(text.getJMSDeliveryMode()).isEqualTo(DeliveryMode.PERSISTENT);
            assertThat(text.getJMSMessageID()).startsWith("ID:sql-");
            Message second = consumer.receive(10_000);
            assertThat(second).isInstanceOf(BytesMessage.class);
            byte[] bytes = new byte[2];
            assertThat(((BytesMessage) second).readBytes(bytes)).isEqualTo(2);
            assertThat(bytes).containsExactly(0xca, 0xfe);
            assertThat(consumer.receive(200)).isNull();
        }
        try (MessageConsumer rest = session.createConsumer(queue)) {
            assertThat(((TextMessage) rest.receive(10_000)).getText()).isEqualTo("skip me");
        }
    }

    @Test
    void sqlReceivesWhatAJmsProducerSent_withItsHeadersAndTypedProperties() throws Exception {
        try (Session session = connection.createSession(true, Session.SESSION_TRANSACTED)) {
            Queue queue = session.createQueue("jms.tosql");
            var producer = session.createProducer(queue);
            TextMessage m = session.createTextMessage("to SQL");
            m.setIntProperty("n", 42);
            m.setDoubleProperty("ratio", 0.25);
            m.setBooleanProperty("ok", true);
            m.setStringProperty("color", "green");
            m.setJMSCorrelationID("corr-9");
            m.setJMSType("note");
            m.setJMSReplyTo(session.createQueue("jms.tosql.replies"));
            producer.send(m, DeliveryMode.PERSISTENT, 7, 0);
            BytesMessage b = session.createBytesMessage();
            b.writeBytes(new byte[] {1, 2, 3});
            producer.send(b);
            session.commit();
            String id = m.getJMSMessageID();
            try (java.sql.Connection c = db.connect();
                    Statement s = c.createStatement();
                    java.sql.ResultSet rs = s.executeQuery("SELECT message_id, body_type, body_text, body_bytes,"
                            + " properties::text, correlation_id, type, reply_to, priority, delivery_count"
                            + " FROM shardq.receive('jms.tosql', 10, selector => 'n = 42 OR JMSType IS NULL')"
                            + " ORDER BY body_type DESC")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo(id);
                assertThat(rs.getString(2)).isEqualTo("text");
                assertThat(rs.getString(3)).isEqualTo("to SQL");
                assertThat(rs.getString(5))
                        .isEqualTo("{\"n\": 42, \"ok\": true, \"color\": \"green\", \"ratio\": 0.25}");
                assertThat(rs.getString(6)).isEqualTo("corr-9");
                assertThat(rs.getString(7)).isEqualTo("note");
                assertThat(rs.getString(8)).isEqualTo("queue:jms.tosql.replies");
                assertThat(rs.getInt(9)).isEqualTo(7);
                assertThat(rs.getInt(10)).isEqualTo(1);
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(2)).isEqualTo("bytes");
                assertThat(rs.getBytes(4)).containsExactly(1, 2, 3);
                assertThat(rs.next()).isFalse();
            }
            // consumed by the SQL session's commit (autocommit): nothing left for JMS
            MessageConsumer consumer = session.createConsumer(queue);
            assertThat(consumer.receive(300)).isNull();
        }
    }
}
