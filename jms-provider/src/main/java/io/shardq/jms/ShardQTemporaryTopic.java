package io.shardq.jms;

import jakarta.jms.JMSException;
import jakarta.jms.TemporaryTopic;

/**
 * A temporary topic: a real ShardQ topic with a generated name ({@code tmp.<instance>.<hex>}), one
 * shard, owned by the connection that created it; wire form {@code temp-topic:NAME}. Only its own
 * connection may consume from it. It is deleted by {@link #delete()}, when its connection closes,
 * or by the maintenance leader once its instance is dead.
 */
public final class ShardQTemporaryTopic extends ShardQTopic implements TemporaryTopic {
    private static final long serialVersionUID = 1L;
    static final String KIND = "temp-topic";

    /** The connection that created it; null when decoded from a message or deserialized. */
    private final transient ShardQConnection owner;

    ShardQTemporaryTopic(String name, ShardQConnection owner) {
        super(name);
        this.owner = owner;
    }

    @Override
    String kind() {
        return KIND;
    }

    /**
     * Deletes the topic. Refused ({@link jakarta.jms.IllegalStateException}) while its connection
     * has consumers open on it, and for a reference not created by this connection. Deleting it
     * again does nothing.
     */
    @Override
    public void delete() throws JMSException {
        OwnedTemporaries.delete(this, owner);
    }

    @Override
    public String toString() {
        return "ShardQTemporaryTopic[" + getName() + "]";
    }
}
