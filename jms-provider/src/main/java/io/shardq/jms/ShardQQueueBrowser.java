package io.shardq.jms;

import io.shardq.broker.Broker;
import io.shardq.broker.selector.Selector;
import jakarta.jms.IllegalStateException;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.Queue;
import jakarta.jms.QueueBrowser;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;

/**
 * Looks at waiting messages without consuming them: a snapshot of up to {@link #LIMIT} messages,
 * oldest first, filtered by the selector.
 */
final class ShardQQueueBrowser implements QueueBrowser {
    static final int LIMIT = 10_000;

    private final ShardQSession session;
    private final ShardQQueue queue;
    private final String selectorText;
    private final Selector selector;
    private volatile boolean closed;

    ShardQQueueBrowser(ShardQSession session, ShardQQueue queue, String selectorText, Selector selector) {
        this.session = session;
        this.queue = queue;
        this.selectorText = selectorText;
        this.selector = selector;
    }

    @Override
    public Queue getQueue() throws JMSException {
        checkOpen();
        return queue;
    }

    @Override
    public String getMessageSelector() throws JMSException {
        checkOpen();
        return selectorText;
    }

    @Override
    public Enumeration<?> getEnumeration() throws JMSException {
        checkOpen();
        List<Broker.BrowsedMessage> seen;
        try {
            seen = session.broker().browse(queue.getQueueName(), LIMIT);
        } catch (RuntimeException e) {
            throw Exceptions.translate(e);
        }
        List<Message> out = new ArrayList<>();
        for (Broker.BrowsedMessage b : seen) {
            if (selector == null || selector.matches(b.message())) {
                out.add(MessageCodec.fromBroker(
                        b.message(), queue, 1, session.connection().allowList()));
            }
        }
        return Collections.enumeration(out);
    }

    @Override
    public void close() {
        closed = true;
        session.removed(this);
    }

    void closedBySession() {
        closed = true;
    }

    private void checkOpen() throws IllegalStateException {
        if (closed || session.isClosed()) {
            throw Exceptions.closed("browser");
        }
    }
}
