package io.shardq.jms;

import jakarta.jms.JMSException;
import jakarta.jms.TemporaryQueue;

/**
 * A temporary queue: a real ShardQ queue with a generated name ({@code tmp.<instance>.<hex>}), one
 * shard, owned by the connection that created it. Any session of any connection or instance may
 * send to it (it travels as JMSReplyTo, wire form {@code temp-queue:NAME}); only its own
 * connection may consume from or browse it. It is deleted by {@link #delete()}, when its connection
 * closes, or by the maintenance leader once its instance is dead.
 */
public final class ShardQTemporaryQueue extends ShardQQueue implements TemporaryQueue {
    private static final long serialVersionUID = 1L;
    static final String KIND = "temp-queue";

    /** The connection that created it; null when decoded from a message or deserialized. */
    private final transient ShardQConnection owner;

    ShardQTemporaryQueue(String name, ShardQConnection owner) {
        super(name);
        this.owner = owner;
    }

    @Override
    String kind() {
        return KIND;
    }

    /**
     * Deletes the queue and its messages. Refused ({@link jakarta.jms.IllegalStateException}) while
     * its connection has consumers open on it, and for a reference not created by this
     * connection (a JMSReplyTo received elsewhere). Deleting it again does nothing.
     */
    @Override
    public void delete() throws JMSException {
        OwnedTemporaries.delete(this, owner);
    }

    @Override
    public String toString() {
        return "ShardQTemporaryQueue[" + getName() + "]";
    }
}
