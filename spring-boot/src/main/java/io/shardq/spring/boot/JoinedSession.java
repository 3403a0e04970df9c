package io.shardq.spring.boot;

import io.shardq.jms.ShardQSession;
import io.shardq.jms.ShardQSession.TransactionOutcome;
import jakarta.jms.IllegalStateException;
import jakarta.jms.JMSException;
import jakarta.jms.QueueSession;
import jakarta.jms.TopicSession;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jms.support.JmsUtils;
import org.springframework.transaction.NoTransactionException;
import org.springframework.transaction.interceptor.TransactionAspectSupport;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * A ShardQ session on the JDBC connection of the Spring transaction it was created in, and the
 * {@link TransactionSynchronization} through which that transaction drives it.
 *
 * <p><b>How the transaction drives the session.</b> Sends are buffered and receives held in
 * memory while the transaction runs, as in any transacted ShardQ session. In {@link
 * #beforeCommit} (after the application's work, before the database commits) the session's
 * {@code commit()} writes its buffered sends and its cursor moves into the application's
 * connection without committing it; the engine keeps that work in flight. The database commit
 * then makes the application's SQL and the messages durable together. In {@link
 * #afterCompletion} the session is told how the transaction ended ({@link
 * ShardQSession#transactionEnded}): committed, the sends are published to this instance's
 * consumers and the consumption is final; rolled back (an exception, rollback-only, a failed
 * {@code beforeCommit}), the received messages are given back and delivered again as a failed
 * delivery ({@code JMSRedelivered}, {@code JMSXDeliveryCount}, redelivery delay, dead letter
 * queue) and the sends are gone with the rest; unknown (the commit's connection broke), the
 * instance re-reads the shards it consumed from out of PostgreSQL. Then the session closes: it
 * belongs to that one transaction.
 *
 * <p>What the application sees: {@code commit()} does nothing (the Spring transaction commits),
 * {@code rollback()} marks the Spring transaction rollback-only, {@code close()} is put off until
 * the outcome is known, and any use after the transaction ended is an {@link
 * IllegalStateException}. The proxy is a {@link QueueSession} and a {@link TopicSession}, not a
 * {@code ShardQSession}.
 */
final class JoinedSession implements InvocationHandler, TransactionSynchronization {
    private static final Logger LOG = LoggerFactory.getLogger(JoinedSession.class);

    /** The JDBC connection of the current Spring transaction, held through its holder. */
    record Handle(ConnectionHolder holder, Connection connection) {
        void release() {
            holder.released();
        }
    }

    /**
     * The connection of the Spring transaction on this thread when it holds one of {@code
     * dataSource} in a transaction block (not autocommit), else null: no transaction, a transaction
     * of another resource (e.g. {@code JmsTransactionManager}'s), or synchronization without a
     * transaction.
     */
    static Handle transactionConnection(DataSource dataSource) throws JMSException {
        if (!TransactionSynchronizationManager.isSynchronizationActive()
                || !TransactionSynchronizationManager.isActualTransactionActive()
                || !(TransactionSynchronizationManager.getResource(dataSource) instanceof ConnectionHolder holder)) {
            return null;
        }
        holder.requested();
        Connection c = holder.getConnection();
        try {
            if (!c.getAutoCommit()) {
                return new Handle(holder, c);
            }
        } catch (SQLException e) {
            holder.released();
            JMSException j =
                    new JMSException("cannot read the Spring transaction's JDBC connection: " + e.getMessage());
            j.setLinkedException(e);
            throw j;
        }
        holder.released();
        return null;
    }

    private final ShardQSession session;
    private final Handle tx;
    private final JoiningConnection owner;
    private final Object proxy;
    private boolean ended;

    JoinedSession(ShardQSession session, Handle tx, JoiningConnection owner) {
        this.session = session;
        this.tx = tx;
        this.owner = owner;
        this.proxy = Proxy.newProxyInstance(
                JoinedSession.class.getClassLoader(), new Class<?>[] {QueueSession.class, TopicSession.class}, this);
    }

    Object proxy() {
        return proxy;
    }

    @Override
    public Object invoke(Object p, Method method, Object[] args) throws Throwable {
        switch (method.getName()) {
            case "close" -> {
                if (ended) {
                    closeNow(); // (safe twice) else it closes when the transaction has ended
                }
                return null;
            }
            case "commit" -> {
                return null; // the Spring transaction commits this session's work (beforeCommit)
            }
            case "rollback" -> {
                checkNotEnded();
                markRollbackOnly();
                return null;
            }
            case "equals" -> {
                return p == args[0];
            }
            case "hashCode" -> {
                return System.identityHashCode(p);
            }
            case "toString" -> {
                return "JoinedSession[" + session + (ended ? ", ended" : "") + "]";
            }
            default -> {
                checkNotEnded();
                return JoiningConnection.call(session, method, args);
            }
        }
    }

    private void checkNotEnded() throws IllegalStateException {
        if (ended) {
            throw new IllegalStateException("this ShardQ session joined a Spring transaction that has ended:"
                    + " create a new session (JmsTemplate and @JmsListener containers do)");
        }
    }

    /** JMS rollback() inside the Spring transaction: the whole transaction rolls back. */
    private void markRollbackOnly() {
        tx.holder().setRollbackOnly();
        try {
            TransactionAspectSupport.currentTransactionStatus().setRollbackOnly();
        } catch (NoTransactionException notDeclarative) {
            // a transaction not run by @Transactional: the connection holder's flag decides
        }
    }

    @Override
    public void beforeCommit(boolean readOnly) {
        try {
            session.commit(); // writes into the transaction's connection; the database commit follows
        } catch (JMSException e) {
            throw JmsUtils.convertJmsAccessException(e);
        }
    }

    @Override
    public void afterCompletion(int status) {
        TransactionOutcome outcome =
                switch (status) {
                    case STATUS_COMMITTED -> TransactionOutcome.COMMITTED;
                    case STATUS_ROLLED_BACK -> TransactionOutcome.ROLLED_BACK;
                    default -> TransactionOutcome.UNKNOWN;
                };
        try {
            session.transactionEnded(outcome);
        } catch (JMSException | RuntimeException e) {
            LOG.warn(
                    "{} - telling the session that its transaction ended ({}) failed: {}",
                    session,
                    outcome,
                    e.toString());
        } finally {
            ended = true;
            tx.release();
            closeNow(); // the session belongs to this transaction's connection
            owner.ended(this);
        }
    }

    private void closeNow() {
        try {
            session.close();
        } catch (JMSException | RuntimeException e) {
            LOG.warn("{} - closing the session after its transaction ended failed: {}", session, e.toString());
        }
    }
}
