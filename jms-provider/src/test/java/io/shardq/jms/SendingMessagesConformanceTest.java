package io.shardq.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.BrokerProperty;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import jakarta.jms.CompletionListener;
import jakarta.jms.Connection;
import jakarta.jms.DeliveryMode;
import jakarta.jms.InvalidDestinationException;
import jakarta.jms.InvalidDestinationRuntimeException;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.QueueBrowser;
import jakarta.jms.Session;
import jakarta.jms.TemporaryQueue;
import jakarta.jms.TemporaryTopic;
import jakarta.jms.Topic;
import jakarta.jms.TransactionRolledBackException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * JMS 3.1, chapter 7 "Sending messages": a delivery delay on a NON_PERSISTENT message (section
 * "Delivery delay": any message may have one; ShardQ holds it in the sending instance's memory),
 * what a CompletionListener may do (7.3.8: only close, commit and rollback of its own objects are
 * forbidden, so stop is allowed), and a send to a temporary destination whose connection closed
 * (InvalidDestinationException from every path).
 */
@PgTest
class SendingMessagesConformanceTest {
    static final long DEADLINE_MS = 30_000;

    private static ShardQConnectionFactory factory(TestDatabase db) {
        return new ShardQConnectionFactory(
                db.brokerConfig().set(BrokerProperty.SCHEDULE_POLL_MS, 50).build());
    }

    // ---------------------------------------------------------------- delivery delay, NON_PERSISTENT

    @Test
    void aNonPersistentMessageWithADelay_arrivesNoEarlierThanItsDeliveryTime_onAQueue_classicApi(TestDatabase db)
            throws Exception {
        try (ShardQConnectionFactory f = factory(db);
                Connection c = f.createConnection()) {
            c.start();
            Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Queue q = s.createQueue("conf.np.delay.q");
            MessageProducer p = s.createProducer(q);
            p.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
            p.setDeliveryDelay(700);
            Message sent = s.createTextMessage("later");
            p.send(sent);
            assertThat(sent.getJMSDeliveryTime()).isEqualTo(sent.getJMSTimestamp() + 700);
            MessageConsumer consumer = s.createConsumer(q);
            Message m = consumer.receive(DEADLINE_MS);
            long receivedAt = System.currentTimeMillis();
            assertThat(m).isNotNull();
            assertThat(m.getJMSDeliveryMode()).isEqualTo(DeliveryMode.NON_PERSISTENT);
            assertThat(receivedAt).isGreaterThanOrEqualTo(m.getJMSDeliveryTime() - DeliveryDelayJmsTest.CLOCK_SLACK_MS);
        }
    }

    @Test
    void aNonPersistentMessageWithADelay_reachesEverySubscriber_onATopic_simplifiedApi(TestDatabase db) {
        try (ShardQConnectionFactory f = factory(db);
                JMSContext ctx = f.createContext()) {
            Topic t = ctx.createTopic("conf.np.delay.t");
            JMSConsumer a = ctx.createConsumer(t);
            JMSConsumer b = ctx.createSharedConsumer(t, "shared");
            ctx.createProducer()
                    .setDeliveryMode(DeliveryMode.NON_PERSISTENT)
                    .setDeliveryDelay(500)
                    .send(t, "event");
            for (JMSConsumer consumer : List.of(a, b)) {
                Message m = consumer.receive(DEADLINE_MS);
                assertThat(m).isNotNull();
                assertThat(System.currentTimeMillis())
                        .isGreaterThanOrEqualTo(uncheckedDeliveryTime(m) - DeliveryDelayJmsTest.CLOCK_SLACK_MS);
            }
        }
    }

    private static long uncheckedDeliveryTime(Message m) {
        try {
            return m.getJMSDeliveryTime();
        } catch (jakarta.jms.JMSException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aHeldNonPersistentMessage_isScheduled_forStatsAndBrowsers_untilDue(TestDatabase db) throws Exception {
        try (ShardQConnectionFactory f = factory(db);
                Connection c = f.createConnection()) {
            Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Queue q = s.createQueue("conf.np.delay.held");
            MessageProducer p = s.createProducer(q);
            p.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
            p.setDeliveryDelay(TimeUnit.HOURS.toMillis(1)); // not due during the test
            p.send(s.createTextMessage("held"));
            p.setDeliveryDelay(0);
            p.send(s.createTextMessage("now"));
            assertThat(f.broker().admin().queues().stats("conf.np.delay.held").scheduled())
                    .isEqualTo(1);
            QueueBrowser browser = s.createBrowser(q);
            List<String> browsed = new ArrayList<>();
            for (Object o : Collections.list(browser.getEnumeration())) {
                browsed.add(((jakarta.jms.TextMessage) o).getText());
            }
            assertThat(browsed).containsExactly("now");
        }
    }

    // ---------------------------------------------------------------- CompletionListener (7.3.8)

    /** Runs {@code inListener} in the CompletionListener of an asynchronous send; what it threw, or null. */
    private static Throwable fromCompletion(MessageProducer p, Message m, ThrowingRunnable inListener)
            throws Exception {
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        p.send(m, new CompletionListener() {
            @Override
            public void onCompletion(Message message) {
                try {
                    inListener.run();
                    outcome.complete(null);
                } catch (Throwable t) {
                    outcome.complete(t);
                }
            }

            @Override
            public void onException(Message message, Exception exception) {
                outcome.completeExceptionally(exception);
            }
        });
        return outcome.get(DEADLINE_MS, TimeUnit.MILLISECONDS);
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    @Test
    void aCompletionListener_mayStopItsConnectionOrContext_butNotCloseThem(TestDatabase db) throws Exception {
        try (ShardQConnectionFactory f = factory(db);
                Connection c = f.createConnection()) {
            c.start();
            Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer p = s.createProducer(s.createQueue("conf.completion"));
            assertThat(fromCompletion(p, s.createTextMessage("1"), c::stop)).isNull();
            assertThat(fromCompletion(p, s.createTextMessage("2"), c::start)).isNull();
            assertThat(fromCompletion(p, s.createTextMessage("3"), c::close))
                    .isInstanceOf(jakarta.jms.IllegalStateException.class);
        }
        try (ShardQConnectionFactory f = factory(db);
                JMSContext ctx = f.createContext()) {
            Queue q = ctx.createQueue("conf.completion.ctx");
            CompletableFuture<Throwable> outcome = new CompletableFuture<>();
            ctx.createProducer()
                    .setAsync(new CompletionListener() {
                        @Override
                        public void onCompletion(Message message) {
                            try {
                                ctx.stop();
                                ctx.start();
                                ctx.close(); // forbidden: 7.3.8
                                outcome.complete(null);
                            } catch (Throwable t) {
                                outcome.complete(t);
                            }
                        }

                        @Override
                        public void onException(Message message, Exception exception) {
                            outcome.completeExceptionally(exception);
                        }
                    })
                    .send(q, "async");
            assertThat(outcome.get(DEADLINE_MS, TimeUnit.MILLISECONDS))
                    .as("stop and start pass, close is refused")
                    .isInstanceOf(jakarta.jms.IllegalStateRuntimeException.class)
                    .hasMessageContaining("must not close");
        }
    }

    // ---------------------------------------------------------------- closed temporary destinations

    @Test
    void aSendToATemporaryDestinationWhoseConnectionClosed_isInvalidDestination_fromEveryPath(TestDatabase db)
            throws Exception {
        try (ShardQConnectionFactory f = factory(db)) {
            sendsAfterTheOwnerClosed(f, f);
        }
    }

    /**
     * The owner in another instance: the sender's instance learns of the drop by NOTIFY, maybe only
     * after its send found the table gone (then PostgreSQL's "relation does not exist" must not reach
     * the application).
     */
    @Test
    void aSendToATemporaryDestinationOfAnotherInstance_whoseConnectionClosed_isInvalidDestination(TestDatabase db)
            throws Exception {
        try (ShardQConnectionFactory senders = factory(db);
                ShardQConnectionFactory owners = factory(db)) {
            sendsAfterTheOwnerClosed(senders, owners);
        }
    }

    private static void sendsAfterTheOwnerClosed(ShardQConnectionFactory f, ShardQConnectionFactory ownerFactory)
            throws Exception {
        try (Connection sender = f.createConnection()) {
            Connection owner = ownerFactory.createConnection();
            Session os = owner.createSession(false, Session.AUTO_ACKNOWLEDGE);
            TemporaryQueue tq = os.createTemporaryQueue();
            TemporaryTopic tt = os.createTemporaryTopic();
            Session plain = sender.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Session transacted = sender.createSession(true, Session.SESSION_TRANSACTED);
            MessageProducer toQueue = plain.createProducer(tq);
            MessageProducer toTopic = plain.createProducer(tt);
            MessageProducer anonymous = plain.createProducer(null);
            MessageProducer inTx = transacted.createProducer(tq);
            toQueue.send(plain.createTextMessage("while it exists")); // works, and caches what a send needs
            toTopic.send(plain.createTextMessage("while it exists"));
            owner.close();

            List<ThrowingRunnable> paths = List.of(
                    () -> toQueue.send(plain.createTextMessage("q")),
                    () -> toTopic.send(plain.createTextMessage("t")),
                    () -> anonymous.send(tq, plain.createTextMessage("anonymous q")),
                    () -> anonymous.send(tt, plain.createTextMessage("anonymous t")),
                    () -> plain.createProducer(tq).send(plain.createTextMessage("new producer")),
                    () -> {
                        inTx.send(transacted.createTextMessage("in a transaction"));
                        transacted.commit();
                    },
                    () -> {
                        Throwable t = fromCompletionFailure(toQueue, plain.createTextMessage("async"));
                        if (t != null) {
                            throw (Exception) t;
                        }
                    });
            for (int i = 0; i < paths.size(); i++) {
                ThrowingRunnable path = paths.get(i);
                if (i == 5) {
                    // in a transaction the send is held until the commit: when the sender's instance
                    // has not yet heard of the drop (NOTIFY is asynchronous), the send is accepted and
                    // the commit finds the table gone, and JMS says what a failed commit throws:
                    // TransactionRolledBackException, naming the cause. Either way nothing is sent.
                    assertThatThrownBy(path::run)
                            .as("path %d", i)
                            .satisfiesAnyOf(
                                    t -> assertThat(t).isInstanceOf(InvalidDestinationException.class),
                                    t -> assertThat(t)
                                            .isInstanceOf(TransactionRolledBackException.class)
                                            .hasMessageContaining("the destination no longer exists"))
                            .hasMessageNotContaining("relation")
                            .hasMessageNotContaining("shardq.m_");
                    transacted.rollback();
                    continue;
                }
                assertThatThrownBy(path::run)
                        .as("path %d", i)
                        .isInstanceOf(InvalidDestinationException.class)
                        .hasMessageNotContaining("relation")
                        .hasMessageNotContaining("shardq.m_");
            }
            try (JMSContext ctx = f.createContext()) {
                assertThatThrownBy(() -> ctx.createProducer().send(tq, "simplified"))
                        .isInstanceOf(InvalidDestinationRuntimeException.class)
                        .hasMessageNotContaining("relation");
                assertThatThrownBy(() -> ctx.createProducer().send(tt, "simplified"))
                        .isInstanceOf(InvalidDestinationRuntimeException.class);
            }
        }
    }

    /** The exception an asynchronous send reports (thrown by the send, or given to onException). */
    private static Throwable fromCompletionFailure(MessageProducer p, Message m) throws Exception {
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        p.send(m, new CompletionListener() {
            @Override
            public void onCompletion(Message message) {
                outcome.complete(null);
            }

            @Override
            public void onException(Message message, Exception exception) {
                outcome.complete(exception);
            }
        });
        return outcome.get(DEADLINE_MS, TimeUnit.MILLISECONDS);
    }
}
