package io.shardq.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import jakarta.jms.IllegalStateException;
import jakarta.jms.Queue;
import jakarta.jms.QueueBrowser;
import jakarta.jms.QueueConnection;
import jakarta.jms.QueueSession;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import jakarta.jms.Topic;
import jakarta.jms.TopicConnection;
import jakarta.jms.TopicSession;
import jakarta.jms.TopicSubscriber;
import java.util.Collections;
import java.util.Map;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/**
 * JMS 3.1, the legacy domain-specific interfaces (chapter 2, "Legacy domain-specific API"), as the
 * javadoc of QueueSession, TopicSession and QueueConnection specifies them: a QueueSession refuses
 * the topic methods it inherits from Session, a TopicSession the queue ones, and a QueueConnection
 * the durable and shared connection consumers, each with IllegalStateException; within their
 * domain they work as any session.
 */
@PgTest
class DomainSpecificInterfacesConformanceTest {

    @Test
    void aQueueSession_refusesEveryTopicMethod_withIllegalStateException(TestDatabase db) throws Exception {
        try (ShardQConnectionFactory f =
                        new ShardQConnectionFactory(db.brokerConfig().build());
                QueueConnection c = f.createQueueConnection()) {
            QueueSession s = c.createQueueSession(false, Session.AUTO_ACKNOWLEDGE);
            assertThat(s).isNotInstanceOf(TopicSession.class);
            Topic t = new ShardQTopic("domain.t");
            Map<String, ThrowingCallable> refused = new java.util.LinkedHashMap<>();
            refused.put("createTopic", () -> s.createTopic("domain.t"));
            refused.put("createTemporaryTopic", s::createTemporaryTopic);
            refused.put("createDurableSubscriber", () -> s.createDurableSubscriber(t, "d"));
            refused.put("createDurableSubscriber/4", () -> s.createDurableSubscriber(t, "d", null, false));
            refused.put("createDurableConsumer", () -> s.createDurableConsumer(t, "d"));
            refused.put("createDurableConsumer/4", () -> s.createDurableConsumer(t, "d", null, false));
            refused.put("createSharedConsumer", () -> s.createSharedConsumer(t, "s"));
            refused.put("createSharedConsumer/3", () -> s.createSharedConsumer(t, "s", null));
            refused.put("createSharedDurableConsumer", () -> s.createSharedDurableConsumer(t, "s"));
            refused.put("createSharedDurableConsumer/3", () -> s.createSharedDurableConsumer(t, "s", null));
            refused.put("unsubscribe", () -> s.unsubscribe("d"));
            refused.forEach((method, call) -> assertThatThrownBy(call)
                    .as(method)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("not available on a QueueSession"));
        }
    }

    @Test
    void aQueueSession_sendsReceivesAndBrowsesQueues(TestDatabase db) throws Exception {
        try (ShardQConnectionFactory f =
                        new ShardQConnectionFactory(db.brokerConfig().build());
                QueueConnection c = f.createQueueConnection()) {
            c.start();
            QueueSession s = c.createQueueSession(true, Session.SESSION_TRANSACTED);
            Queue q = s.createQueue("domain.q");
            s.createSender(q).send(s.createTextMessage("one"));
            s.commit();
            QueueBrowser browser = s.createBrowser(q);
            assertThat(Collections.list(browser.getEnumeration())).hasSize(1);
            browser.close();
            TextMessage m = (TextMessage) s.createReceiver(q).receive(30_000);
            assertThat(m.getText()).isEqualTo("one");
            s.commit();
            assertThat(s.createTemporaryQueue().getQueueName()).isNotBlank();
            assertThat(s.getTransacted()).isTrue();
            s.close();
            assertThatThrownBy(() -> s.createTopic("domain.t"))
                    .as("closed first")
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("closed");
        }
    }

    @Test
    void aTopicSession_refusesEveryQueueMethod_andPublishesAndSubscribes(TestDatabase db) throws Exception {
        try (ShardQConnectionFactory f =
                        new ShardQConnectionFactory(db.brokerConfig().build());
                TopicConnection c = f.createTopicConnection()) {
            c.setClientID("domain-topic-client");
            c.start();
            TopicSession s = c.createTopicSession(false, Session.AUTO_ACKNOWLEDGE);
            assertThat(s).isNotInstanceOf(QueueSession.class);
            Queue q = new ShardQQueue("domain.q");
            Map<String, ThrowingCallable> refused = new java.util.LinkedHashMap<>();
            refused.put("createQueue", () -> s.createQueue("domain.q"));
            refused.put("createTemporaryQueue", s::createTemporaryQueue);
            refused.put("createBrowser", () -> s.createBrowser(q));
            refused.put("createBrowser/2", () -> s.createBrowser(q, "a = 1"));
            refused.forEach((method, call) -> assertThatThrownBy(call)
                    .as(method)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("not available on a TopicSession"));

            Topic t = s.createTopic("domain.topic");
            TopicSubscriber durable = s.createDurableSubscriber(t, "d");
            TopicSubscriber plain = s.createSubscriber(t);
            s.createPublisher(t).publish(s.createTextMessage("event"));
            assertThat(((TextMessage) durable.receive(30_000)).getText()).isEqualTo("event");
            assertThat(((TextMessage) plain.receive(30_000)).getText()).isEqualTo("event");
            durable.close();
            s.unsubscribe("d");
        }
    }

    @Test
    void aQueueConnection_refusesTopicSessionsAndTopicConnectionConsumers_andATopicConnectionQueueSessions(
            TestDatabase db) throws Exception {
        try (ShardQConnectionFactory f =
                        new ShardQConnectionFactory(db.brokerConfig().build());
                QueueConnection qc = f.createQueueConnection();
                TopicConnection tc = f.createTopicConnection()) {
            Topic t = new ShardQTopic("domain.t");
            ShardQConnection shardq = (ShardQConnection) qc;
            assertThatThrownBy(() -> shardq.createTopicSession(false, Session.AUTO_ACKNOWLEDGE))
                    .isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> qc.createDurableConnectionConsumer(t, "d", null, null, 1))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("QueueConnection");
            assertThatThrownBy(() -> qc.createSharedConnectionConsumer(t, "s", null, null, 1))
                    .isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> qc.createSharedDurableConnectionConsumer(t, "s", null, null, 1))
                    .isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> ((ShardQConnection) tc).createQueueSession(false, Session.AUTO_ACKNOWLEDGE))
                    .isInstanceOf(IllegalStateException.class);
            // the unified connection keeps both: a JMS 2 Session from createSession is not restricted
            Session unified = qc.createSession();
            assertThat(unified.createTopic("domain.t").getTopicName()).isEqualTo("domain.t");
        }
    }
}
