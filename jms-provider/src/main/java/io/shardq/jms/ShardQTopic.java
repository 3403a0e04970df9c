package io.shardq.jms;

import jakarta.jms.Topic;

/** A ShardQ topic, identified by its name. */
public class ShardQTopic extends ShardQDestination implements Topic {
    private static final long serialVersionUID = 1L;

    /**
     * A reference to a topic by name; it does not create the topic. Prefer {@code
     * Session.createTopic}, which checks the name.
     */
    public ShardQTopic(String name) {
        super(name);
    }

    @Override
    public String getTopicName() {
        return getName();
    }

    @Override
    String kind() {
        return TOPIC_KIND;
    }

    @Override
    public String toString() {
        return "ShardQTopic[" + getName() + "]";
    }
}
