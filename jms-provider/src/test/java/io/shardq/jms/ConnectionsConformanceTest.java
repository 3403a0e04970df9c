package io.shardq.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.BrokerProperty;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import jakarta.jms.Connection;
import jakarta.jms.IllegalStateRuntimeException;
import jakarta.jms.InvalidClientIDException;
import jakarta.jms.InvalidClientIDRuntimeException;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import jakarta.jms.Topic;
import java.util.Collections;
import org.junit.jupiter.api.Test;

/**
 * JMS 3.1, chapter "Connecting to a JMS provider": the client identifier configured on the
 * connection factory (section "Client identifier": "the preferred way"; setClientID on such a
 * connection throws IllegalStateException), and ConnectionMetaData's list of the JMSX properties
 * the provider supports (section "ConnectionMetaData").
 */
@PgTest
class ConnectionsConformanceTest {

    private static ShardQConnectionFactory factory(TestDatabase db, String clientId) {
        return new ShardQConnectionFactory(
                db.brokerConfig().set(BrokerProperty.JMS_CLIENT_ID, clientId).build());
    }

    @Test
    void anAdministeredClientId_isCarriedFromTheStart_andSetClientIdIsRefused(TestDatabase db) throws Exception {
        try (ShardQConnectionFactory f = factory(db, "admin-1")) {
            assertThat(f.getClientID()).isEqualTo("admin-1");
            try (Connection c = f.createConnection()) {
                assertThat(c.getClientID()).isEqualTo("admin-1");
                assertThatThrownBy(() -> c.setClientID("other"))
                        .isInstanceOf(jakarta.jms.IllegalStateException.class)
                        .hasMessageContaining("\"admin-1\", configured on its connection factory");
                assertThatThrownBy(() -> c.setClientID("admin-1"))
                        .isInstanceOf(jakarta.jms.IllegalStateException.class);
                assertThat(c.getClientID()).isEqualTo("admin-1");
            }
            try (JMSContext ctx = f.createContext()) {
                assertThat(ctx.getClientID()).isEqualTo("admin-1");
                assertThatThrownBy(() -> ctx.setClientID("other")).isInstanceOf(IllegalStateRuntimeException.class);
            }
        }
    }

    @Test
    void theSetter_configuresTheId_andNoIdLeavesSetClientIdToTheApplication(TestDatabase db) throws Exception {
        try (ShardQConnectionFactory f =
                new ShardQConnectionFactory(db.brokerConfig().build())) {
            assertThat(f.getClientID()).isNull();
            try (Connection c = f.createConnection()) {
                assertThat(c.getClientID()).isNull();
                c.setClientID("by-application");
                assertThat(c.getClientID()).isEqualTo("by-application");
            }
            f.setClientID("by-setter");
            try (Connection c = f.createConnection()) {
                assertThat(c.getClientID()).isEqualTo("by-setter");
                assertThatThrownBy(() -> c.setClientID("x")).isInstanceOf(jakarta.jms.IllegalStateException.class);
            }
            f.setClientID(" ");
            try (Connection c = f.createConnection()) {
                assertThat(c.getClientID()).isNull();
            }
        }
    }

    @Test
    void anAdministeredClientId_isUniqueAcrossInstances_asAnyClientId(TestDatabase db) throws Exception {
        try (ShardQConnectionFactory one = factory(db, "unique-1");
                ShardQConnectionFactory other = factory(db, "unique-1")) {
            Connection first = one.createConnection();
            assertThatThrownBy(one::createConnection)
                    .as("the same factory")
                    .isInstanceOf(InvalidClientIDException.class)
                    .hasMessageContaining("unique-1");
            assertThatThrownBy(other::createConnection)
                    .as("another instance")
                    .isInstanceOf(InvalidClientIDException.class);
            assertThatThrownBy(other::createContext).isInstanceOf(InvalidClientIDRuntimeException.class);
            try (Connection c = first) {
                assertThat(c.getClientID()).isEqualTo("unique-1");
            }
            try (Connection c = other.createConnection()) {
                assertThat(c.getClientID()).as("free once the first closed").isEqualTo("unique-1");
            }
        }
    }

    @Test
    void durableSubscribers_throughAFactoryWithAClientId_justWork_classicAndSimplified(TestDatabase db)
            throws Exception {
        try (ShardQConnectionFactory f = factory(db, "durable-app")) {
            try (Connection c = f.createConnection()) {
                Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                Topic t = s.createTopic("conf.clientid.t");
                s.createDurableSubscriber(t, "sub").close(); // the subscription exists from here
            }
            try (JMSContext ctx = f.createContext()) {
                ctx.createProducer().send(ctx.createTopic("conf.clientid.t"), "while away");
            }
            try (Connection c = f.createConnection()) {
                c.start();
                Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                MessageConsumer sub = s.createDurableSubscriber(s.createTopic("conf.clientid.t"), "sub");
                TextMessage m = (TextMessage) sub.receive(30_000);
                assertThat(m).isNotNull();
                assertThat(m.getText()).isEqualTo("while away");
                sub.close();
                s.unsubscribe("sub");
            }
            try (JMSContext ctx = f.createContext()) {
                Topic t = ctx.createTopic("conf.clientid.t");
                JMSConsumer durable = ctx.createDurableConsumer(t, "sub2");
                ctx.createProducer().send(t, "simplified");
                assertThat(durable.receiveBody(String.class, 30_000)).isEqualTo("simplified");
                durable.close();
                ctx.unsubscribe("sub2");
            }
        }
    }

    @Test
    void connectionMetaData_listsTheSupportedJmsxProperties(TestDatabase db) throws Exception {
        try (ShardQConnectionFactory f =
                        new ShardQConnectionFactory(db.brokerConfig().build());
                Connection c = f.createConnection();
                JMSContext ctx = f.createContext()) {
            assertThat(Collections.list(c.getMetaData().getJMSXPropertyNames()))
                    .containsExactlyInAnyOrder("JMSXDeliveryCount", "JMSXGroupID", "JMSXGroupSeq", "JMSXUserID");
            assertThat(Collections.list(ctx.getMetaData().getJMSXPropertyNames()))
                    .contains("JMSXUserID");
        }
    }
}
