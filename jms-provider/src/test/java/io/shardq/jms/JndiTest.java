package io.shardq.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import jakarta.jms.Connection;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import jakarta.jms.Topic;
import java.util.ArrayList;
import java.util.Hashtable;
import java.util.List;
import javax.naming.ConfigurationException;
import javax.naming.Context;
import javax.naming.InitialContext;
import javax.naming.InvalidNameException;
import javax.naming.NameClassPair;
import javax.naming.NameNotFoundException;
import javax.naming.NamingEnumeration;
import javax.naming.OperationNotSupportedException;
import org.junit.jupiter.api.Test;

/**
 * JNDI as Artemis and Qpid users configure it: {@code jndi.properties} on the test class path names
 * the context factory, a queue and a topic; the environment given to {@code new InitialContext}
 * adds the connection factory on the test's database. What is looked up sends and receives.
 */
@PgTest
class JndiTest {
    private static Hashtable<String, String> environment(TestDatabase db) {
        Hashtable<String, String> env = new Hashtable<>();
        env.put("connectionFactory.ConnectionFactory", db.jdbcUrl());
        env.put("connectionFactory.ConnectionFactory.shardq.jdbc.user", db.user());
        env.put("connectionFactory.ConnectionFactory.shardq.jdbc.password", db.password());
        env.put("connectionFactory.ConnectionFactory.shardq.pool.size", "8");
        return env;
    }

    @Test
    void jndiPropertiesOnTheClassPath_bindAFactoryAQueueAndATopic_thatWork(TestDatabase db) throws Exception {
        Context ctx = new InitialContext(environment(db));
        ConnectionFactory cf = (ConnectionFactory) ctx.lookup("ConnectionFactory");
        Queue orders = (Queue) ctx.lookup("jms/orders");
        Topic events = (Topic) ctx.lookup("jms/events");
        assertThat(orders.getQueueName()).isEqualTo("jndi.orders");
        assertThat(events.getTopicName()).isEqualTo("jndi.events");
        Queue dynamic = (Queue) ctx.lookup("dynamicQueues/jndi.other");
        assertThat(dynamic.getQueueName()).isEqualTo("jndi.other");

        List<String> names = new ArrayList<>();
        NamingEnumeration<NameClassPair> list = ctx.list("");
        while (list.hasMore()) {
            names.add(list.next().getName());
        }
        assertThat(names).containsExactlyInAnyOrder("ConnectionFactory", "jms/orders", "jms/events");

        try (Connection c = cf.createConnection()) {
            c.start();
            Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer subscriber = s.createConsumer(events);
            s.createProducer(orders).send(s.createTextMessage("order 1"));
            s.createProducer(events).send(s.createTextMessage("event 1"));
            s.createProducer(dynamic).send(s.createTextMessage("other 1"));
            assertThat(((TextMessage) s.createConsumer(orders).receive(10_000)).getText())
                    .isEqualTo("order 1");
            assertThat(((TextMessage) subscriber.receive(10_000)).getText()).isEqualTo("event 1");
            assertThat(((TextMessage) s.createConsumer(dynamic).receive(10_000)).getText())
                    .isEqualTo("other 1");
        } finally {
            ((ShardQConnectionFactory) cf).close();
            ctx.close();
        }
    }

    @Test
    void unknownNames_areNotFound_sayingWhatIsBound_andTheContextIsReadOnly(TestDatabase db) throws Exception {
        Context ctx = new InitialContext(environment(db));
        try {
            assertThatThrownBy(() -> ctx.lookup("jms/missing"))
                    .isInstanceOf(NameNotFoundException.class)
                    .hasMessageContaining("\"jms/missing\" is not bound")
                    .hasMessageContaining("jms/orders");
            assertThatThrownBy(() -> ctx.lookup("dynamicQueues/bad name"))
                    .isInstanceOf(InvalidNameException.class)
                    .hasMessageContaining("destination name \"bad name\" is invalid");
            assertThatThrownBy(() -> ctx.bind("jms/new", new ShardQQueue("x")))
                    .isInstanceOf(OperationNotSupportedException.class)
                    .hasMessageContaining("read-only");
            assertThatThrownBy(() -> ctx.unbind("jms/orders")).isInstanceOf(OperationNotSupportedException.class);
            assertThat(ctx.lookup("jms/orders")).isInstanceOf(Queue.class);
        } finally {
            ((ShardQConnectionFactory) ctx.lookup("ConnectionFactory")).close();
            ctx.close();
        }
    }

    @Test
    void malformedEntries_failTheInitialContext_namingTheEntry(TestDatabase db) {
        Hashtable<String, String> badQueue = environment(db);
        badQueue.put("queue.jms/bad", "no spaces allowed");
        assertThatThrownBy(() -> new InitialContext(badQueue))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("queue.jms/bad")
                .hasMessageContaining("is invalid");

        Hashtable<String, String> badUrl = environment(db);
        badUrl.put("connectionFactory.Other", "tcp://localhost:61616");
        assertThatThrownBy(() -> new InitialContext(badUrl))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("connectionFactory.Other")
                .hasMessageContaining("expected a PostgreSQL JDBC URL");

        Hashtable<String, String> badSetting = environment(db);
        badSetting.put("connectionFactory.ConnectionFactory.shardq.pool.sise", "8");
        assertThatThrownBy(() -> new InitialContext(badSetting))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("shardq.pool.sise")
                .hasMessageContaining("not a ShardQ setting");

        Hashtable<String, String> orphanSetting = environment(db);
        orphanSetting.put("connectionFactory.Nowhere.shardq.pool.size", "8");
        assertThatThrownBy(() -> new InitialContext(orphanSetting))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("not defined");
    }
}
