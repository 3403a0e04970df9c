package io.shardq.jms;

import io.shardq.broker.Broker;
import io.shardq.broker.RoleAccess;
import jakarta.jms.JMSException;
import jakarta.jms.XAConnection;
import jakarta.jms.XASession;

/** A connection that also makes {@link XASession}s (see {@link ShardQXAConnectionFactory}). */
final class ShardQXAConnection extends ShardQConnection implements XAConnection {
    ShardQXAConnection(ShardQConnectionFactory factory, Broker broker, RoleAccess access, String user) {
        super(factory, broker, access, user);
    }

    /**
     * A new XA session: throws {@link JMSException} naming {@code max_prepared_transactions} when
     * the server has prepared transactions turned off.
     */
    @Override
    public XASession createXASession() throws JMSException {
        checkOpen();
        ThreadRules.checkNotInListener(this, "create a session");
        try {
            return register(new ShardQXASession(this, broker().xa().openSession()));
        } catch (RuntimeException e) {
            throw Exceptions.translate(e);
        }
    }
}
