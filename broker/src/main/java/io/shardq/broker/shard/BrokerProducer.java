package io.shardq.broker.shard;

import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.message.BrokerMessage;

/**
 * One producer of a {@link BrokerSession}, for a fixed destination or, with none, for any. The
 * shard a message goes to is pinned per (session, destination), not per producer: JMS orders the
 * messages a session sends to a destination, whichever of its producers sends them, so all
 * producers of a session share the pin (see {@code EnqueueOwnership#producerShard}). Not
 * thread-safe, like its session.
 */
public final class BrokerProducer implements AutoCloseable {
    private final BrokerSession session;
    private final String destination;
    private volatile boolean closed;

    BrokerProducer(BrokerSession session, String destination) {
        this.session = session;
        this.destination = destination;
    }

    /** The fixed destination, or null for an anonymous producer. */
    public String destination() {
        return destination;
    }

    /** Sends to the fixed destination (transacted: buffered until commit). */
    public void send(BrokerMessage message) {
        if (destination == null) {
            throw new ShardQException(
                    ErrorKind.ILLEGAL_STATE, "this producer has no destination: name one with each send");
        }
        send(destination, message);
    }

    /** Sends to {@code destination} (the JMS layer allows a named one only on anonymous producers). */
    public void send(String destination, BrokerMessage message) {
        if (closed) {
            throw new ShardQException(ErrorKind.ILLEGAL_STATE, "the producer is closed");
        }
        session.send(destination, message);
    }

    /**
     * Sends to {@code destination} a message whose body is streamed from {@code body} (see {@link
     * BrokerSession#send(String, BrokerMessage, java.io.InputStream)}).
     */
    public void send(String destination, BrokerMessage message, java.io.InputStream body) {
        if (closed) {
            throw new ShardQException(ErrorKind.ILLEGAL_STATE, "the producer is closed");
        }
        session.send(destination, message, body);
    }

    /** Safe twice. */
    @Override
    public void close() {
        closed = true;
    }
}
