package io.shardq.jms;

import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.Session;
import jakarta.jms.XAJMSContext;
import javax.transaction.xa.XAResource;

/**
 * The simplified API over one {@link ShardQXASession}: {@link #commit()} and {@link #rollback()}
 * throw {@link jakarta.jms.TransactionInProgressRuntimeException}; the transaction manager
 * completes the work through {@link #getXAResource()}.
 */
final class ShardQXAJMSContext extends ShardQJMSContext implements XAJMSContext {
    ShardQXAJMSContext(ShardQXAConnection connection) {
        super(connection, Session.SESSION_TRANSACTED, true);
    }

    @Override
    ShardQSession openSession() throws JMSException {
        return (ShardQSession) ((ShardQXAConnection) connection()).createXASession();
    }

    @Override
    public JMSContext getContext() {
        session(); // refuses when closed
        return this;
    }

    @Override
    public XAResource getXAResource() {
        return ((ShardQXASession) session()).getXAResource();
    }
}
