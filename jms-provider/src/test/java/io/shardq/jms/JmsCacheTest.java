package io.shardq.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.BrokerProperty;
import io.shardq.broker.CacheOptions;
import io.shardq.broker.kv.KvCache;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The key/value cache through a JMS session: one transaction for a message, a row and an entry. */
@PgTest
class JmsCacheTest {
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
        // the database is shared by this class's tests
        factory.broker().admin().caches().createOrGet("prices", CacheOptions.DEFAULTS);
        outside().clear();
        try (java.sql.Connection c = db.connect();
                Statement st = c.createStatement()) {
            st.execute("create table if not exists public.inventory (sku text primary key, stock int not null)");
            st.execute("insert into public.inventory values ('sku-1', 10) on conflict (sku) do update set stock = 10");
        }
    }

    @AfterEach
    void close() throws Exception {
        connection.close();
        factory.close();
    }

    @Test
    void aReceivedMessage_anApplicationRow_andACacheEntry_commitAndRollBackTogether() throws Exception {
        ShardQSession s = (ShardQSession) connection.createSession(true, Session.SESSION_TRANSACTED);
        Queue q = s.createQueue("jms.orders");
        s.createProducer(q).send(s.createTextMessage("sku-1"));
        s.commit();
        SessionCache<String, String> prices = s.cache("prices");
        MessageConsumer consumer = s.createConsumer(q);

        handle(s, consumer, prices, "12.50");
        s.rollback(); // all three as before
        assertThat(stock()).isEqualTo(10);
        assertThat(outside().get("sku-1")).isNull();
        assertThat(factory.broker().admin().queues().backlog("jms.orders")).isEqualTo(1);

        handle(s, consumer, prices, "13.00"); // redelivered
        assertThat(outside().get("sku-1")).as("not visible before the commit").isNull();
        s.commit();
        assertThat(stock()).isEqualTo(9);
        assertThat(outside().get("sku-1")).isEqualTo("13.00");
        assertThat(factory.broker().admin().queues().backlog("jms.orders")).isZero();
    }

    @Test
    void aNonTransactedSession_writesEachOperationOnItsOwn() throws Exception {
        ShardQSession s = (ShardQSession) connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        s.cache("prices").put("sku-2", "1.00");
        assertThat(outside().get("sku-2")).isEqualTo("1.00");
    }

    @Test
    void anUnknownCache_isAJmsExceptionNamingIt() throws Exception {
        Session s = connection.createSession(true, Session.SESSION_TRANSACTED);
        assertThatThrownBy(() -> ((ShardQSession) s).cache("no-such-cache"))
                .isInstanceOf(JMSException.class)
                .hasMessageContaining("no-such-cache")
                .satisfies(e -> assertThat(((JMSException) e).getErrorCode()).isEqualTo("UNKNOWN_CACHE"));
        s.close();
        assertThatThrownBy(() -> ((ShardQSession) s).cache("prices")).isInstanceOf(JMSException.class);
    }

    @Test
    void anOversizedValue_failsTheOperation_andTheRestOfTheTransactionStillRollsBack() throws Exception {
        factory.broker().admin().caches().createOrGet("small", CacheOptions.DEFAULTS.withMaxValueBytes(8));
        ShardQSession s = (ShardQSession) connection.createSession(true, Session.SESSION_TRANSACTED);
        SessionCache<String, String> small = s.cache("small");
        small.put("a", "ok");
        assertThatThrownBy(() -> small.put("b", "far too long for eight bytes"))
                .isInstanceOf(jakarta.jms.JMSRuntimeException.class) // the simplified API's unchecked kind
                .hasMessageContaining("8")
                .hasCauseInstanceOf(JMSException.class);
        s.rollback();
        assertThat(factory.broker()
                        .cache("small", io.shardq.broker.kv.Codec.utf8(), io.shardq.broker.kv.Codec.utf8())
                        .get("a"))
                .isNull();
    }

    /** What an order handler does: take the order, update the stock, cache a price. */
    private static void handle(
            ShardQSession s, MessageConsumer consumer, SessionCache<String, String> prices, String price)
            throws Exception {
        TextMessage order = (TextMessage) consumer.receive(5000);
        assertThat(order).isNotNull();
        try (PreparedStatement ps =
                s.getConnection().prepareStatement("update public.inventory set stock = stock - 1 where sku = ?")) {
            ps.setString(1, order.getText());
            assertThat(ps.executeUpdate()).isEqualTo(1);
        }
        prices.put(order.getText(), price);
        assertThat(prices.get(order.getText()))
                .as("the transaction reads its own write")
                .isEqualTo(price);
    }

    private KvCache<String, String> outside() throws JMSException {
        return factory.broker().cache("prices", io.shardq.broker.kv.Codec.utf8(), io.shardq.broker.kv.Codec.utf8());
    }

    private int stock() throws Exception {
        try (java.sql.Connection c = db.connect();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("select stock from public.inventory where sku = 'sku-1'")) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
