package io.shardq.jms;

import io.shardq.broker.shard.BrokerSession;
import jakarta.jms.JMSException;
import jakarta.jms.Session;
import jakarta.jms.TransactionInProgressException;
import jakarta.jms.XASession;
import javax.transaction.xa.XAResource;

/**
 * A session whose transactions a transaction manager drives through {@link #getXAResource()}. It
 * is transacted ({@link #getTransacted()} is true) and sends and receives only while its resource
 * is in a branch (between {@code start} and {@code end}); outside one a send or receive throws
 * {@link jakarta.jms.IllegalStateException}. {@link #commit()} and {@link #rollback()} throw
 * {@link TransactionInProgressException}, as JMS requires of an XA session.
 */
final class ShardQXASession extends ShardQSession implements XASession {
    private final ShardQXAResource resource = new ShardQXAResource(this);

    ShardQXASession(ShardQConnection connection, BrokerSession engine) {
        super(connection, engine, Session.SESSION_TRANSACTED);
    }

    @Override
    public Session getSession() throws JMSException {
        checkOpen();
        return this;
    }

    @Override
    public XAResource getXAResource() {
        return resource;
    }

    /**
     * Not built: the key/value cache's invalidations use NOTIFY, and PostgreSQL refuses to prepare a
     * transaction that ran one. Use the cache from a session outside XA.
     */
    @Override
    public <K, V> SessionCache<K, V> cache(
            String name, io.shardq.broker.kv.Codec<K> keys, io.shardq.broker.kv.Codec<V> values) throws JMSException {
        checkOpen();
        throw new jakarta.jms.IllegalStateException("the key/value cache cannot join an XA transaction (its"
                + " invalidations use NOTIFY, which PostgreSQL refuses in a transaction it prepares): use cache "
                + name + " from a session outside XA");
    }

    @Override
    public void commit() throws JMSException {
        checkOpen();
        throw new TransactionInProgressException(
                "commit() on an XA session: its transaction manager commits the global transaction"
                        + " (through getXAResource())");
    }

    @Override
    public void rollback() throws JMSException {
        checkOpen();
        throw new TransactionInProgressException(
                "rollback() on an XA session: roll back the global transaction through its transaction"
                        + " manager (which calls getXAResource().rollback)");
    }
}
