package io.shardq.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import jakarta.jms.Connection;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.ObjectMessage;
import jakarta.jms.Queue;
import java.util.Hashtable;
import java.util.List;
import java.util.Vector;
import javax.naming.ConfigurationException;
import javax.naming.Context;
import javax.naming.InitialContext;
import org.junit.jupiter.api.Test;

/**
 * The two JMS settings of a JNDI-bound connection factory: {@code
 * connectionFactory.NAME.shardq.jms.client-id} (an administratively configured client id) and
 * {@code connectionFactory.NAME.shardq.jms.object-message.allow} (ObjectMessage classes, in
 * ObjectInputFilter syntax).
 */
@PgTest
class JndiJmsSettingsTest {
    private static Hashtable<String, String> environment(TestDatabase db) {
        Hashtable<String, String> env = new Hashtable<>();
        env.put("connectionFactory.CF", db.jdbcUrl());
        env.put("connectionFactory.CF.shardq.jdbc.user", db.user());
        env.put("connectionFactory.CF.shardq.jdbc.password", db.password());
        env.put("connectionFactory.CF.shardq.pool.size", "4");
        return env;
    }

    @Test
    void aJndiFactory_carriesTheConfiguredClientId_andAllowList(TestDatabase db) throws Exception {
        Hashtable<String, String> env = environment(db);
        env.put("connectionFactory.CF.shardq.jms.client-id", "jndi-client");
        env.put("connectionFactory.CF.shardq.jms.object-message.allow", "java.util.Vector");
        Context ctx = new InitialContext(env);
        ShardQConnectionFactory cf = (ShardQConnectionFactory) ctx.lookup("CF");
        try {
            assertThat(cf.getClientID()).isEqualTo("jndi-client");
            try (Connection c = ((ConnectionFactory) cf).createConnection()) {
                assertThat(c.getClientID()).isEqualTo("jndi-client");
                assertThatThrownBy(() -> c.setClientID("x")).isInstanceOf(jakarta.jms.IllegalStateException.class);
            }
            try (JMSContext jms = cf.createContext()) {
                Queue q = jms.createQueue("jndi.settings.object");
                JMSConsumer consumer = jms.createConsumer(q);
                jms.createProducer().send(q, new Vector<>(List.of("allowed")));
                assertThat(((ObjectMessage) consumer.receive(30_000)).getObject())
                        .isEqualTo(new Vector<>(List.of("allowed")));
            }
        } finally {
            cf.close();
            ctx.close();
        }
    }

    @Test
    void aBadAllowPattern_failsTheInitialContext_namingTheEntry(TestDatabase db) {
        Hashtable<String, String> env = environment(db);
        env.put("connectionFactory.CF.shardq.jms.object-message.allow", "maxrefs=-x");
        assertThatThrownBy(() -> new InitialContext(env))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("connectionFactory.CF")
                .hasMessageContaining("shardq.jms.object-message.allow");
    }
}
