package io.shardq.spring.boot;

import io.shardq.jms.ShardQConnection;
import io.shardq.jms.ShardQConnectionFactory;
import jakarta.jms.Connection;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.QueueConnection;
import jakarta.jms.QueueConnectionFactory;
import jakarta.jms.TopicConnection;
import jakarta.jms.TopicConnectionFactory;
import java.lang.reflect.Proxy;
import javax.sql.DataSource;

/**
 * A ShardQ {@link ConnectionFactory} whose sessions join the application's Spring transactions on
 * its {@link DataSource}: a session created while a Spring transaction holds a connection of
 * that DataSource (a {@code @Transactional} method under {@code DataSourceTransactionManager} or
 * {@code JpaTransactionManager}, a {@code @JmsListener} container run by one) works on that very
 * JDBC connection, so its sends and receives commit or roll back with the application's SQL. No
 * XA: it is one PostgreSQL transaction. See {@link JoinedSession} for how the transaction drives
 * the session.
 *
 * <p>Outside such a transaction (no transaction, or one of another resource such as {@code
 * JmsTransactionManager}'s), sessions are plain ShardQ sessions, exactly as the {@link
 * ShardQConnectionFactory} it wraps makes them. {@link JMSContext}s are always plain: Spring's
 * JMS support does not use them.
 *
 * <p>Do not wrap it in Spring's {@code CachingConnectionFactory}: a cached session outlives the
 * transaction it was created in. ShardQ connections and sessions are cheap to create (no
 * database round trip).
 */
public final class TransactionAwareShardQConnectionFactory
        implements ConnectionFactory, QueueConnectionFactory, TopicConnectionFactory, AutoCloseable {
    private final ShardQConnectionFactory target;
    private final DataSource dataSource;

    /**
     * @param target the factory that does the work (its own pool serves the engine's background
     *     work and every session outside a joined transaction)
     * @param dataSource the application's DataSource whose transactions sessions join; null joins
     *     nothing
     */
    public TransactionAwareShardQConnectionFactory(ShardQConnectionFactory target, DataSource dataSource) {
        this.target = target;
        this.dataSource = dataSource;
    }

    /** The ShardQ factory underneath: its engine ({@code broker()}) for administration and metrics. */
    public ShardQConnectionFactory target() {
        return target;
    }

    /** The DataSource whose transactions sessions join, or null. */
    public DataSource joinedDataSource() {
        return dataSource;
    }

    @Override
    public Connection createConnection() throws JMSException {
        return wrap((ShardQConnection) target.createConnection());
    }

    @Override
    public Connection createConnection(String userName, String password) throws JMSException {
        return wrap((ShardQConnection) target.createConnection(userName, password));
    }

    private Connection wrap(ShardQConnection connection) {
        if (dataSource == null) {
            return connection;
        }
        return (Connection) Proxy.newProxyInstance(
                TransactionAwareShardQConnectionFactory.class.getClassLoader(),
                new Class<?>[] {QueueConnection.class, TopicConnection.class},
                new JoiningConnection(connection, dataSource));
    }

    @Override
    public QueueConnection createQueueConnection() throws JMSException {
        return (QueueConnection) createConnection();
    }

    @Override
    public QueueConnection createQueueConnection(String userName, String password) throws JMSException {
        return (QueueConnection) createConnection(userName, password);
    }

    @Override
    public TopicConnection createTopicConnection() throws JMSException {
        return (TopicConnection) createConnection();
    }

    @Override
    public TopicConnection createTopicConnection(String userName, String password) throws JMSException {
        return (TopicConnection) createConnection(userName, password);
    }

    @Override
    public JMSContext createContext() {
        return target.createContext();
    }

    @Override
    public JMSContext createContext(String userName, String password) {
        return target.createContext(userName, password);
    }

    @Override
    public JMSContext createContext(String userName, String password, int sessionMode) {
        return target.createContext(userName, password, sessionMode);
    }

    @Override
    public JMSContext createContext(int sessionMode) {
        return target.createContext(sessionMode);
    }

    /** Stops the ShardQ instance (its leases, its pool, the embedded server if it started one). */
    @Override
    public void close() {
        target.close();
    }

    @Override
    public String toString() {
        return "TransactionAwareShardQConnectionFactory[" + (dataSource == null ? "no DataSource" : dataSource) + "]";
    }
}
