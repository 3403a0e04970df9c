package io.shardq.jms;

import jakarta.jms.Queue;

/** A ShardQ queue, identified by its name. */
public class ShardQQueue extends ShardQDestination implements Queue {
    private static final long serialVersionUID = 1L;

    /**
     * A reference to a queue by name; it does not create the queue. Prefer {@code
     * Session.createQueue}, which checks the name.
     */
    public ShardQQueue(String name) {
        super(name);
    }

    @Override
    public String getQueueName() {
        return getName();
    }

    @Override
    String kind() {
        return QUEUE_KIND;
    }

    @Override
    public String toString() {
        return "ShardQQueue[" + getName() + "]";
    }
}
