package io.shardq.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.BrokerProperty;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import jakarta.jms.Connection;
import jakarta.jms.IllegalStateException;
import jakarta.jms.InvalidDestinationException;
import jakarta.jms.InvalidSelectorException;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import jakarta.jms.Topic;
import jakarta.jms.TopicConnection;
import jakarta.jms.TopicPublisher;
import jakarta.jms.TopicSession;
import jakarta.jms.TopicSubscriber;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Publish/subscribe through the JMS API: durable, shared and non-durable subscriptions. */
@PgTest
class JmsTopicTest {
    ShardQConnectionFactory factory;
    ShardQConnectionFactory otherInstance;
    TestDatabase db;

    @BeforeEach
    void start(TestDatabase db) {
        this.db = db;
        factory = new ShardQConnectionFactory(
                db.brokerConfig().set(BrokerProperty.HEARTBEAT_MS, 200).build());
        otherInstance = new ShardQConnectionFactory(
                db.brokerConfig().set(BrokerProperty.HEARTBEAT_MS, 200).build());
    }

    @AfterEach
    void stop() {
        factory.close();
        otherInstance.close();
    }

    static void publish(Connection c, String topic, String prefix, int n) throws JMSException {
        try (Session s = c.createSession(true, Session.SESSION_TRANSACTED)) {
            MessageProducer p = s.createProducer(s.createTopic(topic));
            for (int i = 0; i < n; i++) {
                TextMessage m = s.createTextMessage(prefix + i);
                m.setIntProperty("n", i);
                p.send(m);
            }
            s.commit();
        }
    }

    static List<String> drain(MessageConsumer c) throws JMSException {
        List<String> got = new ArrayList<>();
        Message m;
        while ((m = c.receive(1000)) != null) {
            got.add(((TextMessage) m).getText());
        }
        return got;
    }

    @Test
    void aDurableSubscriber_getsWhatWasPublishedWhileItWasAway() throws Exception {
        try (Connection c = factory.createConnection()) {
            c.setClientID("audit");
            c.start();
            Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Topic topic = s.createTopic("jt.durable");
            s.createDurableConsumer(topic, "trail").close();
            publish(c, "jt.durable", "away", 3);
        }
        try (Connection c = otherInstance.createConnection()) {
            c.setClientID("audit"); // free again the moment the first connection closed
            c.start();
            Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer back = s.createDurableConsumer(s.createTopic("jt.durable"), "trail");
            assertThat(drain(back)).containsExactly("away0", "away1", "away2");
            assertThatThrownBy(() -> s.unsubscribe("trail"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("active consumer");
            back.close();
            s.unsubscribe("trail");
            assertThatThrownBy(() -> s.unsubscribe("trail")).isInstanceOf(InvalidDestinationException.class);
        }
    }

    @Test
    void anUnsharedDurableSubscription_needsAClientId_andHasOneConsumer() throws Exception {
        try (Connection c = factory.createConnection();
                Connection other = otherInstance.createConnection()) {
            Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Topic topic = s.createTopic("jt.one");
            assertThatThrownBy(() -> s.createDurableConsumer(topic, "x"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("client id");
            assertThatThrownBy(() -> c.setClientID("late")).isInstanceOf(IllegalStateException.class);
            other.setClientID("solo");
            Session os = other.createSession(false, Session.AUTO_ACKNOWLEDGE);
            os.createDurableConsumer(topic, "x");
            assertThatThrownBy(() -> os.createDurableConsumer(topic, "x"))
                    .isInstanceOf(JMSException.class)
                    .hasMessageContaining("active consumer");
        }
    }

    @Test
    void aSharedDurableSubscription_givesEachMessageToOneOfItsConsumers_acrossInstances() throws Exception {
        int n = 400;
        List<String> got = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch all = new CountDownLatch(n);
        List<Connection> connections = new ArrayList<>();
        try {
            for (int i = 0; i < 4; i++) {
                Connection c = (i % 2 == 0 ? factory : otherInstance).createConnection();
                connections.add(c);
                Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                s.createSharedDurableConsumer(s.createTopic("jt.shared"), "workers")
                        .setMessageListener(m -> {
                            try {
                                got.add(((TextMessage) m).getText());
                            } catch (JMSException e) {
                                throw new RuntimeException(e);
                            }
                            all.countDown();
                        });
                c.start();
            }
            try (Connection p = factory.createConnection()) {
                publish(p, "jt.shared", "w", n);
            }
            assertThat(all.await(60, TimeUnit.SECONDS))
                    .as("received %s of %s", got.size(), n)
                    .isTrue();
        } finally {
            for (Connection c : connections) {
                c.close();
            }
        }
        assertThat(got).hasSize(n).doesNotHaveDuplicates();
    }

    @Test
    void nonDurableSubscribers_inTwoInstances_getWhatIsPublishedWhileTheyExist() throws Exception {
        try (Connection a = factory.createConnection();
                Connection b = otherInstance.createConnection();
                Connection p = factory.createConnection()) {
            a.start();
            b.start();
            Session sa = a.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Session sb = b.createSession(false, Session.AUTO_ACKNOWLEDGE);
            publish(p, "jt.live", "before", 2); // nobody listens yet: not stored for anyone
            MessageConsumer ca = sa.createConsumer(sa.createTopic("jt.live"));
            MessageConsumer cb = sb.createConsumer(sb.createTopic("jt.live"), "n >= 1");
            publish(p, "jt.live", "during", 3);
            assertThat(drain(ca)).containsExactly("during0", "during1", "during2");
            assertThat(drain(cb)).containsExactly("during1", "during2");
            ca.close();
            cb.close();
            publish(p, "jt.live", "after", 2);
            MessageConsumer again = sa.createConsumer(sa.createTopic("jt.live"));
            assertThat(again.receive(300)).isNull();
        }
    }

    @Test
    void noLocal_andTheClassicTopicApi() throws Exception {
        try (TopicConnection mine = factory.createTopicConnection();
                TopicConnection theirs = otherInstance.createTopicConnection()) {
            mine.start();
            TopicSession s = mine.createTopicSession(false, Session.AUTO_ACKNOWLEDGE);
            Topic topic = s.createTopic("jt.classic");
            TopicSubscriber sub = s.createSubscriber(topic, null, true);
            assertThat(sub.getNoLocal()).isTrue();
            assertThat(sub.getTopic()).isEqualTo(topic);
            TopicPublisher own = s.createPublisher(topic);
            own.publish(s.createTextMessage("own"));
            TopicSession ts = theirs.createTopicSession(false, Session.AUTO_ACKNOWLEDGE);
            ts.createPublisher(ts.createTopic("jt.classic")).publish(ts.createTextMessage("foreign"));
            Message m = sub.receive(2000);
            assertThat(((TextMessage) m).getText()).isEqualTo("foreign");
            assertThat(m.getJMSDestination()).isEqualTo(topic);
            assertThat(sub.receive(300)).isNull();
        }
    }

    @Test
    void changingADurableSubscriptionsSelector_startsANewOne() throws Exception {
        try (JMSContext ctx = factory.createContext()) {
            ctx.setClientID("changer");
            Topic topic = ctx.createTopic("jt.change");
            ctx.createDurableConsumer(topic, "s").close();
            try (Connection p = otherInstance.createConnection()) {
                publish(p, "jt.change", "old", 3);
            }
            var c = ctx.createDurableConsumer(topic, "s", "n = 1", false);
            assertThat(c.receive(300))
                    .as("the old subscription's messages went with it")
                    .isNull();
            try (Connection p = otherInstance.createConnection()) {
                publish(p, "jt.change", "new", 3);
            }
            assertThat(c.receiveBody(String.class, 2000)).isEqualTo("new1");
            assertThat(c.receive(300)).isNull();
            c.close();
            ctx.unsubscribe("s");
        }
    }

    @Test
    void badInput_isRefusedWithTheRightException() throws Exception {
        try (Connection c = factory.createConnection()) {
            Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            s.createProducer(s.createQueue("jt.aqueue")).send(s.createTextMessage("q"));
            Topic notATopic = s.createTopic("jt.aqueue");
            assertThatThrownBy(() -> s.createProducer(notATopic))
                    .isInstanceOf(InvalidDestinationException.class)
                    .hasMessageContaining("is a queue, not a topic");
            assertThatThrownBy(() -> s.createConsumer(notATopic)).isInstanceOf(InvalidDestinationException.class);
            Topic t = s.createTopic("jt.bad");
            assertThatThrownBy(() -> s.createSharedConsumer(t, "x", "n >"))
                    .isInstanceOf(InvalidSelectorException.class);
            assertThatThrownBy(() -> s.createSharedDurableConsumer(t, null))
                    .isInstanceOf(InvalidDestinationException.class);
            assertThatThrownBy(() -> s.createTopic("bad name")).isInstanceOf(InvalidDestinationException.class);
        }
    }
}
