package io.shardq.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.BrokerProperty;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import jakarta.jms.BytesMessage;
import jakarta.jms.Connection;
import jakarta.jms.DeliveryMode;
import jakarta.jms.ExceptionListener;
import jakarta.jms.IllegalStateException;
import jakarta.jms.InvalidDestinationException;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.MapMessage;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageFormatException;
import jakarta.jms.MessageProducer;
import jakarta.jms.ObjectMessage;
import jakarta.jms.Queue;
import jakarta.jms.QueueBrowser;
import jakarta.jms.Session;
import jakarta.jms.StreamMessage;
import jakarta.jms.TextMessage;
import java.io.Serializable;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

@PgTest
class JmsQueueTest {
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
    void textThatUtf8CannotHold_isRefusedAtSend_notDeliveredAsQuestionMarks() throws Exception {
        Session s = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue q = s.createQueue("jms.surrogates");
        MessageProducer p = s.createProducer(q);
        jakarta.jms.MapMessage map = s.createMapMessage();
        map.setString("key\ud800", "v");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> p.send(map))
                .isInstanceOf(jakarta.jms.MessageFormatException.class)
                .hasMessageContaining("unpaired UTF-16 surrogate");
        TextMessage text = s.createTextMessage("lone \udc00 low");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> p.send(text))
                .isInstanceOf(jakarta.jms.MessageFormatException.class);
        TextMessage prop = s.createTextMessage("fine");
        prop.setStringProperty("p", "bad \ud83d");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> p.send(prop))
                .isInstanceOf(jakarta.jms.MessageFormatException.class)
                .hasMessageContaining("\"p\"");
        TextMessage ok = s.createTextMessage("pair \ud83d\ude00 fine");
        p.send(ok);
        TextMessage got = (TextMessage) s.createConsumer(q).receive(5000);
        assertThat(got.getText()).isEqualTo("pair \ud83d\ude00 fine");
        assertThat(s.createConsumer(q).receiveNoWait()).isNull();
    }

    @Test
    void allFiveMessageTypes_roundTripThroughPostgres() throws Exception {
        Session s = connection.createSession(true, Session.SESSION_TRANSACTED);
        Queue q = s.createQueue("jms.types");
        MessageProducer p = s.createProducer(q);
        TextMessage text = s.createTextMessage("héllo ✓");
        text.setIntProperty("n", 42);
        text.setStringProperty("s", "x");
        text.setJMSCorrelationID("corr-1");
        p.send(text);
        BytesMessage bytes = s.createBytesMessage();
        bytes.writeBytes(new byte[] {1, 2, 3});
        p.send(bytes);
        MapMessage map = s.createMapMessage();
        map.setDouble("d", 1.5);
        map.setString("k", "v");
        p.send(map);
        StreamMessage stream = s.createStreamMessage();
        stream.writeInt(7);
        stream.writeString("seven");
        p.send(stream);
        p.send(s.createObjectMessage(new ArrayList<>(List.of("a", "b"))));
        s.commit();

        MessageConsumer c = s.createConsumer(q);
        TextMessage t = (TextMessage) c.receive(5000);
        assertThat(t.getText()).isEqualTo("héllo ✓");
        assertThat(t.getIntProperty("n")).isEqualTo(42);
        assertThat(t.getStringProperty("n")).isEqualTo("42");
        assertThat(t.getJMSCorrelationID()).isEqualTo("corr-1");
        assertThat(t.getJMSMessageID()).startsWith("ID:");
        assertThat(t.getJMSDestination()).isEqualTo(q);
        assertThat(t.getJMSDeliveryMode()).isEqualTo(DeliveryMode.PERSISTENT);
        assertThat(t.getJMSRedelivered()).isFalse();
        BytesMessage b = (BytesMessage) c.receive(5000);
        byte[] buf = new byte[3];
        assertThat(b.readBytes(buf)).isEqualTo(3);
        assertThat(buf).containsExactly(1, 2, 3);
        MapMessage m = (MapMessage) c.receive(5000);
        assertThat(m.getDouble("d")).isEqualTo(1.5);
        assertThat(m.getString("k")).isEqualTo("v");
        StreamMessage st = (StreamMessage) c.receive(5000);
        assertThat(st.readInt()).isEqualTo(7);
        assertThat(st.readString()).isEqualTo("seven");
        ObjectMessage o = (ObjectMessage) c.receive(5000);
        assertThat(o.getObject()).isEqualTo(List.of("a", "b"));
        s.commit();
        assertThat(c.receiveNoWait()).isNull();
    }

    @Test
    void rollback_redelivers_withRedeliveredAndDeliveryCount() throws Exception {
        Session s = connection.createSession(true, Session.SESSION_TRANSACTED);
        Queue q = s.createQueue("jms.rollback");
        s.createProducer(q).send(s.createTextMessage("again"));
        s.commit();
        MessageConsumer c = s.createConsumer(q);
        Message first = c.receive(5000);
        assertThat(first.getJMSRedelivered()).isFalse();
        assertThat(first.getIntProperty("JMSXDeliveryCount")).isEqualTo(1);
        s.rollback();
        Message second = c.receive(5000);
        assertThat(((TextMessage) second).getText()).isEqualTo("again");
        assertThat(second.getJMSRedelivered()).isTrue();
        assertThat(second.getIntProperty("JMSXDeliveryCount")).isEqualTo(2);
        s.commit();
    }

    @Test
    void clientAcknowledge_recoverRedelivers_acknowledgeConsumes() throws Exception {
        Session s = connection.createSession(false, Session.CLIENT_ACKNOWLEDGE);
        Queue q = s.createQueue("jms.client");
        MessageProducer p = s.createProducer(q);
        p.send(s.createTextMessage("one"));
        p.send(s.createTextMessage("two"));
        MessageConsumer c = s.createConsumer(q);
        assertThat(((TextMessage) c.receive(5000)).getText()).isEqualTo("one");
        s.recover();
        Message again = c.receive(5000);
        assertThat(((TextMessage) again).getText()).isEqualTo("one");
        assertThat(again.getJMSRedelivered()).isTrue();
        Message two = c.receive(5000);
        two.acknowledge();
        s.recover();
        assertThat(c.receive(300)).isNull();
    }

    @Test
    void messageListener_exceptionRedelivers_thenDeadLetters() throws Exception {
        factory.broker()
                .admin()
                .queues()
                .create("jms.listener", QueueOptions.DEFAULTS.withShards(1).withMaxAttempts(3));
        Session s = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue q = s.createQueue("jms.listener");
        s.createProducer(q).send(s.createTextMessage("poison"));
        List<Integer> counts = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch thrice = new CountDownLatch(3);
        Session ls = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        ls.createConsumer(q).setMessageListener(m -> {
            try {
                counts.add(m.getIntProperty("JMSXDeliveryCount"));
            } catch (JMSException e) {
                throw new RuntimeException(e);
            }
            thrice.countDown();
            throw new RuntimeException("listener fails");
        });
        assertThat(thrice.await(20, TimeUnit.SECONDS)).isTrue();
        Session d = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Message dead = d.createConsumer(d.createQueue("jms.listener.DLQ")).receive(10_000);
        assertThat(((TextMessage) dead).getText()).isEqualTo("poison");
        assertThat(dead.getStringProperty("JMS_ShardQ_DeadLetterReason")).contains("delivery failed 3 times");
        assertThat(counts).containsExactly(1, 2, 3);
    }

    @Test
    void browser_looksWithoutConsuming_andFiltersBySelector() throws Exception {
        Session s = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue q = s.createQueue("jms.browse");
        MessageProducer p = s.createProducer(q);
        for (int i = 0; i < 5; i++) {
            TextMessage m = s.createTextMessage("m" + i);
            m.setIntProperty("i", i);
            p.send(m);
        }
        QueueBrowser all = s.createBrowser(q);
        assertThat(Collections.list(all.getEnumeration())).hasSize(5);
        QueueBrowser odd = s.createBrowser(q, "i = 1 OR i = 3");
        List<String> texts = new ArrayList<>();
        for (Object o : Collections.list(odd.getEnumeration())) {
            texts.add(((TextMessage) o).getText());
        }
        assertThat(texts).containsExactly("m1", "m3");
        assertThat(factory.broker().admin().queues().backlog("jms.browse")).isEqualTo(5);
    }

    @Test
    void consumerWithSelector_takesMatching_othersStayForOtherConsumers() throws Exception {
        Session s = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue q = s.createQueue("jms.selector");
        MessageProducer p = s.createProducer(q);
        for (int i = 0; i < 6; i++) {
            TextMessage m = s.createTextMessage("m" + i);
            m.setStringProperty("region", i % 2 == 0 ? "eu" : "us");
            p.send(m);
        }
        MessageConsumer eu = s.createConsumer(q, "region = 'eu'");
        assertThat(eu.getMessageSelector()).isEqualTo("region = 'eu'");
        List<String> got = new ArrayList<>();
        Message m;
        while ((m = eu.receive(500)) != null) {
            got.add(((TextMessage) m).getText());
        }
        assertThat(got).containsExactly("m0", "m2", "m4");
        MessageConsumer any = s.createConsumer(q);
        List<String> rest = new ArrayList<>();
        while ((m = any.receive(500)) != null) {
            rest.add(((TextMessage) m).getText());
        }
        assertThat(rest).containsExactly("m1", "m3", "m5");
        assertThatThrownBy(() -> s.createConsumer(q, "region = = 'x'"))
                .isInstanceOf(jakarta.jms.InvalidSelectorException.class);
    }

    @Test
    void sessionConnection_sharesTheTransactionWithApplicationSql() throws Exception {
        try (Statement st = db.connect().createStatement()) {
            st.execute("create table public.orders (id int primary key)");
        }
        ShardQSession s = (ShardQSession) connection.createSession(true, Session.SESSION_TRANSACTED);
        Queue q = s.createQueue("jms.shared-tx");
        MessageProducer p = s.createProducer(q);

        try (PreparedStatement ps = s.getConnection().prepareStatement("insert into public.orders values (?)")) {
            ps.setInt(1, 1);
            ps.executeUpdate();
        }
        p.send(s.createTextMessage("order 1"));
        s.rollback();
        assertThat(countOrders()).isZero();
        assertThat(factory.broker().admin().queues().backlog("jms.shared-tx")).isZero();

        try (PreparedStatement ps = s.getConnection().prepareStatement("insert into public.orders values (?)")) {
            ps.setInt(1, 2);
            ps.executeUpdate();
        }
        p.send(s.createTextMessage("order 2"));
        s.commit();
        assertThat(countOrders()).isEqualTo(1);
        assertThat(((TextMessage) s.createConsumer(q).receive(5000)).getText()).isEqualTo("order 2");
        s.commit();
    }

    @Test
    void sessionOnApplicationConnection_joinsItsTransaction() throws Exception {
        try (Statement st = db.connect().createStatement()) {
            st.execute("create table public.audit (note text)");
        }
        try (java.sql.Connection app = db.connect()) {
            app.setAutoCommit(false);
            ShardQSession s = ((ShardQConnection) connection).createSession(app);
            Queue q = s.createQueue("jms.app-tx");
            s.createProducer(q).send(s.createTextMessage("joined"));
            s.commit(); // writes into the application's transaction, does not commit it
            try (Statement st = app.createStatement()) {
                st.execute("insert into public.audit values ('sent')");
            }
            assertThat(factory.broker().admin().queues().backlog("jms.app-tx")).isZero();
            app.commit();
            assertThat(factory.broker().admin().queues().backlog("jms.app-tx")).isEqualTo(1);
            s.close();
        }
        Session r = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        assertThat(((TextMessage) r.createConsumer(r.createQueue("jms.app-tx")).receive(5000)).getText())
                .isEqualTo("joined");
    }

    @Test
    void closedObjects_throwIllegalStateException() throws Exception {
        Session s = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue q = s.createQueue("jms.closed");
        MessageProducer p = s.createProducer(q);
        MessageConsumer c = s.createConsumer(q);
        s.close();
        assertThatThrownBy(() -> p.send(s.createTextMessage("x"))).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> c.receiveNoWait()).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> s.createTextMessage()).isInstanceOf(IllegalStateException.class);
        connection.close();
        assertThatThrownBy(() -> connection.createSession()).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void unknownQueue_withAutoCreateOff_givesInvalidDestination() throws Exception {
        try (ShardQConnectionFactory strict = new ShardQConnectionFactory(db.brokerConfig()
                        .set(BrokerProperty.AUTO_CREATE_DESTINATIONS, false)
                        .build());
                Connection c = strict.createConnection()) {
            Session s = c.createSession();
            Queue q = s.createQueue("jms.nowhere");
            assertThatThrownBy(() -> s.createProducer(q).send(s.createTextMessage("x")))
                    .isInstanceOf(InvalidDestinationException.class)
                    .hasMessageContaining("\"jms.nowhere\" does not exist");
            assertThatThrownBy(() -> s.createConsumer(q)).isInstanceOf(InvalidDestinationException.class);
            assertThatThrownBy(() -> s.createQueue("x\"; drop table y; --"))
                    .isInstanceOf(InvalidDestinationException.class)
                    .hasMessageContaining("is invalid");
        }
    }

    /** Serializable, but not on the allow-list. */
    record Evil(String payload) implements Serializable {}

    @Test
    void objectMessage_refusesClassesNotOnTheAllowList() throws Exception {
        Session s = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue q = s.createQueue("jms.object");
        s.createProducer(q).send(s.createObjectMessage(new Evil("rm -rf")));
        ObjectMessage m = (ObjectMessage) s.createConsumer(q).receive(5000);
        assertThatThrownBy(m::getObject)
                .isInstanceOf(MessageFormatException.class)
                .hasMessageContaining(Evil.class.getName());
    }

    @Test
    void timeToLive_expiredMessagesAreNotDelivered() throws Exception {
        Session s = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue q = s.createQueue("jms.ttl");
        MessageProducer p = s.createProducer(q);
        p.setTimeToLive(1);
        p.send(s.createTextMessage("stale"));
        p.setTimeToLive(0);
        Thread.sleep(5); // let the 1 ms time-to-live pass; the clock, not a race, decides
        p.send(s.createTextMessage("fresh"));
        assertThat(((TextMessage) s.createConsumer(q).receive(5000)).getText()).isEqualTo("fresh");
    }

    @Test
    void jmsContext_sendsAndReceivesBodies() {
        try (JMSContext ctx = factory.createContext(JMSContext.AUTO_ACKNOWLEDGE)) {
            Queue q = ctx.createQueue("jms.context");
            ctx.createProducer().setProperty("k", 5).send(q, "body text");
            var consumer = ctx.createConsumer(q);
            assertThat(consumer.receiveBody(String.class, 5000)).isEqualTo("body text");
        }
    }

    @Test
    void receiveBody_ofAWrongType_doesNotAcknowledge_theMessageComesAgain_andIsConsumedOnceRead() throws Exception {
        try (JMSContext ctx = factory.createContext(JMSContext.AUTO_ACKNOWLEDGE)) {
            Queue q = ctx.createQueue("jms.body.type");
            ctx.createProducer().send(q, "a text");
            ctx.createProducer().send(q, "second");
            var consumer = ctx.createConsumer(q);
            assertThatThrownBy(() -> consumer.receiveBody(byte[].class, 5000))
                    .isInstanceOf(jakarta.jms.MessageFormatRuntimeException.class)
                    .hasMessageContaining("cannot be read as [B")
                    .hasMessageContaining("delivered again");
            assertThatThrownBy(() -> consumer.receiveBodyNoWait(Integer.class))
                    .isInstanceOf(jakarta.jms.MessageFormatRuntimeException.class);
            Message again = consumer.receive(5000);
            assertThat(again.getBody(String.class)).isEqualTo("a text");
            assertThat(again.getJMSRedelivered()).isTrue();
            assertThat(consumer.receiveBody(String.class, 5000)).isEqualTo("second");
            assertThat(consumer.receiveBodyNoWait(String.class)).isNull();
        }
        assertThat(factory.broker().admin().queues().backlog("jms.body.type")).isZero();
    }

    @Test
    void databaseLoss_givesJMSException_andCallsExceptionListener() throws Exception {
        AtomicReference<JMSException> seen = new AtomicReference<>();
        CountDownLatch called = new CountDownLatch(1);
        connection.setExceptionListener((ExceptionListener) e -> {
            seen.set(e);
            called.countDown();
        });
        ShardQSession s = (ShardQSession) connection.createSession(true, Session.SESSION_TRANSACTED);
        Queue q = s.createQueue("jms.loss");
        int pid;
        try (ResultSet rs = s.getConnection().createStatement().executeQuery("select pg_backend_pid()")) {
            rs.next();
            pid = rs.getInt(1);
        }
        s.createProducer(q).send(s.createTextMessage("doomed"));
        try (Statement st = db.connect().createStatement()) {
            st.execute("select pg_terminate_backend(" + pid + ")");
        }
        assertThatThrownBy(s::commit).isInstanceOf(JMSException.class).hasCauseInstanceOf(RuntimeException.class);
        assertThat(called.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(seen.get().getLinkedException()).isNotNull();
        // the pool recovers: the next transaction works
        s.createProducer(q).send(s.createTextMessage("after"));
        s.commit();
        assertThat(factory.broker().admin().queues().backlog("jms.loss")).isEqualTo(1);
    }

    long countOrders() throws Exception {
        try (Statement st = db.connect().createStatement();
                ResultSet rs = st.executeQuery("select count(*) from public.orders")) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
