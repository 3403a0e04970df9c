package io.shardq.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import jakarta.jms.Connection;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.QueueBrowser;
import jakarta.jms.ResourceAllocationException;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What issue 8 promises a JMS user of the reshaped engine: many sessions on default settings,
 * order per thread across sessions, and non-persistent messages that behave like persistent ones.
 */
@PgTest
class EngineBehaviourTest {

    /** A producer of non-persistent messages to {@code queue}. */
    private static MessageProducer nonPersistentProducer(Session s, Queue queue) throws JMSException {
        MessageProducer mp = s.createProducer(queue);
        mp.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
        return mp;
    }

    /** The test database's settings, but the default pool (the test fixture shrinks it). */
    private static BrokerConfig.Builder defaults(TestDatabase db) {
        return db.brokerConfig().set(BrokerProperty.POOL_SIZE, BrokerProperty.POOL_SIZE.defaultValue());
    }

    @Test
    void sixteenProducersSixteenConsumers_defaultSettings_everyMessageExactlyOnce(TestDatabase db) throws Exception {
        int sessions = 16;
        int perProducer = 500;
        int batch = 10;
        ShardQConnectionFactory factory =
                new ShardQConnectionFactory(defaults(db).build());
        try (Connection connection = factory.createConnection()) {
            connection.start();
            Queue queue = connection.createSession().createQueue("engine.many");
            ExecutorService pool = Executors.newFixedThreadPool(2 * sessions);
            Map<String, Integer> received = new ConcurrentHashMap<>();
            AtomicInteger committed = new AtomicInteger();
            List<Future<?>> work = new ArrayList<>();
            for (int p = 0; p < sessions; p++) {
                int producer = p;
                work.add(pool.submit(() -> {
                    Session s = connection.createSession(true, Session.SESSION_TRANSACTED);
                    MessageProducer mp = s.createProducer(queue);
                    for (int n = 0; n < perProducer; n++) {
                        mp.send(s.createTextMessage(producer + ":" + n));
                        if ((n + 1) % batch == 0) {
                            s.commit();
                        }
                    }
                    s.commit();
                    s.close();
                    return null;
                }));
            }
            int total = sessions * perProducer;
            for (int c = 0; c < sessions; c++) {
                work.add(pool.submit(() -> {
                    Session s = connection.createSession(true, Session.SESSION_TRANSACTED);
                    MessageConsumer mc = s.createConsumer(queue);
                    List<String> tx = new ArrayList<>();
                    while (committed.get() < total) {
                        Message m = mc.receive(200);
                        if (m != null) {
                            tx.add(((TextMessage) m).getText());
                        }
                        if (tx.size() == batch || (m == null && !tx.isEmpty())) {
                            s.commit();
                            tx.forEach(id -> received.merge(id, 1, Integer::sum));
                            committed.addAndGet(tx.size());
                            tx.clear();
                        }
                    }
                    s.close();
                    return null;
                }));
            }
            for (Future<?> f : work) {
                f.get(5, TimeUnit.MINUTES); // a pool timeout would surface here as an exception
            }
            pool.shutdown();
            assertThat(received).hasSize(total);
            assertThat(received.values()).allMatch(v -> v == 1, "received exactly once");
            assertThat(factory.broker().admin().queues().backlog("engine.many")).isZero();
        } finally {
            factory.close();
        }
    }

    @Test
    void oneThread_sendingThroughANewSessionAndConnectionEachTime_keepsSendOrder(TestDatabase db) throws Exception {
        ShardQConnectionFactory factory =
                new ShardQConnectionFactory(defaults(db).build());
        try {
            factory.broker().admin().queues().create("engine.order", QueueOptions.DEFAULTS.withShards(8));
            // as Spring's JmsTemplate does: connection, session, producer, send, close, each time
            for (int n = 0; n < 50; n++) {
                try (Connection c = factory.createConnection()) {
                    Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                    s.createProducer(s.createQueue("engine.order")).send(s.createTextMessage("m" + n));
                }
            }
            try (Connection c = factory.createConnection()) {
                c.start();
                Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                MessageConsumer mc = s.createConsumer(s.createQueue("engine.order"));
                List<String> got = new ArrayList<>();
                for (int n = 0; n < 50; n++) {
                    Message m = mc.receive(10_000);
                    assertThat(m).as("message %d", n).isNotNull();
                    got.add(((TextMessage) m).getText());
                }
                List<String> expected = new ArrayList<>();
                for (int n = 0; n < 50; n++) {
                    expected.add("m" + n);
                }
                assertThat(got).containsExactlyElementsOf(expected);
            }
        } finally {
            factory.close();
        }
    }

    @Test
    void nonPersistent_acknowledgedOrCommitted_neverComesBack(TestDatabase db) throws Exception {
        ShardQConnectionFactory factory =
                new ShardQConnectionFactory(defaults(db).build());
        try (Connection c = factory.createConnection()) {
            c.start();
            Session producer = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Queue queue = producer.createQueue("engine.np.ack");
            MessageProducer mp = nonPersistentProducer(producer, queue);
            mp.send(producer.createTextMessage("client-ack"));
            mp.send(producer.createTextMessage("transacted"));
            mp.send(producer.createTextMessage("auto"));

            Session client = c.createSession(false, Session.CLIENT_ACKNOWLEDGE);
            Message m1 = client.createConsumer(queue).receive(5_000);
            assertThat(((TextMessage) m1).getText()).isEqualTo("client-ack");
            m1.acknowledge();
            client.close();

            Session tx = c.createSession(true, Session.SESSION_TRANSACTED);
            Message m2 = tx.createConsumer(queue).receive(5_000);
            assertThat(((TextMessage) m2).getText()).isEqualTo("transacted");
            tx.commit();
            tx.close();

            Session auto = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Message m3 = auto.createConsumer(queue).receive(5_000);
            assertThat(((TextMessage) m3).getText()).isEqualTo("auto");
            auto.close();

            Session after = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            assertThat(after.createConsumer(queue).receive(300))
                    .as("acknowledged non-persistent messages must not come back when the session closes")
                    .isNull();
            assertThat(factory.broker().stats().nonPersistentBytes()).isZero();
        } finally {
            factory.close();
        }
    }

    @Test
    void nonPersistent_selectorAndBrowser_seeThem_andRollbackRedelivers(TestDatabase db) throws Exception {
        ShardQConnectionFactory factory =
                new ShardQConnectionFactory(defaults(db).build());
        try (Connection c = factory.createConnection()) {
            c.start();
            Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Queue queue = s.createQueue("engine.np.sel");
            MessageProducer mp = nonPersistentProducer(s, queue);
            for (String colour : List.of("red", "blue", "red")) {
                TextMessage m = s.createTextMessage(colour);
                m.setStringProperty("colour", colour);
                mp.send(m);
            }
            QueueBrowser browser = s.createBrowser(queue, "colour = 'red'");
            List<String> browsed = new ArrayList<>();
            for (Enumeration<?> e = browser.getEnumeration(); e.hasMoreElements(); ) {
                browsed.add(((TextMessage) e.nextElement()).getText());
            }
            assertThat(browsed).containsExactly("red", "red");

            Session tx = c.createSession(true, Session.SESSION_TRANSACTED);
            MessageConsumer blue = tx.createConsumer(queue, "colour = 'blue'");
            Message first = blue.receive(5_000);
            assertThat(((TextMessage) first).getText()).isEqualTo("blue");
            assertThat(first.getJMSRedelivered()).isFalse();
            tx.rollback();
            Message again = blue.receive(5_000);
            assertThat(((TextMessage) again).getText()).isEqualTo("blue");
            assertThat(again.getJMSRedelivered()).isTrue();
            assertThat(again.getIntProperty("JMSXDeliveryCount")).isEqualTo(2);
            tx.commit();
            assertThat(blue.receive(300)).isNull();

            MessageConsumer any = s.createConsumer(queue);
            assertThat(((TextMessage) any.receive(5_000)).getText()).isEqualTo("red");
            assertThat(((TextMessage) any.receive(5_000)).getText()).isEqualTo("red");
            assertThat(any.receive(300)).isNull();
        } finally {
            factory.close();
        }
    }

    @Test
    void nonPersistent_listenerAlwaysThrows_endsInDeadLetterQueue_withDeliveryCounts(TestDatabase db) throws Exception {
        ShardQConnectionFactory factory =
                new ShardQConnectionFactory(defaults(db).build());
        try (Connection c = factory.createConnection()) {
            factory.broker()
                    .admin()
                    .queues()
                    .create(
                            "engine.np.poison",
                            QueueOptions.DEFAULTS.withShards(1).withMaxAttempts(3));
            c.start();
            Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Queue queue = s.createQueue("engine.np.poison");
            MessageProducer mp = nonPersistentProducer(s, queue);
            mp.send(s.createTextMessage("poison"));

            List<Integer> counts = Collections.synchronizedList(new ArrayList<>());
            List<Boolean> redelivered = Collections.synchronizedList(new ArrayList<>());
            CountDownLatch thrice = new CountDownLatch(3);
            Session ls = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            ls.createConsumer(queue).setMessageListener(m -> {
                try {
                    counts.add(m.getIntProperty("JMSXDeliveryCount"));
                    redelivered.add(m.getJMSRedelivered());
                } catch (JMSException e) {
                    throw new RuntimeException(e);
                }
                thrice.countDown();
                throw new RuntimeException("listener fails");
            });
            assertThat(thrice.await(20, TimeUnit.SECONDS)).isTrue();
            Session d = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Message dead =
                    d.createConsumer(d.createQueue("engine.np.poison.DLQ")).receive(10_000);
            assertThat(dead).as("the dead letter").isNotNull();
            assertThat(((TextMessage) dead).getText()).isEqualTo("poison");
            assertThat(dead.getJMSDeliveryMode()).isEqualTo(DeliveryMode.NON_PERSISTENT);
            assertThat(dead.getStringProperty("JMS_ShardQ_DeadLetterReason")).contains("delivery failed 3 times");
            ls.close();
            assertThat(counts).containsExactly(1, 2, 3);
            assertThat(redelivered).containsExactly(false, true, true);
        } finally {
            factory.close();
        }
    }

    @Test
    void nonPersistent_beyondTheMemoryBound_sendFailsWithResourceAllocation(TestDatabase db) throws Exception {
        ShardQConnectionFactory factory = new ShardQConnectionFactory(
                defaults(db).set(BrokerProperty.NON_PERSISTENT_MAX_BYTES, 4096).build());
        try (Connection c = factory.createConnection()) {
            Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Queue queue = s.createQueue("engine.np.full");
            MessageProducer mp = nonPersistentProducer(s, queue);
            String kb = "x".repeat(1000);
            Map<String, Integer> sent = new HashMap<>();
            assertThatThrownBy(() -> {
                        for (int n = 0; n < 10; n++) {
                            mp.send(s.createTextMessage(kb));
                            sent.merge("sent", 1, Integer::sum);
                        }
                    })
                    .isInstanceOf(ResourceAllocationException.class)
                    .hasMessageContaining("shardq.non-persistent.max-bytes");
            assertThat(factory.broker().stats().nonPersistentRejected()).isEqualTo(1);
            // what was accepted is still delivered, once each
            c.start();
            MessageConsumer mc = s.createConsumer(queue);
            int got = 0;
            while (mc.receive(300) != null) {
                got++;
            }
            assertThat(got).isEqualTo(sent.get("sent"));
        } finally {
            factory.close();
        }
    }

    @Test
    void closingAConsumer_givesBackWhatItsSessionPrefetched_toOtherSessions(TestDatabase db) throws Exception {
        ShardQConnectionFactory factory =
                new ShardQConnectionFactory(defaults(db).build());
        try (Connection c = factory.createConnection()) {
            factory.broker().admin().queues().create("engine.prefetch", QueueOptions.DEFAULTS.withShards(1));
            c.start();
            Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Queue queue = s.createQueue("engine.prefetch");
            MessageProducer mp = s.createProducer(queue);
            for (int n = 0; n < 5; n++) {
                mp.send(s.createTextMessage("p" + n));
            }
            // a transacted session takes a range of up to shardq.dequeue.prefetch (10) at once
            Session first = c.createSession(true, Session.SESSION_TRANSACTED);
            MessageConsumer one = first.createConsumer(queue);
            assertThat(((TextMessage) one.receive(5_000)).getText()).isEqualTo("p0");
            first.commit();
            Session second = c.createSession(true, Session.SESSION_TRANSACTED);
            MessageConsumer other = second.createConsumer(queue);
            assertThat(other.receive(300))
                    .as("held by the first session's prefetch")
                    .isNull();

            one.close(); // the first session stays open, its consumer is gone
            List<String> rest = new ArrayList<>();
            Message m;
            while ((m = other.receive(2_000)) != null) {
                rest.add(((TextMessage) m).getText());
            }
            second.commit();
            assertThat(rest).containsExactly("p1", "p2", "p3", "p4");
            first.close();
            second.close();
        } finally {
            factory.close();
        }
    }
}
