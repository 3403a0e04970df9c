package io.shardq.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import jakarta.jms.Connection;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSProducer;
import jakarta.jms.MapMessage;
import jakarta.jms.Message;
import jakarta.jms.MessageFormatException;
import jakarta.jms.ObjectMessage;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Hashtable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Vector;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/**
 * JMS 3.1, chapter 3 "JMS message model": property names (3.5.1 "Property names": an identifier
 * of the selector syntax, so never null, empty, NULL, TRUE or FALSE; JMSX names are the
 * provider's), the JMS-defined property JMSXUserID (3.5.9 "JMS defined properties": set by the
 * provider on send) and the ObjectMessage body (section "ObjectMessage": which classes ShardQ
 * deserialises, set by the setting shardq.jms.object-message.allow).
 */
@PgTest
class MessagesConformanceTest {

    // ---------------------------------------------------------------- property names

    private static Map<String, ThrowingCallable> everyPropertySetter(Message m, String name) {
        Map<String, ThrowingCallable> calls = new LinkedHashMap<>();
        calls.put("setBooleanProperty", () -> m.setBooleanProperty(name, true));
        calls.put("setByteProperty", () -> m.setByteProperty(name, (byte) 1));
        calls.put("setShortProperty", () -> m.setShortProperty(name, (short) 1));
        calls.put("setIntProperty", () -> m.setIntProperty(name, 1));
        calls.put("setLongProperty", () -> m.setLongProperty(name, 1L));
        calls.put("setFloatProperty", () -> m.setFloatProperty(name, 1f));
        calls.put("setDoubleProperty", () -> m.setDoubleProperty(name, 1d));
        calls.put("setStringProperty", () -> m.setStringProperty(name, "v"));
        calls.put("setObjectProperty", () -> m.setObjectProperty(name, "v"));
        calls.put("setObjectProperty(null value)", () -> m.setObjectProperty(name, null));
        return calls;
    }

    private static Map<String, ThrowingCallable> everyProducerSetter(JMSProducer p, String name) {
        Map<String, ThrowingCallable> calls = new LinkedHashMap<>();
        calls.put("boolean", () -> p.setProperty(name, true));
        calls.put("byte", () -> p.setProperty(name, (byte) 1));
        calls.put("short", () -> p.setProperty(name, (short) 1));
        calls.put("int", () -> p.setProperty(name, 1));
        calls.put("long", () -> p.setProperty(name, 1L));
        calls.put("float", () -> p.setProperty(name, 1f));
        calls.put("double", () -> p.setProperty(name, 1d));
        calls.put("String", () -> p.setProperty(name, "v"));
        calls.put("Object", () -> p.setProperty(name, (Object) "v"));
        return calls;
    }

    private static Map<String, ThrowingCallable> everyMapSetter(MapMessage m, String name) {
        Map<String, ThrowingCallable> calls = new LinkedHashMap<>();
        calls.put("setBoolean", () -> m.setBoolean(name, true));
        calls.put("setByte", () -> m.setByte(name, (byte) 1));
        calls.put("setShort", () -> m.setShort(name, (short) 1));
        calls.put("setChar", () -> m.setChar(name, 'c'));
        calls.put("setInt", () -> m.setInt(name, 1));
        calls.put("setLong", () -> m.setLong(name, 1L));
        calls.put("setFloat", () -> m.setFloat(name, 1f));
        calls.put("setDouble", () -> m.setDouble(name, 1d));
        calls.put("setString", () -> m.setString(name, "v"));
        calls.put("setBytes", () -> m.setBytes(name, new byte[1]));
        calls.put("setBytes/3", () -> m.setBytes(name, new byte[1], 0, 1));
        calls.put("setObject", () -> m.setObject(name, "v"));
        return calls;
    }

    @Test
    void everySetter_withANullOrEmptyName_throwsIllegalArgumentException_classicAndSimplified(TestDatabase db)
            throws Exception {
        try (ShardQConnectionFactory f =
                        new ShardQConnectionFactory(db.brokerConfig().build());
                JMSContext ctx = f.createContext()) {
            for (String name : new String[] {null, ""}) {
                Message m = ctx.createMessage();
                everyPropertySetter(m, name).forEach((setter, call) -> assertThatThrownBy(call)
                        .as("%s(%s)", setter, name)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("property name must not be null or empty"));
                everyProducerSetter(ctx.createProducer(), name).forEach((type, call) -> assertThatThrownBy(call)
                        .as("JMSProducer.setProperty(%s, %s)", name, type)
                        .isInstanceOf(IllegalArgumentException.class));
                everyMapSetter(ctx.createMapMessage(), name).forEach((setter, call) -> assertThatThrownBy(call)
                        .as("MapMessage.%s(%s)", setter, name)
                        .isInstanceOf(IllegalArgumentException.class));
            }
        }
    }

    /**
     * Decision (docs/architecture.md, "What ShardQ does where JMS leaves a choice"): JMS 3.1, 3.5.1
     * makes a property name a selector identifier, and identifiers cannot be NULL, TRUE or FALSE
     * (3.8.1.1); ShardQ refuses them in any case, where Artemis accepts them.
     */
    @Test
    void propertiesNamedTrueFalseOrNull_areRefused_namingTheRule(TestDatabase db) throws Exception {
        try (ShardQConnectionFactory f =
                        new ShardQConnectionFactory(db.brokerConfig().build());
                JMSContext ctx = f.createContext()) {
            for (String name : new String[] {"true", "FALSE", "null", "Null"}) {
                assertThatThrownBy(() -> ctx.createMessage().setIntProperty(name, 1))
                        .as(name)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("is reserved: NULL, TRUE, FALSE");
                assertThatThrownBy(() -> ctx.createProducer().setProperty(name, 1))
                        .as(name)
                        .isInstanceOf(IllegalArgumentException.class);
            }
        }
    }

    // ---------------------------------------------------------------- JMSXUserID

    @Test
    void jmsxUserId_isTheConnectionsUser_setOnSend_classicAndSimplified(TestDatabase db) throws Exception {
        try (ShardQConnectionFactory f =
                new ShardQConnectionFactory(db.brokerConfig().build())) {
            try (Connection withUser = f.createConnection(db.user(), db.password());
                    Connection anonymous = f.createConnection()) {
                withUser.start();
                Session s = withUser.createSession(false, Session.AUTO_ACKNOWLEDGE);
                Queue q = s.createQueue("conf.userid");
                Message sent = s.createTextMessage("from a user");
                s.createProducer(q).send(sent);
                assertThat(sent.getStringProperty("JMSXUserID"))
                        .as("on the sent message")
                        .isEqualTo(db.user());
                Message received = s.createConsumer(q).receive(30_000);
                assertThat(received.getStringProperty("JMSXUserID")).isEqualTo(db.user());

                Session a = anonymous.createSession(false, Session.AUTO_ACKNOWLEDGE);
                a.createProducer(q).send(received); // sent on by a connection without a user: not theirs
                assertThat(((Message) s.createConsumer(q).receive(30_000)).propertyExists("JMSXUserID"))
                        .isFalse();
                assertThatThrownBy(() -> a.createMessage().setStringProperty("JMSXUserID", "forged"))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("set by the provider");
            }
            try (JMSContext ctx = f.createContext(db.user(), db.password())) {
                Queue q = ctx.createQueue("conf.userid.ctx");
                JMSConsumer consumer = ctx.createConsumer(q);
                ctx.createProducer().send(q, "simplified");
                assertThat(consumer.receive(30_000).getStringProperty("JMSXUserID"))
                        .isEqualTo(db.user());
            }
        }
    }

    // ---------------------------------------------------------------- ObjectMessage

    private static Object roundTrip(ShardQConnectionFactory f, String queue, Serializable body) throws Exception {
        try (JMSContext ctx = f.createContext()) {
            Queue q = ctx.createQueue(queue);
            JMSConsumer consumer = ctx.createConsumer(q);
            ctx.createProducer().send(q, body);
            ObjectMessage m = (ObjectMessage) consumer.receive(30_000);
            return m.getObject();
        }
    }

    @Test
    void theRefusalOfVector_namesExactlyWhatTheDefaultAllows_andTheSetting(TestDatabase db) throws Exception {
        try (ShardQConnectionFactory f =
                new ShardQConnectionFactory(db.brokerConfig().build())) {
            for (Serializable refused :
                    List.<Serializable>of(new Vector<>(List.of(1)), new Hashtable<>(Map.of("k", 1)))) {
                assertThatThrownBy(() -> roundTrip(f, "conf.object.default", refused))
                        .isInstanceOf(MessageFormatException.class)
                        .hasMessageContaining(
                                "class " + refused.getClass().getName() + " is not on the ObjectMessage allow-list")
                        .hasMessageNotContaining("java.util collections")
                        .hasMessageContaining(ObjectMessageAllowList.DEFAULTS_DESCRIBED)
                        .hasMessageContaining("shardq.jms.object-message.allow="
                                + refused.getClass().getName());
            }
            assertThat(roundTrip(f, "conf.object.default", new ArrayList<>(List.of(1))))
                    .isEqualTo(List.of(1));
        }
    }

    @Test
    void theAllowSetting_inObjectInputFilterSyntax_widensAndNarrowsTheDefault(TestDatabase db) throws Exception {
        BrokerConfig config = db.brokerConfig()
                .set(BrokerProperty.JMS_OBJECT_MESSAGE_ALLOW, "!java.util.HashMap;java.util.Vector;java.util.Hashtable")
                .build();
        try (ShardQConnectionFactory f = new ShardQConnectionFactory(config)) {
            assertThat(roundTrip(f, "conf.object.set", new Vector<>(List.of("v"))))
                    .isEqualTo(new Vector<>(List.of("v")));
            assertThat(roundTrip(f, "conf.object.set", new Hashtable<>(Map.of("k", 1))))
                    .isEqualTo(Map.of("k", 1));
            assertThatThrownBy(() -> roundTrip(f, "conf.object.set", new java.util.HashMap<>(Map.of("k", 1))))
                    .as("a ! pattern refuses even a default class")
                    .isInstanceOf(MessageFormatException.class)
                    .hasMessageContaining("java.util.HashMap");
        }
    }

    @Test
    void theAllowSetting_isReadFromSystemProperties_andABadPatternNamesTheSetting(TestDatabase db) throws Exception {
        String key = BrokerProperty.JMS_OBJECT_MESSAGE_ALLOW.key();
        System.setProperty(key, "java.util.**");
        // BrokerConfig.builder() reads system properties and the environment (the test database's is isolated);
        // the factory starts nothing until its first connection
        try (ShardQConnectionFactory f =
                new ShardQConnectionFactory(BrokerConfig.builder().build())) {
            assertThat(f.allowList().allows(Vector.class)).isTrue();
            assertThat(f.allowList().allows(java.util.concurrent.ConcurrentHashMap.class))
                    .isTrue();
            assertThat(f.allowList().allows(java.net.URL.class)).isFalse();
        } finally {
            System.clearProperty(key);
        }
        assertThatThrownBy(() -> new ShardQConnectionFactory(db.brokerConfig()
                        .set(BrokerProperty.JMS_OBJECT_MESSAGE_ALLOW, "maxdepth=abc")
                        .build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(
                        "setting shardq.jms.object-message.allow (SHARDQ_JMS_OBJECT_MESSAGE_ALLOW) is invalid")
                .hasMessageContaining("maxdepth=abc");
    }
}
