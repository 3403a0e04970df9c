package io.shardq.jms;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.RoleAccess;
import io.shardq.broker.ShardQException;
import jakarta.jms.Connection;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.JMSSecurityException;
import jakarta.jms.QueueConnection;
import jakarta.jms.QueueConnectionFactory;

/**
 * Entry point of the ShardQ JMS provider. Each factory is one ShardQ instance: one connection
 * pool, one message cache, one row in {@code shardq.instance}. It starts on the first
 * connection and stops on {@link #close()}.
 *
 * <pre>{@code
 * try (var factory = new ShardQConnectionFactory();           // SHARDQ_JDBC_URL or embedded
 *      var connection = factory.createConnection()) {
 *     var session = connection.createSession(true, Session.SESSION_TRANSACTED);
 *     session.createProducer(session.createQueue("orders")).send(session.createTextMessage("hi"));
 *     session.commit();
 * }
 * }</pre>
 */
public final class ShardQConnectionFactory
        implements ConnectionFactory, QueueConnectionFactory, jakarta.jms.TopicConnectionFactory, AutoCloseable {
    private final BrokerConfig config;
    private volatile ObjectMessageAllowList allowList;
    /** The administratively configured client id of every connection, null for none. */
    private volatile String clientId;

    private Broker broker;

    /** Settings from system properties and the environment (see README, Configuration). */
    public ShardQConnectionFactory() {
        this(BrokerConfig.fromEnvironment());
    }

    /**
     * Settings from {@code config}, among them the JMS ones: {@code shardq.jms.client-id} ({@link
     * #setClientID}) and {@code shardq.jms.object-message.allow} ({@link
     * ObjectMessageAllowList#allowPattern}).
     *
     * @throws IllegalArgumentException naming the setting when one of them is invalid
     */
    public ShardQConnectionFactory(BrokerConfig config) {
        this.config = config;
        String allow = config.get(BrokerProperty.JMS_OBJECT_MESSAGE_ALLOW);
        try {
            this.allowList = ObjectMessageAllowList.defaults().allowPattern(allow);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "setting " + BrokerProperty.JMS_OBJECT_MESSAGE_ALLOW.key() + " ("
                            + BrokerProperty.JMS_OBJECT_MESSAGE_ALLOW.envName() + ") is invalid: " + e.getMessage(),
                    e);
        }
        String id = config.get(BrokerProperty.JMS_CLIENT_ID);
        this.clientId = id == null || id.isBlank() ? null : checkClientId(id.strip());
    }

    private static String checkClientId(String id) {
        io.shardq.broker.message.Texts.requireEncodable(id, "the client id");
        return id;
    }

    /**
     * The client id administratively configured for every connection of this factory, the way JMS
     * prefers it set (JMS 3.1, 6.1.2): each connection (and JMSContext) carries it from its
     * creation, {@link Connection#setClientID} on it throws {@link jakarta.jms.IllegalStateException},
     * and, as for any client id, only one open connection in the fleet may hold it: creating a
     * second one while the first is open throws {@link jakarta.jms.InvalidClientIDException}. Null or
     * blank configures none. Also the setting {@code shardq.jms.client-id}.
     */
    public void setClientID(String clientId) {
        this.clientId = clientId == null || clientId.isBlank() ? null : checkClientId(clientId.strip());
    }

    /** The administratively configured client id, null when none is. */
    public String getClientID() {
        return clientId;
    }

    /** Settings from the environment, with this JDBC URL. */
    public ShardQConnectionFactory(String jdbcUrl) {
        this(BrokerConfig.builder().set(BrokerProperty.JDBC_URL, jdbcUrl).build());
    }

    /**
     * The classes an ObjectMessage may deserialise (see {@link ObjectMessageAllowList}), replacing
     * the list built from the setting {@code shardq.jms.object-message.allow} (the defaults plus its
     * patterns) for the connections and messages created from now on.
     */
    public void setObjectMessageAllowList(ObjectMessageAllowList allowList) {
        this.allowList = allowList;
    }

    ObjectMessageAllowList allowList() {
        return allowList;
    }

    /** The engine of this instance, started on first use. */
    public synchronized Broker broker() throws JMSException {
        if (broker == null || broker.isClosed()) {
            try {
                broker = Broker.start(config);
            } catch (RuntimeException e) {
                throw Exceptions.translate(e);
            }
        }
        return broker;
    }

    @Override
    public Connection createConnection() throws JMSException {
        return configured(new ShardQConnection(this, broker(), RoleAccess.full(), null));
    }

    /** Gives a new connection the configured client id, if any (closing it when the id is taken). */
    private <C extends ShardQConnection> C configured(C connection) throws JMSException {
        String id = clientId;
        if (id != null) {
            try {
                connection.adminClientId(id);
            } catch (JMSException e) {
                connection.close();
                throw e;
            }
        }
        return connection;
    }

    /**
     * A connection for a JMS user, who is a PostgreSQL role: PostgreSQL checks the password (a
     * login on the factory's server, by its {@code pg_hba.conf}), and a refused login gives {@link
     * JMSSecurityException} naming the user. A null user means the factory's configured identity,
     * as {@link #createConnection()}, and so does the factory's own role: both keep full rights.
     * Any other user's connection works through the factory's pool but acts for that user: each
     * producer, send, consumer, receive and browser first asks PostgreSQL whether the role holds
     * the privilege on that destination (granted by {@code shardq.grant}; cached per connection
     * and destination for {@code shardq.security.grant-cache-ms}), and without it throws {@link
     * JMSSecurityException} naming the user, the destination and the privilege. Such a user never
     * creates a destination by using it.
     */
    @Override
    public Connection createConnection(String userName, String password) throws JMSException {
        return connect(userName, password, false);
    }

    /** A connection (an XA one when {@code xa}) for the user, authenticated as {@link #createConnection(String, String)} says. */
    ShardQConnection connect(String userName, String password, boolean xa) throws JMSException {
        Broker b = broker();
        RoleAccess access = RoleAccess.full();
        String user = null;
        if (userName != null) {
            try {
                b.authenticate(userName, password);
            } catch (ShardQException e) {
                throw Exceptions.translate(e);
            }
            access = b.access(userName);
            user = userName;
        }
        return configured(
                xa ? new ShardQXAConnection(this, b, access, user) : new ShardQConnection(this, b, access, user));
    }

    @Override
    public jakarta.jms.TopicConnection createTopicConnection() throws JMSException {
        return domain((ShardQConnection) createConnection(), ShardQConnection.Domain.TOPIC);
    }

    /** A connection for topics only: its createQueueSession throws {@link jakarta.jms.IllegalStateException}. */
    @Override
    public jakarta.jms.TopicConnection createTopicConnection(String userName, String password) throws JMSException {
        return domain((ShardQConnection) createConnection(userName, password), ShardQConnection.Domain.TOPIC);
    }

    @Override
    public QueueConnection createQueueConnection() throws JMSException {
        return domain((ShardQConnection) createConnection(), ShardQConnection.Domain.QUEUE);
    }

    /**
     * A connection for queues only: its createTopicSession and its durable and shared connection
     * consumers throw {@link jakarta.jms.IllegalStateException} (QueueConnection's javadoc).
     */
    @Override
    public QueueConnection createQueueConnection(String userName, String password) throws JMSException {
        return domain((ShardQConnection) createConnection(userName, password), ShardQConnection.Domain.QUEUE);
    }

    private static ShardQConnection domain(ShardQConnection c, ShardQConnection.Domain d) {
        c.domain(d);
        return c;
    }

    @Override
    public JMSContext createContext() {
        return createContext(JMSContext.AUTO_ACKNOWLEDGE);
    }

    @Override
    public JMSContext createContext(String userName, String password) {
        return createContext(userName, password, JMSContext.AUTO_ACKNOWLEDGE);
    }

    @Override
    public JMSContext createContext(String userName, String password, int sessionMode) {
        try {
            return new ShardQJMSContext((ShardQConnection) createConnection(userName, password), sessionMode, true);
        } catch (JMSException e) {
            throw Exceptions.unchecked(e);
        }
    }

    @Override
    public JMSContext createContext(int sessionMode) {
        try {
            return new ShardQJMSContext((ShardQConnection) createConnection(), sessionMode, true);
        } catch (JMSException e) {
            throw Exceptions.unchecked(e);
        }
    }

    /** Stops this instance: gives back its leases and closes its pool. Safe twice. */
    @Override
    public synchronized void close() {
        if (broker != null) {
            broker.close();
            broker = null;
        }
    }
}
