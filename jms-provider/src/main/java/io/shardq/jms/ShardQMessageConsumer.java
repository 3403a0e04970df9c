package io.shardq.jms;

import io.shardq.broker.Privilege;
import io.shardq.broker.selector.Selector;
import io.shardq.broker.shard.BrokerConsumer;
import io.shardq.broker.shard.Delivery;
import jakarta.jms.IllegalStateException;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;
import jakarta.jms.Queue;
import jakarta.jms.QueueReceiver;
import jakarta.jms.Topic;
import jakarta.jms.TopicSubscriber;
import java.util.concurrent.TimeUnit;

/**
 * Receives from one queue through its session, optionally only messages matching a selector
 * (the others stay for other consumers). A blocking receive waits in slices of at most
 * {@link #SLICE_MILLIS}, so close() from another thread and connection stop take effect promptly.
 */
final class ShardQMessageConsumer implements QueueReceiver, TopicSubscriber {
    static final long SLICE_MILLIS = 200;

    private final ShardQSession session;
    private final ShardQDestination queue;
    private final boolean noLocal;
    private final BrokerConsumer engine;
    private final Selector selector;
    private volatile MessageListener listener;
    private volatile boolean closed;

    ShardQMessageConsumer(ShardQSession session, ShardQDestination queue, BrokerConsumer engine) {
        this(
                session,
                queue,
                engine,
                engine.selector() == null ? null : engine.selector().text(),
                false);
    }

    /** A topic subscriber: its subscription's selector (applied at publish) and noLocal, as given. */
    ShardQMessageConsumer(
            ShardQSession session,
            ShardQDestination queue,
            BrokerConsumer engine,
            String selectorText,
            boolean noLocal) {
        this.session = session;
        this.queue = queue;
        this.noLocal = noLocal;
        this.selectorText = selectorText;
        this.engine = engine;
        this.selector = engine.selector();
    }

    /** The engine consumer this wraps; used under the session's lock. */
    ShardQSession session() {
        return session;
    }

    BrokerConsumer engine() {
        return engine;
    }

    Selector selector() {
        return selector;
    }

    /** The queue or topic this consumer receives from. */
    ShardQDestination queueDestination() {
        return queue;
    }

    private final String selectorText;

    MessageListener listener() {
        return closed ? null : listener;
    }

    @Override
    public Queue getQueue() throws JMSException {
        checkOpen();
        if (!(queue instanceof Queue q)) {
            throw new IllegalStateException("this consumer receives from " + queue + ", not from a queue");
        }
        return q;
    }

    @Override
    public Topic getTopic() throws JMSException {
        checkOpen();
        if (!(queue instanceof Topic t)) {
            throw new IllegalStateException("this consumer receives from " + queue + ", not from a topic");
        }
        return t;
    }

    @Override
    public boolean getNoLocal() throws JMSException {
        checkOpen();
        return noLocal;
    }

    @Override
    public String getMessageSelector() throws JMSException {
        checkOpen();
        return selectorText;
    }

    @Override
    public MessageListener getMessageListener() throws JMSException {
        checkOpen();
        return listener;
    }

    /**
     * Takes effect for the next message: the session's listener thread chooses the listener under
     * the session lock, held here too, so this waits for a receive in progress on that thread.
     * {@code null} stops asynchronous delivery; {@code receive()} can be used again.
     */
    @Override
    public void setMessageListener(MessageListener listener) throws JMSException {
        checkOpen();
        if (listener != null && session instanceof ShardQXASession) {
            throw new jakarta.jms.IllegalStateException("a MessageListener on an XA session is not supported: its"
                    + " deliveries would run outside any global transaction (application servers deliver to XA"
                    + " sessions through their own facilities); call receive() inside the transaction instead");
        }
        session.lock.lock();
        try {
            this.listener = listener;
        } finally {
            session.lock.unlock();
        }
        session.listenersChanged();
    }

    @Override
    public Message receive() throws JMSException {
        return receiveUntil(Long.MAX_VALUE);
    }

    @Override
    public Message receive(long timeout) throws JMSException {
        return receiveUntil(timeout == 0 ? Long.MAX_VALUE : System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeout));
    }

    /**
     * For {@code JMSConsumer#receiveBody}: receives as {@link #receive(long)} ({@code timeout} -1: no
     * wait) but, in an AUTO_ACKNOWLEDGE or DUPS_OK session, does not acknowledge: the caller
     * acknowledges once the body was read, or recovers when it cannot be (JMS 3.1: a body that
     * cannot be assigned is not acknowledged and is delivered again).
     */
    Message receiveUnacknowledged(long timeout) throws JMSException {
        deferAck = true;
        try {
            return timeout < 0 ? receiveNoWait() : receive(timeout);
        } finally {
            deferAck = false;
        }
    }

    /** Set by {@link #receiveUnacknowledged} for the receive running on the caller's thread. */
    private boolean deferAck;

    @Override
    public Message receiveNoWait() throws JMSException {
        checkOpen();
        checkNoListener();
        if (!session.connection().isStarted()) {
            return null;
        }
        session.connection().require(queue.getName(), Privilege.RECEIVE);
        Delivery d = session.call(s -> engine.receive(-1, deferAck));
        return d == null ? null : session.toJms(d, queue);
    }

    private Message receiveUntil(long deadlineNanos) throws JMSException {
        checkOpen();
        checkNoListener();
        // a revoke reaches a consumer created before it (cached: no query per message)
        session.connection().require(queue.getName(), Privilege.RECEIVE);
        try {
            while (!closed && !session.isClosed()) {
                if (!session.connection().awaitStarted(deadlineNanos)) {
                    return null;
                }
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0) {
                    return null;
                }
                long slice = Math.max(1, Math.min(SLICE_MILLIS, TimeUnit.NANOSECONDS.toMillis(left)));
                Delivery d = session.call(s -> engine.receive(slice, deferAck));
                if (d != null) {
                    return session.toJms(d, queue);
                }
            }
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private void checkNoListener() throws IllegalStateException {
        if (listener != null) {
            throw new IllegalStateException("receive() cannot be used while a MessageListener is set on the consumer");
        }
    }

    /** Gives back what the session prefetched for this queue and did not deliver (see BrokerConsumer). */
    @Override
    public void close() throws JMSException {
        if (closed) {
            return;
        }
        closed = true;
        listener = null;
        session.removed(this);
        if (!session.isClosed()) {
            session.call(s -> {
                engine.close();
                return null;
            });
        }
    }

    void closedBySession() {
        closed = true;
        listener = null;
    }

    private void checkOpen() throws IllegalStateException {
        if (closed || session.isClosed()) {
            throw Exceptions.closed("consumer");
        }
    }
}
