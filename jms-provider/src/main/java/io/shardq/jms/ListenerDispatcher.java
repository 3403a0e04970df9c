package io.shardq.jms;

import io.shardq.broker.Privilege;
import io.shardq.broker.shard.Delivery;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one thread that runs a session's MessageListeners, one message at a time, while the
 * connection is started. In AUTO/DUPS_OK mode a message is acknowledged after onMessage returns;
 * if onMessage throws (an exception or an {@code Error}), it is redelivered (JMSRedelivered,
 * JMSXDeliveryCount) and, past the queue's max attempts, dead-lettered; the connection's
 * ExceptionListener is told, and delivery goes on.
 *
 * <p>The listener a message goes to is read under the session lock, right before the receive, and
 * {@link ShardQMessageConsumer#setMessageListener} takes the same lock: a message received for a
 * listener is received while that listener is still set. So a replacement applies from the next
 * message, and after {@code setMessageListener(null)} no message is taken for the consumer here,
 * which leaves them to {@code receive()}. Setting a listener waits for a receive in progress (at
 * most {@link #WAIT_MILLIS}).
 */
final class ListenerDispatcher {
    private static final Logger LOG = LoggerFactory.getLogger(ListenerDispatcher.class);
    /** Longest wait for a message inside one receive, which holds the session lock. */
    static final long WAIT_MILLIS = 100;

    private final ShardQSession session;
    private final Thread thread;
    private final Object idle = new Object();
    /** Signalled when a listener is set or removed, the connection starts or the dispatcher stops. */
    private final Object changed = new Object();

    private boolean changedFlag;
    private volatile boolean running = true;
    private boolean inListener;
    /** Consumers whose user lost the receive privilege and whose ExceptionListener was told. */
    private final java.util.Set<ShardQMessageConsumer> refused = new java.util.HashSet<>();

    ListenerDispatcher(ShardQSession session) {
        this.session = session;
        this.thread = new Thread(this::loop, "shardq-" + session.broker().instanceId() + "-listener");
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** A listener was set or removed, or the connection started: look again. */
    void wake() {
        synchronized (changed) {
            changedFlag = true;
            changed.notifyAll();
        }
    }

    void stop() {
        running = false;
        wake();
        if (Thread.currentThread() != thread) {
            try {
                thread.join(TimeUnit.SECONDS.toMillis(30));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Returns once no listener is running (connection.stop() waits for this). */
    void awaitIdle() {
        synchronized (idle) {
            while (inListener) {
                try {
                    idle.wait(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private void loop() {
        while (running && !session.isClosed()) {
            try {
                if (!session.connection().awaitStarted(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200))) {
                    continue;
                }
                boolean any = false;
                boolean delivered = false;
                for (ShardQMessageConsumer c : session.consumers()) {
                    if (c.listener() != null && running && mayReceive(c)) {
                        any = true;
                        delivered |= deliverOne(c, 0);
                    }
                }
                if (!any) {
                    awaitChange(); // no listener left: wait instead of spinning
                } else if (!delivered) {
                    for (ShardQMessageConsumer c : session.consumers()) {
                        if (c.listener() != null && running && mayReceive(c)) {
                            deliverOne(c, WAIT_MILLIS);
                            break;
                        }
                    }
                }
            } catch (JMSException | RuntimeException e) {
                if (!running || session.isClosed()) {
                    return;
                }
                LOG.warn("listener dispatch failed: {}", e.getMessage());
                sleepQuietly();
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void awaitChange() throws InterruptedException {
        synchronized (changed) {
            if (!changedFlag) {
                changed.wait(200);
            }
            changedFlag = false;
        }
    }

    /**
     * Whether the connection's user still holds the receive privilege on the consumer's queue
     * (a map lookup until the grant cache period passes; always true for the factory's own role).
     * A refused consumer gets nothing and the ExceptionListener is told once, until it is allowed
     * again; with every listener refused the loop waits instead of spinning.
     */
    private boolean mayReceive(ShardQMessageConsumer c) {
        try {
            session.connection().require(c.queueDestination().getName(), Privilege.RECEIVE);
            refused.remove(c);
            return true;
        } catch (JMSException e) {
            if (refused.add(c)) {
                session.connection().onException(e);
            }
            return false;
        }
    }

    private record Received(Delivery delivery, MessageListener listener) {}

    private boolean deliverOne(ShardQMessageConsumer c, long waitMillis) throws JMSException {
        Received r = session.call(s -> {
            MessageListener current = c.listener(); // cannot change until the lock is released
            if (current == null || !running) {
                return null;
            }
            Delivery d = c.engine().receive(waitMillis == 0 ? -1 : waitMillis, true);
            return d == null ? null : new Received(d, current);
        });
        if (r == null) {
            return false;
        }
        MessageListener l = r.listener();
        Message m = session.toJms(r.delivery(), c.queueDestination());
        boolean autoAck = session.acknowledgesAutomatically();
        synchronized (idle) {
            inListener = true;
        }
        ThreadRules.enterListener(session);
        try {
            l.onMessage(m);
            if (autoAck) {
                // not session.acknowledge(), which refuses once close() began: close() waits for this
                // delivery to end, and a message whose onMessage returned is consumed (skipping the
                // acknowledgement here had close() roll it back and another consumer get it again)
                session.acknowledgeDelivered();
            }
        } catch (RuntimeException | Error e) {
            // a programming error (JMS 8.7); an Error too must not end delivery for the session
            LOG.warn(
                    "MessageListener of {} threw {}; the message will be redelivered",
                    c.queueDestination(),
                    e.toString());
            JMSException told = new JMSException(
                    "the MessageListener of " + c.queueDestination() + " threw "
                            + e.getClass().getName() + "; the message will be redelivered",
                    "LISTENER_FAILED");
            told.initCause(e);
            session.connection().onException(told);
            if (autoAck) {
                session.recoverDelivered();
            }
        } finally {
            ThreadRules.leaveListener();
            synchronized (idle) {
                inListener = false;
                idle.notifyAll();
            }
        }
        return true;
    }

    private static void sleepQuietly() {
        try {
            Thread.sleep(200);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
