package io.shardq.jms;

import io.shardq.broker.catalog.DestinationInfo;
import jakarta.jms.IllegalStateException;
import jakarta.jms.InvalidDestinationException;
import jakarta.jms.JMSException;
import jakarta.jms.TemporaryQueue;
import jakarta.jms.TemporaryTopic;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The temporary destinations of one connection: created through the engine (which owns the catalog
 * rows and the DDL), consumed only by this connection, deleted by {@code delete()} or when the
 * connection closes. The connection is known to the engine by a random id of its own ({@link
 * #connectionId}), never by the JMS client id, which is optional and may be reused.
 */
final class OwnedTemporaries {
    private static final Logger LOG = LoggerFactory.getLogger(OwnedTemporaries.class);
    /** The engine's prefix of generated names (catalog.TemporaryDestinations.PREFIX). */
    static final String PREFIX = "tmp.";

    private final ShardQConnection connection;
    private final UUID connectionId = UUID.randomUUID();
    private final Map<String, ShardQDestination> owned = new ConcurrentHashMap<>();

    OwnedTemporaries(ShardQConnection connection) {
        this.connection = connection;
    }

    ShardQTemporaryQueue createQueue() throws JMSException {
        ShardQTemporaryQueue q = new ShardQTemporaryQueue(create("queue").name(), connection);
        owned.put(q.getName(), q);
        return q;
    }

    ShardQTemporaryTopic createTopic() throws JMSException {
        ShardQTemporaryTopic t = new ShardQTemporaryTopic(create("topic").name(), connection);
        owned.put(t.getName(), t);
        return t;
    }

    private DestinationInfo create(String kind) throws JMSException {
        connection.checkOpen();
        try {
            return connection.broker().temporaries().create(kind, connectionId);
        } catch (RuntimeException e) {
            throw Exceptions.translate(e);
        }
    }

    /** True when this connection created {@code name} and has not deleted it. */
    boolean owns(String name) {
        return owned.containsKey(name);
    }

    /** This connection's own object for {@code name}, so that a received JMSReplyTo can be deleted. */
    Optional<ShardQDestination> own(String name) {
        return Optional.ofNullable(owned.get(name));
    }

    /**
     * Refuses to consume or browse a temporary destination of another connection (or one that was
     * deleted). Costs a query only for names with the temporary prefix that this connection does
     * not own.
     */
    void checkConsumable(ShardQDestination d, String what) throws JMSException {
        String name = d.getName();
        if (owns(name)) {
            return;
        }
        boolean temporary = d instanceof TemporaryQueue || d instanceof TemporaryTopic;
        if (!temporary && !name.startsWith(PREFIX)) {
            return;
        }
        Optional<UUID> owner;
        try {
            owner = connection.broker().temporaries().owner(name);
        } catch (RuntimeException e) {
            throw Exceptions.translate(e);
        }
        if (owner.isPresent()) {
            throw new InvalidDestinationException("cannot " + what + " temporary destination \"" + name
                    + "\": it belongs to another connection, and only the connection that created a temporary"
                    + " destination may consume from it (any connection may send to it)");
        }
        if (temporary) {
            throw new InvalidDestinationException("cannot " + what + " temporary destination \"" + name
                    + "\": it does not exist (deleted, or its connection closed)");
        }
    }

    /** {@code TemporaryQueue.delete()} and {@code TemporaryTopic.delete()}. */
    static void delete(ShardQDestination d, ShardQConnection owner) throws JMSException {
        if (owner == null) {
            throw new IllegalStateException("temporary destination \"" + d.getName()
                    + "\" can be deleted only through the object its connection created (this one was received as"
                    + " JMSReplyTo or deserialized)");
        }
        owner.temporaries().delete(d);
    }

    private synchronized void delete(ShardQDestination d) throws JMSException {
        if (connection.isClosed() || !owned.containsKey(d.getName())) {
            return; // deleted already, or with its connection
        }
        connection.checkOpen();
        long consumers = connection.consumersOn(d.getName());
        if (consumers > 0) {
            throw new IllegalStateException("temporary destination \"" + d.getName() + "\" cannot be deleted: "
                    + consumers + " consumer(s) of this connection are open on it; close them first");
        }
        try {
            connection.broker().temporaries().drop(d.getName(), connectionId);
        } catch (RuntimeException e) {
            throw Exceptions.translate(e);
        }
        owned.remove(d.getName());
    }

    /** At connection close, after its sessions: drops every temporary destination it still owns. */
    synchronized void deleteAll() {
        if (connection.broker().isClosed()) {
            owned.clear(); // the instance dropped them when it closed
            return;
        }
        for (String name : List.copyOf(owned.keySet())) {
            try {
                connection.broker().temporaries().drop(name, connectionId);
            } catch (RuntimeException e) {
                // left behind: dropped when this instance closes, or by the leader once it is dead
                LOG.warn("temporary destination {} not deleted at connection close: {}", name, e.getMessage());
            }
            owned.remove(name);
        }
    }
}
