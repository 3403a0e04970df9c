package io.shardq.jms;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.ShardQException;
import jakarta.jms.JMSException;
import jakarta.jms.XAConnection;
import jakarta.jms.XAConnectionFactory;
import jakarta.jms.XAJMSContext;

/**
 * ShardQ for a JTA transaction manager: {@link XAConnection}s whose {@link jakarta.jms.XASession}s
 * join global transactions through PostgreSQL's two-phase commit ({@code PREPARE TRANSACTION}).
 * The server needs {@code max_prepared_transactions > 0}; without it {@link #createXAConnection()}
 * throws {@link JMSException} naming the setting. Like {@link ShardQConnectionFactory}, each
 * factory is one ShardQ instance; {@link #connectionFactory()} is the same instance for sessions
 * outside XA.
 *
 * <pre>{@code
 * var factory = new ShardQXAConnectionFactory();
 * XASession session = factory.createXAConnection().createXASession();
 * transactionManager.begin();
 * transactionManager.getTransaction().enlistResource(session.getXAResource());
 * session.createProducer(session.createQueue("orders")).send(session.createTextMessage("hi"));
 * transactionManager.commit(); // prepare, then commit, with the other resources
 * }</pre>
 *
 * <p>A separate class rather than {@code ShardQConnectionFactory implements XAConnectionFactory}:
 * pools and frameworks (pooled-jms, Spring's JTA support) treat a factory that is an {@code
 * XAConnectionFactory} as one to enlist in JTA transactions, and ShardQ's main path, a session on
 * the application's own JDBC transaction, needs no XA. For crash recovery, register {@code
 * createXAConnection().createXASession().getXAResource()} with the transaction manager's
 * recovery (Narayana: an {@code XAResourceRecoveryHelper}); any such resource of any instance on
 * the database recovers every ShardQ branch prepared there.
 */
public final class ShardQXAConnectionFactory implements XAConnectionFactory, AutoCloseable {
    private final ShardQConnectionFactory factory;

    /** Settings from system properties and the environment (see README, Configuration). */
    public ShardQXAConnectionFactory() {
        this(new ShardQConnectionFactory());
    }

    public ShardQXAConnectionFactory(BrokerConfig config) {
        this(new ShardQConnectionFactory(config));
    }

    /** Settings from the environment, with this JDBC URL. */
    public ShardQXAConnectionFactory(String jdbcUrl) {
        this(BrokerConfig.builder().set(BrokerProperty.JDBC_URL, jdbcUrl).build());
    }

    /** XA on the instance of {@code factory} (closing either closes the instance). */
    public ShardQXAConnectionFactory(ShardQConnectionFactory factory) {
        this.factory = factory;
    }

    /** The same ShardQ instance for connections outside XA. */
    public ShardQConnectionFactory connectionFactory() {
        return factory;
    }

    @Override
    public XAConnection createXAConnection() throws JMSException {
        return createXAConnection(null, null);
    }

    /** As {@link ShardQConnectionFactory#createConnection(String, String)}, for XA. */
    @Override
    public XAConnection createXAConnection(String userName, String password) throws JMSException {
        requirePreparedTransactions(factory.broker());
        return (XAConnection) factory.connect(userName, password, true);
    }

    @Override
    public XAJMSContext createXAContext() {
        return createXAContext(null, null);
    }

    @Override
    public XAJMSContext createXAContext(String userName, String password) {
        try {
            return new ShardQXAJMSContext((ShardQXAConnection) createXAConnection(userName, password));
        } catch (JMSException e) {
            throw Exceptions.unchecked(e);
        }
    }

    private static void requirePreparedTransactions(Broker broker) throws JMSException {
        int max;
        try {
            max = broker.xa().maxPreparedTransactions();
        } catch (ShardQException e) {
            throw Exceptions.translate(e);
        }
        if (max <= 0) {
            JMSException e = new JMSException(
                    "ShardQ XA needs PostgreSQL's two-phase commit, which this server has turned off"
                            + " (max_prepared_transactions = " + max + "): set max_prepared_transactions to a"
                            + " positive value (e.g. max_connections) in postgresql.conf and restart the server",
                    "CONFIGURATION");
            throw e;
        }
    }

    /** Stops the instance (as {@link ShardQConnectionFactory#close()}). Safe twice. */
    @Override
    public void close() {
        factory.close();
    }
}
