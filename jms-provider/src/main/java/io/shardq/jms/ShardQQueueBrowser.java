package io.shardq.jms;

import io.shardq.broker.Privilege;
import io.shardq.broker.browse.BrowseCursor;
import io.shardq.broker.browse.BrowsedMessage;
import io.shardq.broker.selector.Selector;
import jakarta.jms.IllegalStateException;
import jakarta.jms.JMSException;
import jakarta.jms.JMSRuntimeException;
import jakarta.jms.Message;
import jakarta.jms.Queue;
import jakarta.jms.QueueBrowser;
import java.util.Enumeration;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Looks at waiting messages without consuming them. Each {@link #getEnumeration()} opens its own
 * engine {@link BrowseCursor}: lazy, oldest first, the selector applied as pages are read, memory
 * bounded whatever the backlog, showing the messages sent before it was opened. Enumerations end
 * (no more elements) when the browser or its session closes.
 */
final class ShardQQueueBrowser implements QueueBrowser {
    private final ShardQSession session;
    private final ShardQQueue queue;
    private final String selectorText;
    private final Selector selector;
    private final Set<BrowseCursor> open = ConcurrentHashMap.newKeySet();
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
    public Enumeration<Message> getEnumeration() throws JMSException {
        checkOpen();
        session.connection().require(queue.getQueueName(), Privilege.BROWSE);
        BrowseCursor cursor;
        try {
            cursor = session.broker().browse(queue.getQueueName(), selector, BrowseCursor.Options.DEFAULTS);
        } catch (RuntimeException e) {
            throw Exceptions.translate(e);
        }
        open.add(cursor);
        if (closed) { // closed while opening: do not leave the cursor behind
            cursor.close();
            open.remove(cursor);
        }
        return new Messages(cursor);
    }

    @Override
    public void close() {
        closed = true;
        closeCursors();
        session.removed(this);
    }

    void closedBySession() {
        closed = true;
        closeCursors();
    }

    private void closeCursors() {
        for (BrowseCursor c : open) {
            c.close();
            open.remove(c);
        }
    }

    private void checkOpen() throws IllegalStateException {
        if (closed || session.isClosed()) {
            throw Exceptions.closed("browser");
        }
    }

    /** One enumeration: converts the cursor's messages one at a time, as they are asked for. */
    private final class Messages implements Enumeration<Message> {
        private final BrowseCursor cursor;

        Messages(BrowseCursor cursor) {
            this.cursor = cursor;
        }

        @Override
        public boolean hasMoreElements() {
            boolean more;
            try {
                more = cursor.hasNext();
            } catch (RuntimeException e) {
                throw Exceptions.unchecked(Exceptions.translate(e));
            }
            if (!more) {
                open.remove(cursor); // used up: nothing to close later
            }
            return more;
        }

        @Override
        public Message nextElement() {
            if (!hasMoreElements()) {
                throw new NoSuchElementException("no more messages in this browse of " + queue);
            }
            BrowsedMessage b = cursor.next();
            try {
                ShardQMessage m = MessageCodec.fromBroker(
                        b.message(), queue, 1, session.connection().allowList());
                ShardQSession.streamed(m, b.message(), session.connection());
                return m;
            } catch (JMSException e) {
                JMSRuntimeException r = Exceptions.unchecked(e);
                throw r;
            }
        }
    }
}
