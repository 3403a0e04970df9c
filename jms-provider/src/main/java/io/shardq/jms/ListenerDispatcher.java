package io.shardq.jms;

import io.shardq.broker.shard.Delivery;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;
import jakarta.jms.Session;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one thread that runs a session's MessageListeners, one message at a time, while the
 * connection is started. In AUTO/DUPS_OK mode a message is acknowledged after onMessage returns;
 * if onMessage throws, it is redelivered (JMSRedelivered, JMSXDeliveryCount) and, past the
 * queue's max attempts, dead-lettered.
 */
final class ListenerDispatcher {
    private static final Logger LOG = LoggerFactory.getLogger(ListenerDispatcher.class);

    private final ShardQSession session;
    private final Thread thread;
    private final Object idle = new Object();
    private volatile boolean running = true;
    private boolean inListener;

    ListenerDispatcher(ShardQSession session) {
        this.session = session;
        this.thread = new Thread(this::loop, "shardq-" + session.broker().instanceId() + "-listener");
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    void wake() {
        // the loop polls in short slices; nothing to do
    }

    void stop() {
        running = false;
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
                boolean delivered = false;
                for (ShardQMessageConsumer c : session.consumers()) {
                    MessageListener l = c.listener();
                    if (l != null && running) {
                        delivered |= deliverOne(c, l, 0);
                    }
                }
                if (!delivered) {
                    for (ShardQMessageConsumer c : session.consumers()) {
                        MessageListener l = c.listener();
                        if (l != null && running) {
                            deliverOne(c, l, 100);
                            break;
                        }
                    }
                }
            } catch (JMSException e) {
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

    private boolean deliverOne(ShardQMessageConsumer c, MessageListener l, long waitMillis) throws JMSException {
        Delivery d = session.call(s ->
                s.receive(c.queueDestination().getQueueName(), waitMillis == 0 ? -1 : waitMillis, true, c.selector()));
        if (d == null) {
            return false;
        }
        Message m = session.toJms(d, c.queueDestination());
        int mode = session.sessionMode();
        boolean autoAck = mode == Session.AUTO_ACKNOWLEDGE || mode == Session.DUPS_OK_ACKNOWLEDGE;
        synchronized (idle) {
            inListener = true;
        }
        ThreadRules.enterListener(session);
        try {
            l.onMessage(m);
            if (autoAck) {
                session.acknowledge();
            }
        } catch (RuntimeException e) {
            LOG.debug("MessageListener threw {}; the message will be redelivered", e.toString());
            if (autoAck) {
                session.call(s -> {
                    s.recover();
                    return null;
                });
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
