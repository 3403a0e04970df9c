package io.shardq.spring.boot;

import io.shardq.jms.ShardQConnection;
import io.shardq.jms.ShardQSession;
import jakarta.jms.JMSException;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.HashSet;
import java.util.Set;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The JMS connection a {@link TransactionAwareShardQConnectionFactory} hands out (a dynamic proxy
 * over a {@link ShardQConnection}): a session created while a Spring transaction holds a
 * connection of the DataSource is a {@link JoinedSession}; every other call goes to the ShardQ
 * connection as it is. Closing it while a joined session waits for its transaction's outcome
 * (Spring closes a transaction's JMS resources before the database commits) is put off until
 * the last such session has learned it, so the outcome still reaches the engine.
 */
final class JoiningConnection implements InvocationHandler {
    private static final Logger LOG = LoggerFactory.getLogger(JoiningConnection.class);

    private final ShardQConnection target;
    private final DataSource dataSource;
    private final Set<JoinedSession> pending = new HashSet<>();
    private boolean closeRequested;

    JoiningConnection(ShardQConnection target, DataSource dataSource) {
        this.target = target;
        this.dataSource = dataSource;
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        switch (method.getName()) {
            case "createSession", "createQueueSession", "createTopicSession" -> {
                JoinedSession.Handle tx = JoinedSession.transactionConnection(dataSource);
                if (tx != null) {
                    return join(tx);
                }
            }
            case "close" -> {
                synchronized (this) {
                    if (!pending.isEmpty()) {
                        closeRequested = true;
                        return null;
                    }
                }
            }
            case "equals" -> {
                return proxy == args[0];
            }
            case "hashCode" -> {
                return System.identityHashCode(proxy);
            }
            case "toString" -> {
                return "JoiningConnection[" + target + "]";
            }
            default -> {
                // every other call goes to the ShardQ connection
            }
        }
        return call(target, method, args);
    }

    static Object call(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private Object join(JoinedSession.Handle tx) throws JMSException {
        ShardQSession session;
        try {
            session = target.createSession(tx.connection(), true);
        } catch (JMSException | RuntimeException e) {
            tx.release();
            throw e;
        }
        JoinedSession joined = new JoinedSession(session, tx, this);
        synchronized (this) {
            pending.add(joined);
        }
        TransactionSynchronizationManager.registerSynchronization(joined);
        return joined.proxy();
    }

    /** A joined session learned its outcome and closed: a close put off for it happens now. */
    void ended(JoinedSession session) {
        boolean close;
        synchronized (this) {
            pending.remove(session);
            close = closeRequested && pending.isEmpty();
        }
        if (close) {
            try {
                target.close();
            } catch (JMSException | RuntimeException e) {
                LOG.warn(
                        "{} - closing the JMS connection after its transaction ended failed: {}", target, e.toString());
            }
        }
    }
}
