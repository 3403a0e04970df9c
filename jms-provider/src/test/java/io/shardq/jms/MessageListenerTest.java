package io.shardq.jms;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.BrokerProperty;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageListener;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Replacing or removing a consumer's MessageListener applies from the next message on. */
@PgTest
class MessageListenerTest {
    ShardQConnectionFactory factory;
    Connection connection;

    @BeforeEach
    void open(TestDatabase db) throws Exception {
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
    void setMessageListener_replacesTheListener_fromTheNextMessage() throws Exception {
        Session s = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue q = s.createQueue("listener.replace");
        MessageProducer p = s.createProducer(q);
        Session ls = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer consumer = ls.createConsumer(q);
        Recorder first = new Recorder();
        Recorder second = new Recorder();
        consumer.setMessageListener(first);
        p.send(s.createTextMessage("m1"));
        assertThat(first.next()).isEqualTo("m1");
        awaitDispatcherWaiting(ls);

        consumer.setMessageListener(second);
        assertThat(consumer.getMessageListener()).isSameAs(second);
        for (int i = 2; i <= 5; i++) {
            p.send(s.createTextMessage("m" + i));
        }
        assertThat(List.of(second.next(), second.next(), second.next(), second.next()))
                .containsExactly("m2", "m3", "m4", "m5");
        assertThat(first.texts).isEmpty();
    }

    @Test
    void aMessageWhoseListenerReturnsWhileItsSessionCloses_isConsumed_notDeliveredAgain() throws Exception {
        Session s = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue q = s.createQueue("listener.closing");
        s.createProducer(q).send(s.createTextMessage("last"));
        ShardQSession ls = (ShardQSession) connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        CountDownLatch closing = new CountDownLatch(1);
        java.util.concurrent.atomic.AtomicReference<Exception> closeFailed =
                new java.util.concurrent.atomic.AtomicReference<>();
        Thread closer = new Thread(() -> {
            try {
                ls.close(); // waits for the listener below
            } catch (Exception e) {
                closeFailed.set(e);
            }
        });
        ls.createConsumer(q).setMessageListener(m -> {
            closer.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!ls.isClosed() && System.nanoTime() < deadline) {
                Thread.onSpinWait(); // close() has begun once the session says it is closed
            }
            closing.countDown();
        });
        assertThat(closing.await(10, TimeUnit.SECONDS)).isTrue();
        closer.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(closer.isAlive()).isFalse();
        assertThat(closeFailed.get()).isNull();
        // onMessage returned: the message is consumed, even though close() had begun
        MessageConsumer other = s.createConsumer(q);
        assertThat(other.receive(500)).isNull();
        assertThat(factory.broker().admin().queues().backlog("listener.closing"))
                .isZero();
    }

    @Test
    void setMessageListenerNull_stopsAsyncDelivery_andReceiveWorksAgain() throws Exception {
        Session s = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue q = s.createQueue("listener.remove");
        MessageProducer p = s.createProducer(q);
        Session ls = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer consumer = ls.createConsumer(q);
        Recorder listener = new Recorder();
        consumer.setMessageListener(listener);
        p.send(s.createTextMessage("m1"));
        assertThat(listener.next()).isEqualTo("m1");
        awaitDispatcherWaiting(ls);

        consumer.setMessageListener(null);
        for (int i = 2; i <= 4; i++) {
            p.send(s.createTextMessage("m" + i));
        }
        for (int i = 2; i <= 4; i++) {
            Message m = consumer.receive(10_000);
            assertThat(m).as("m%d", i).isNotNull();
            assertThat(((TextMessage) m).getText()).isEqualTo("m" + i);
            assertThat(m.getJMSRedelivered()).isFalse();
        }
        assertThat(listener.texts).isEmpty();
        assertThat(consumer.receiveNoWait()).isNull();
    }

    @Test
    void aListenerThrowingAnError_doesNotStopDelivery_andTheExceptionListenerIsTold() throws Exception {
        BlockingQueue<JMSException> told = new LinkedBlockingQueue<>();
        connection.setExceptionListener(told::add);
        Session s = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue q = s.createQueue("listener.error");
        MessageProducer p = s.createProducer(q);
        Session ls = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        BlockingQueue<String> got = new LinkedBlockingQueue<>();
        ls.createConsumer(q).setMessageListener(m -> {
            try {
                String text = ((TextMessage) m).getText();
                if (text.equals("boom") && !m.getJMSRedelivered()) {
                    throw new AssertionError("an Error from the listener");
                }
                got.add(text + (m.getJMSRedelivered() ? " (redelivered)" : ""));
            } catch (JMSException e) {
                throw new IllegalStateException(e);
            }
        });
        p.send(s.createTextMessage("boom"));
        p.send(s.createTextMessage("after"));
        List<String> texts = List.of(poll(got), poll(got));
        assertThat(texts).containsExactly("boom (redelivered)", "after");
        JMSException e = told.poll(10, TimeUnit.SECONDS);
        assertThat(e).isNotNull();
        assertThat(e.getMessage()).contains("listener.error").contains("AssertionError");
        assertThat(e.getCause()).isInstanceOf(AssertionError.class);
    }

    private static String poll(BlockingQueue<String> q) throws InterruptedException {
        String t = q.poll(10, TimeUnit.SECONDS);
        assertThat(t).as("a message within 10 s").isNotNull();
        return t;
    }

    /**
     * Until the session's listener thread waits for the next message (it holds the session while
     * it waits): the moment at which a listener chosen before the wait used to get the message.
     */
    private static void awaitDispatcherWaiting(Session session) {
        Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(2))
                .until(((ShardQSession) session).lock::isLocked);
    }

    /** Records the text of each message it gets. */
    static final class Recorder implements MessageListener {
        final BlockingQueue<String> texts = new LinkedBlockingQueue<>();

        @Override
        public void onMessage(Message m) {
            try {
                texts.add(((TextMessage) m).getText());
            } catch (JMSException e) {
                throw new IllegalStateException(e);
            }
        }

        String next() throws InterruptedException {
            String t = texts.poll(10, TimeUnit.SECONDS);
            assertThat(t).as("a message within 10 s").isNotNull();
            return t;
        }
    }
}
