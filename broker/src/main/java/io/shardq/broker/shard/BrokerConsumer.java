package io.shardq.broker.shard;

import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.selector.Selector;

/**
 * One consumer of a {@link BrokerSession}: the destination it receives from, its selector, and the
 * {@link ConsumerCursor} it receives through, which owns what the session holds of the
 * subscription (claims, prefetch, scan positions) and runs the receive; the session's other
 * consumers of the same subscription share that cursor, as they share the transaction. Closing it
 * gives back what was prefetched for its subscription and not delivered, unless another open
 * consumer of the session receives from it; what it delivered stays in the session's transaction.
 * Not thread-safe, like its session.
 */
public final class BrokerConsumer implements AutoCloseable {
    private final BrokerSession session;
    private final String destination;
    private final Selector selector;
    /** The subscription that counts this consumer while it is open (flow control). */
    final Subscription subscription;
    /** What the session holds of the subscription: claims, prefetch, scan positions. */
    private final ConsumerCursor cursor;

    private boolean closed;

    BrokerConsumer(BrokerSession session, String destination, Selector selector, Subscription subscription) {
        this.session = session;
        this.destination = destination;
        this.selector = selector;
        this.subscription = subscription;
        this.cursor = session.cursor(subscription);
        subscription.openConsumers.incrementAndGet();
    }

    public String destination() {
        return destination;
    }

    /** The selector, or null for every message. */
    public Selector selector() {
        return selector;
    }

    /**
     * The next message, or null when none arrived in time.
     *
     * @param timeoutMillis 0 waits for ever, a negative value does not wait
     * @param deferAck in AUTO/DUPS_OK sessions, leave the acknowledgement to {@link
     *     BrokerSession#acknowledge()} (message listeners acknowledge after onMessage returns)
     */
    public Delivery receive(long timeoutMillis, boolean deferAck) {
        if (closed) {
            throw new ShardQException(ErrorKind.ILLEGAL_STATE, "the consumer of " + destination + " is closed");
        }
        return cursor.receive(destination, timeoutMillis, deferAck, selector);
    }

    public boolean isClosed() {
        return closed;
    }

    /** Safe twice. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            session.consumerClosed(this);
        }
    }
}
