package io.shardq.jms;

import jakarta.jms.Destination;
import jakarta.jms.JMSException;
import jakarta.jms.Queue;
import jakarta.jms.Topic;
import java.io.Serializable;
import java.util.Objects;

/**
 * A queue or topic by name. Equal when kind and name are equal, so a destination decoded from a
 * received message's JMSReplyTo equals the one the application created.
 *
 * <p>The wire form ({@link #encoded()}, stored in {@code BrokerMessage.replyTo}) is {@code
 * kind:NAME}: {@code queue:orders}, {@code topic:prices}, and for temporary destinations {@code
 * temp-queue:tmp.7.4f3a...} and {@code temp-topic:...}, so a temporary destination decoded in
 * another connection or instance is still a {@code TemporaryQueue} (one that cannot be deleted
 * there).
 */
public abstract class ShardQDestination implements Destination, Serializable {
    private static final long serialVersionUID = 1L;

    static final String QUEUE_KIND = "queue";
    static final String TOPIC_KIND = "topic";

    private final String name;

    ShardQDestination(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("destination name must not be null or empty");
        }
        this.name = name;
    }

    /** The queue or topic name, as created. */
    public final String getName() {
        return name;
    }

    /** The kind part of the wire form: {@code queue}, {@code topic}. */
    abstract String kind();

    /** What the engine calls this kind of destination: {@code queue} or {@code topic} (temporary or not). */
    final String engineKind() {
        return this instanceof jakarta.jms.Topic ? TOPIC_KIND : QUEUE_KIND;
    }

    /** {@code kind:NAME}, as stored in {@code BrokerMessage.replyTo}. */
    final String encoded() {
        return kind() + ':' + name;
    }

    /**
     * The wire form of any destination, including other providers' queues and topics (by their
     * public name).
     *
     * @return {@code kind:NAME}, or null for null
     * @throws JMSException when the destination is neither a queue nor a topic
     */
    static String encode(Destination destination) throws JMSException {
        if (destination == null) {
            return null;
        }
        if (destination instanceof ShardQDestination d) {
            return d.encoded();
        }
        if (destination instanceof Queue q) {
            return QUEUE_KIND + ':' + q.getQueueName();
        }
        if (destination instanceof Topic t) {
            return TOPIC_KIND + ':' + t.getTopicName();
        }
        throw new jakarta.jms.InvalidDestinationException("destination "
                + io.shardq.broker.message.Texts.cut(String.valueOf(destination), 120) + " ("
                + destination.getClass().getName() + ") is neither a Queue nor a Topic");
    }

    /**
     * Parses the wire form.
     *
     * @return the destination, or null for null
     * @throws IllegalArgumentException when the text is not {@code queue:NAME}, {@code topic:NAME},
     *     {@code temp-queue:NAME} or {@code temp-topic:NAME}
     */
    static ShardQDestination decode(String encoded) {
        if (encoded == null) {
            return null;
        }
        int colon = encoded.indexOf(':');
        String kind = colon < 0 ? "" : encoded.substring(0, colon);
        String name = encoded.substring(colon + 1);
        if (colon > 0 && !name.isEmpty()) {
            if (kind.equals(QUEUE_KIND)) {
                return new ShardQQueue(name);
            }
            if (kind.equals(TOPIC_KIND)) {
                return new ShardQTopic(name);
            }
            if (kind.equals(ShardQTemporaryQueue.KIND)) {
                return new ShardQTemporaryQueue(name, null);
            }
            if (kind.equals(ShardQTemporaryTopic.KIND)) {
                return new ShardQTemporaryTopic(name, null);
            }
        }
        throw new IllegalArgumentException("destination \"" + io.shardq.broker.message.Texts.cut(encoded, 120)
                + "\" is invalid: expected queue:NAME, topic:NAME, temp-queue:NAME or temp-topic:NAME");
    }

    @Override
    public final boolean equals(Object o) {
        return o instanceof ShardQDestination d && d.kind().equals(kind()) && d.name.equals(name);
    }

    @Override
    public final int hashCode() {
        return Objects.hash(kind(), name);
    }
}
