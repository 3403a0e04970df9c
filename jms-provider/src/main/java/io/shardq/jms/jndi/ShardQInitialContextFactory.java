package io.shardq.jms.jndi;

import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.ShardQException;
import io.shardq.broker.catalog.Names;
import io.shardq.jms.ShardQConnectionFactory;
import io.shardq.jms.ShardQQueue;
import io.shardq.jms.ShardQTopic;
import java.util.Hashtable;
import java.util.Map;
import java.util.TreeMap;
import javax.naming.ConfigurationException;
import javax.naming.Context;
import javax.naming.NamingException;
import javax.naming.spi.InitialContextFactory;

/**
 * JNDI for tools and applications that look up administered objects, configured the way ActiveMQ
 * Artemis and Qpid users know ({@code jndi.properties} on the class path, or the environment given
 * to {@code new InitialContext(env)}):
 *
 * <pre>
 * java.naming.factory.initial = io.shardq.jms.jndi.ShardQInitialContextFactory
 * connectionFactory.ConnectionFactory = jdbc:postgresql://db.example.com/app
 * connectionFactory.ConnectionFactory.shardq.pool.size = 16
 * queue.jms/orders = orders
 * topic.jms/events = events
 * </pre>
 *
 * <ul>
 *   <li>{@code connectionFactory.NAME = URL} binds a {@link ShardQConnectionFactory} on that JDBC
 *       URL; an empty value takes the settings of the environment and system properties (the
 *       embedded PostgreSQL when none is set). {@code connectionFactory.NAME.KEY = VALUE} sets any
 *       setting of the README's table for that factory ({@code shardq.pool.size}, {@code
 *       shardq.jdbc.user}, ...).
 *   <li>{@code queue.NAME = PHYSICAL} and {@code topic.NAME = PHYSICAL} bind a queue or topic by its
 *       ShardQ name (checked like every destination name; nothing is created by the lookup).
 *   <li>{@code dynamicQueues/PHYSICAL} and {@code dynamicTopics/PHYSICAL} look up any destination
 *       without configuring it first, as in ActiveMQ.
 * </ul>
 *
 * The context is read-only; a malformed entry fails {@code new InitialContext(...)} with a {@link
 * ConfigurationException} naming it.
 */
public final class ShardQInitialContextFactory implements InitialContextFactory {
    static final String CONNECTION_FACTORY = "connectionFactory.";
    static final String QUEUE = "queue.";
    static final String TOPIC = "topic.";

    @Override
    public Context getInitialContext(Hashtable<?, ?> environment) throws NamingException {
        Map<String, Object> bindings = new TreeMap<>();
        Map<String, String> settings = new TreeMap<>();
        for (Map.Entry<?, ?> e : environment.entrySet()) {
            String key = String.valueOf(e.getKey());
            String value =
                    e.getValue() == null ? "" : String.valueOf(e.getValue()).trim();
            if (key.startsWith(QUEUE)) {
                bindings.put(name(key, QUEUE), new ShardQQueue(physical(key, value)));
            } else if (key.startsWith(TOPIC)) {
                bindings.put(name(key, TOPIC), new ShardQTopic(physical(key, value)));
            } else if (key.startsWith(CONNECTION_FACTORY)) {
                settings.put(key.substring(CONNECTION_FACTORY.length()), value);
            }
        }
        // factory names first, then their settings: "NAME.shardq.x" belongs to the factory "NAME"
        for (Map.Entry<String, String> e : settings.entrySet()) {
            if (!e.getKey().contains(".shardq.")) {
                bindings.put(e.getKey(), factory(e.getKey(), e.getValue(), settings, CONNECTION_FACTORY + e.getKey()));
            }
        }
        for (String key : settings.keySet()) {
            int at = key.indexOf(".shardq.");
            if (at >= 0 && !(bindings.get(key.substring(0, at)) instanceof ShardQConnectionFactory)) {
                throw configuration(CONNECTION_FACTORY + key
                        + " sets a setting of a connection factory that is not defined: add "
                        + CONNECTION_FACTORY + key.substring(0, at) + " = <jdbc url, or empty>");
            }
        }
        return new ReadOnlyContext(bindings, environment);
    }

    private static ShardQConnectionFactory factory(String name, String url, Map<String, String> settings, String entry)
            throws NamingException {
        BrokerConfig.Builder config = BrokerConfig.builder();
        if (!url.isEmpty()) {
            if (!url.startsWith("jdbc:postgresql:")) {
                throw configuration(entry + " is \"" + url
                        + "\": expected a PostgreSQL JDBC URL (jdbc:postgresql://host/database), or nothing for"
                        + " the settings of the environment");
            }
            config.set(BrokerProperty.JDBC_URL, url);
        }
        String prefix = name + ".";
        for (Map.Entry<String, String> s : settings.entrySet()) {
            if (s.getKey().startsWith(prefix)
                    && s.getKey().substring(prefix.length()).startsWith("shardq.")) {
                String key = s.getKey().substring(prefix.length());
                BrokerProperty property = property(key);
                if (property == null) {
                    throw configuration(CONNECTION_FACTORY + s.getKey() + ": \"" + key
                            + "\" is not a ShardQ setting (see the configuration table of the README)");
                }
                config.set(property, s.getValue());
            }
        }
        try {
            return new ShardQConnectionFactory(config.build());
        } catch (ShardQException | IllegalArgumentException e) {
            throw configuration(entry + ": " + e.getMessage());
        }
    }

    private static BrokerProperty property(String key) {
        for (BrokerProperty p : BrokerProperty.values()) {
            if (p.key().equals(key)) {
                return p;
            }
        }
        return null;
    }

    private static String name(String key, String prefix) throws NamingException {
        String name = key.substring(prefix.length());
        if (name.isBlank()) {
            throw configuration(key + " has no name after \"" + prefix + "\"");
        }
        return name;
    }

    private static String physical(String key, String value) throws NamingException {
        try {
            return Names.checkDestination(value);
        } catch (ShardQException e) {
            throw configuration(key + ": " + e.getMessage());
        }
    }

    private static ConfigurationException configuration(String message) {
        return new ConfigurationException(message);
    }
}
