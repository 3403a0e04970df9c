package io.shardq.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.BrokerProperty;
import io.shardq.broker.testing.ChildJvm;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import jakarta.jms.Connection;
import jakarta.jms.IllegalStateException;
import jakarta.jms.InvalidDestinationException;
import jakarta.jms.InvalidDestinationRuntimeException;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.QueueSession;
import jakarta.jms.Session;
import jakarta.jms.TemporaryQueue;
import jakarta.jms.TemporaryTopic;
import jakarta.jms.TextMessage;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Temporary queues and topics: lifecycle, who may consume and delete, request/reply across
 * instances, and the clean-up after an instance is killed.
 */
@PgTest
class TemporaryDestinationTest {

    @Test
    void temporaryQueue_lifecycle_sendReceiveDeleteAndConnectionClose(TestDatabase db) throws Exception {
        try (ShardQConnectionFactory f =
                        new ShardQConnectionFactory(db.brokerConfig().build());
                Connection owner = f.createConnection();
                Connection other = f.createConnection()) {
            owner.start();
            other.start();
            Session s = owner.createSession(false, Session.AUTO_ACKNOWLEDGE);
            TemporaryQueue tq = s.createTemporaryQueue();
            assertThat(tq.getQueueName()).startsWith("tmp.").matches("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");
            assertThat(s.createTemporaryQueue().getQueueName()).isNotEqualTo(tq.getQueueName());
            assertThat(exists(db, tq.getQueueName())).isTrue();

            // any connection may send to it; the reply-to comes back as a temporary queue
            Session os = other.createSession(false, Session.AUTO_ACKNOWLEDGE);
            TextMessage m = os.createTextMessage("from other");
            m.setJMSReplyTo(tq);
            os.createProducer(tq).send(m);
            MessageConsumer c = s.createConsumer(tq);
            Message got = c.receive(5_000);
            assertThat(((TextMessage) got).getText()).isEqualTo("from other");
            assertThat(got.getJMSReplyTo()).isInstanceOf(TemporaryQueue.class).isEqualTo(tq);

            // only its own connection consumes or browses it
            assertThatThrownBy(() -> os.createConsumer(tq))
                    .isInstanceOf(InvalidDestinationException.class)
                    .hasMessageContaining(tq.getQueueName())
                    .hasMessageContaining("belongs to another connection");
            assertThatThrownBy(() -> os.createBrowser(tq)).isInstanceOf(InvalidDestinationException.class);
            assertThatThrownBy(() -> os.createConsumer(os.createQueue(tq.getQueueName())))
                    .as("by name too")
                    .isInstanceOf(InvalidDestinationException.class);

            // delete() refused while a consumer is open, then drops table and catalog row
            assertThatThrownBy(tq::delete)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("1 consumer(s)");
            c.close();
            tq.delete();
            assertThat(exists(db, tq.getQueueName())).isFalse();
            assertThat(tableOf(db, tq.getQueueName())).isFalse();
            tq.delete(); // again: nothing to do
            assertThatThrownBy(() -> os.createProducer(tq).send(os.createTextMessage("late")))
                    .isInstanceOf(InvalidDestinationException.class)
                    .hasMessageContaining("does not exist");

            // closing the connection deletes the ones left
            Connection third = f.createConnection();
            QueueSession qs = (QueueSession) third.createSession(false, Session.AUTO_ACKNOWLEDGE);
            TemporaryQueue left = qs.createTemporaryQueue();
            TemporaryTopic topic = qs.createTemporaryTopic();
            qs.createProducer(left).send(qs.createTextMessage("never read"));
            assertThat(exists(db, left.getQueueName())).isTrue();
            assertThat(exists(db, topic.getTopicName())).isTrue();
            third.close();
            assertThat(exists(db, left.getQueueName())).isFalse();
            assertThat(exists(db, topic.getTopicName())).isFalse();
            assertThat(tableOf(db, left.getQueueName())).isFalse();
        }
    }

    @Test
    void aTemporaryTopic_isPublishedToFromAnywhere_andSubscribedOnlyByItsConnection(TestDatabase db) throws Exception {
        try (ShardQConnectionFactory f =
                        new ShardQConnectionFactory(db.brokerConfig().build());
                ShardQConnectionFactory other =
                        new ShardQConnectionFactory(db.brokerConfig().build());
                Connection owner = f.createConnection();
                Connection elsewhere = other.createConnection()) {
            owner.start();
            Session s = owner.createSession(false, Session.AUTO_ACKNOWLEDGE);
            TemporaryTopic topic = s.createTemporaryTopic();
            jakarta.jms.MessageConsumer one = s.createConsumer(topic);
            jakarta.jms.MessageConsumer two = s.createConsumer(topic);
            Session os = elsewhere.createSession(false, Session.AUTO_ACKNOWLEDGE);
            os.createProducer(topic).send(os.createTextMessage("news"));
            assertThat(((TextMessage) one.receive(5000)).getText()).isEqualTo("news");
            assertThat(((TextMessage) two.receive(5000)).getText()).isEqualTo("news");
            assertThatThrownBy(() -> os.createConsumer(topic)).isInstanceOf(InvalidDestinationException.class);
            assertThatThrownBy(() -> s.createSharedConsumer(topic, "x"))
                    .isInstanceOf(InvalidDestinationException.class)
                    .hasMessageContaining("non-durable");
            assertThatThrownBy(topic::delete).isInstanceOf(jakarta.jms.IllegalStateException.class);
            one.close();
            two.close();
            topic.delete();
            assertThat(exists(db, topic.getTopicName())).isFalse();
        }
    }

    @Test
    void decodedReplyTo_isTemporary_butOnlyItsCreatorDeletesIt(TestDatabase db) throws Exception {
        try (ShardQConnectionFactory f =
                        new ShardQConnectionFactory(db.brokerConfig().build());
                Connection owner = f.createConnection();
                Connection other = f.createConnection()) {
            owner.start();
            other.start();
            Session s = owner.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Session os = other.createSession(false, Session.AUTO_ACKNOWLEDGE);
            TemporaryQueue tq = s.createTemporaryQueue();
            TemporaryTopic tt = s.createTemporaryTopic();
            Queue requests = s.createQueue("requests");
            for (var replyTo : List.of(tq, tt)) {
                Message m = s.createTextMessage("ask");
                m.setJMSReplyTo(replyTo);
                s.createProducer(requests).send(m);
            }
            MessageConsumer c = os.createConsumer(requests);
            Message first = c.receive(5_000);
            Message second = c.receive(5_000);
            assertThat(first.getJMSReplyTo()).isInstanceOf(TemporaryQueue.class).isEqualTo(tq);
            assertThat(second.getJMSReplyTo())
                    .isInstanceOf(TemporaryTopic.class)
                    .isEqualTo(tt);
            TemporaryQueue decoded = (TemporaryQueue) first.getJMSReplyTo();
            assertThatThrownBy(decoded::delete)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("only through the object its connection created");
            assertThatThrownBy(((TemporaryTopic) second.getJMSReplyTo())::delete)
                    .isInstanceOf(IllegalStateException.class);
            assertThat(exists(db, tq.getQueueName())).isTrue();
            tt.delete();
            assertThat(exists(db, tt.getTopicName())).isFalse();
        }
    }

    @Test
    void jmsContext_temporaryQueue_goesWithTheContext(TestDatabase db) throws Exception {
        try (ShardQConnectionFactory f =
                new ShardQConnectionFactory(db.brokerConfig().build())) {
            TemporaryQueue tq;
            try (JMSContext ctx = f.createContext()) {
                tq = ctx.createTemporaryQueue();
                ctx.createProducer().send(tq, "hi");
                try (JMSConsumer c = ctx.createConsumer(tq)) {
                    assertThat(c.receiveBody(String.class, 5_000)).isEqualTo("hi");
                }
                try (JMSContext other = f.createContext()) {
                    assertThatThrownBy(() -> other.createConsumer(tq))
                            .isInstanceOf(InvalidDestinationRuntimeException.class);
                    other.createProducer().send(tq, "from another context"); // sending is fine
                }
                TemporaryTopic tt = ctx.createTemporaryTopic();
                assertThat(exists(db, tt.getTopicName())).isTrue();
            }
            assertThat(exists(db, tq.getQueueName())).isFalse();
        }
    }

    @Test
    void aUserWithoutGrants_usesItsOwnTemporaryQueue_andAnyUserMaySendToIt(TestDatabase db) throws Exception {
        String role = "tmpuser_" + java.util.UUID.randomUUID().toString().substring(0, 8);
        String password = "pw-" + java.util.UUID.randomUUID();
        try (var c = db.connect();
                var st = c.createStatement()) {
            st.execute("CREATE ROLE \"" + role + "\" LOGIN PASSWORD '" + password + "'");
        }
        try (ShardQConnectionFactory f =
                        new ShardQConnectionFactory(db.brokerConfig().build());
                Connection mine = f.createConnection(role, password);
                Connection theirs = f.createConnection(role, password)) {
            mine.start();
            Session s = mine.createSession(false, Session.AUTO_ACKNOWLEDGE);
            TemporaryQueue tq = s.createTemporaryQueue();
            Session ts = theirs.createSession(false, Session.AUTO_ACKNOWLEDGE);
            ts.createProducer(tq).send(ts.createTextMessage("no grant needed to reply"));
            assertThat(((TextMessage) s.createConsumer(tq).receive(5_000)).getText())
                    .isEqualTo("no grant needed to reply");
            assertThat(s.createBrowser(tq).getEnumeration().hasMoreElements()).isFalse();
            assertThatThrownBy(() -> ts.createConsumer(tq)).isInstanceOf(InvalidDestinationException.class);
        } finally {
            try (var c = db.connect();
                    var st = c.createStatement()) {
                st.execute("DROP OWNED BY \"" + role + "\"");
                st.execute("DROP ROLE \"" + role + "\"");
            }
        }
    }

    @Test
    void requestReply_acrossTwoInstances(TestDatabase db) throws Exception {
        try (ShardQConnectionFactory requesterSide =
                        new ShardQConnectionFactory(db.brokerConfig().build());
                ShardQConnectionFactory responderSide =
                        new ShardQConnectionFactory(db.brokerConfig().build());
                Connection requester = requesterSide.createConnection();
                Connection responder = responderSide.createConnection()) {
            assertThat(requesterSide.broker().instanceId())
                    .isNotEqualTo(responderSide.broker().instanceId());
            requester.start();
            responder.start();
            Session rs = responder.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer serve = rs.createConsumer(rs.createQueue("service"));
            MessageProducer replies = rs.createProducer(null);
            CompletableFuture<Integer> served = CompletableFuture.supplyAsync(() -> {
                int n = 0;
                try {
                    for (Message request; n < 5 && (request = serve.receive(30_000)) != null; n++) {
                        TextMessage reply = rs.createTextMessage("re: " + ((TextMessage) request).getText());
                        reply.setJMSCorrelationID(request.getJMSMessageID());
                        assertThat(request.getJMSReplyTo()).isInstanceOf(TemporaryQueue.class);
                        replies.send(request.getJMSReplyTo(), reply);
                    }
                } catch (Exception e) {
                    throw new java.util.concurrent.CompletionException(e);
                }
                return n;
            });

            Session qs = requester.createSession(false, Session.AUTO_ACKNOWLEDGE);
            TemporaryQueue replyTo = qs.createTemporaryQueue();
            MessageConsumer answers = qs.createConsumer(replyTo);
            MessageProducer ask = qs.createProducer(qs.createQueue("service"));
            for (int i = 0; i < 5; i++) {
                TextMessage request = qs.createTextMessage("q" + i);
                request.setJMSReplyTo(replyTo);
                ask.send(request);
                Message reply = answers.receive(30_000);
                assertThat(reply).as("reply " + i).isNotNull();
                assertThat(((TextMessage) reply).getText()).isEqualTo("re: q" + i);
                assertThat(reply.getJMSCorrelationID()).isEqualTo(request.getJMSMessageID());
            }
            assertThat(served.get(30, TimeUnit.SECONDS)).isEqualTo(5);
        }
    }

    @Test
    @Tag("fault")
    void temporaryQueueOfAKilledInstance_isDroppedByTheLeader(TestDatabase db) throws Exception {
        try (ShardQConnectionFactory survivor = new ShardQConnectionFactory(db.brokerConfig()
                .set(BrokerProperty.HEARTBEAT_MS, 200)
                .set(BrokerProperty.LEASE_TTL_MS, 2000)
                .build())) {
            survivor.broker(); // started, so it can lead
            try (ChildJvm victim = ChildJvm.start(
                    TemporaryQueueAndHangMain.class,
                    db.jdbcUrl(),
                    db.user(),
                    db.password() == null ? "" : db.password())) {
                String line = victim.awaitLine("CREATED ");
                assertThat(line).startsWith("CREATED tmp.");
                String name = line.substring("CREATED ".length());
                assertThat(exists(db, name)).isTrue();
                victim.kill(); // SIGKILL: nothing cleans up

                Awaitility.await()
                        .atMost(Duration.ofMinutes(1))
                        .pollInterval(Duration.ofMillis(200))
                        .until(() -> !exists(db, name));
                assertThat(tableOf(db, name)).isFalse();
            }
        }
    }

    /** The catalog row of destination {@code name} exists. */
    static boolean exists(TestDatabase db, String name) throws Exception {
        try (var c = db.connect();
                PreparedStatement ps = c.prepareStatement("select count(*) from shardq.destination where name = ?")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1) > 0;
            }
        }
    }

    /** Some message table of a destination named {@code name} exists (by its table comment). */
    static boolean tableOf(TestDatabase db, String name) throws Exception {
        try (var c = db.connect();
                PreparedStatement ps = c.prepareStatement("select count(*) from pg_class"
                        + " where relnamespace = 'shardq'::regnamespace and obj_description(oid, 'pg_class') like ?")) {
            ps.setString(1, "messages of % " + name);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1) > 0;
            }
        }
    }
}
