package io.shardq.broker.shard;

import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.Query;
import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.selector.Selector;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A topic's subscriptions as its publishers need them: each subscription's bit, selector and
 * noLocal identity, and the subscription version they belong to ({@code shardq.shard.sub_version}).
 * {@link #stamp} gives each message the bitmap of the subscriptions that must receive it and
 * leaves out the messages nobody wants. Immutable; a queue's view stamps nothing.
 *
 * <p>The version is what makes a stale view harmless: a write names it in its reserving statement,
 * and a write whose view is older than the shard's finds nothing to update, reloads the view with
 * the shard row locked and stamps again (see docs/design/topics.md).
 */
final class TopicView {
    private static final Logger LOG = LoggerFactory.getLogger(TopicView.class);

    /** Who published a message, for noLocal: the JMS client id (may be null) and connection id. */
    record Origin(String clientId, String connectionId) {
        static final Origin NONE = new Origin(null, null);
    }

    /** One subscription: its bit, its selector (null: every message) and its noLocal identity. */
    record Entry(long id, int bit, Selector selector, boolean noLocal, String clientId, String connectionId) {
        boolean wants(BrokerMessage m, Origin origin) {
            if (noLocal && isLocal(origin)) {
                return false;
            }
            return selector == null || selector.matches(m);
        }

        /** Published by this subscription's own client (durable: same client id; else same connection). */
        private boolean isLocal(Origin origin) {
            if (clientId != null) {
                return clientId.equals(origin.clientId());
            }
            return connectionId != null && connectionId.equals(origin.connectionId());
        }
    }

    /** The view of a queue: nothing to stamp, version 0 (a queue's shards never change version). */
    static final TopicView QUEUE = new TopicView(false, 0, new Entry[0]);

    final boolean topic;
    final long version;
    private final Entry[] entries;

    TopicView(boolean topic, long version, Entry[] entries) {
        this.topic = topic;
        this.version = version;
        this.entries = entries;
    }

    /**
     * The messages to store, in order: for a topic each with the bitmap of the subscriptions that
     * want it, those nobody wants left out; for a queue the messages as they are.
     */
    List<BrokerMessage> stamp(List<BrokerMessage> messages, Origin origin) {
        if (!topic) {
            return messages;
        }
        List<BrokerMessage> out = new ArrayList<>(messages.size());
        for (BrokerMessage m : messages) {
            byte[] bits = bitmap(m, origin);
            if (bits != null) {
                out.add(m.withSubscribers(bits));
            }
        }
        return out;
    }

    /** The bitmap of the subscriptions that want {@code m}, trimmed after the highest bit; null for none. */
    byte[] bitmap(BrokerMessage m, Origin origin) {
        int highest = -1;
        byte[] bits = null;
        for (Entry e : entries) {
            if (!e.wants(m, origin)) {
                continue;
            }
            if (bits == null) {
                bits = new byte[(maxBit() >> 3) + 1];
            }
            bits[e.bit() >> 3] |= (byte) (1 << (e.bit() & 7));
            highest = Math.max(highest, e.bit());
        }
        if (bits == null) {
            return null;
        }
        int len = (highest >> 3) + 1;
        return len == bits.length ? bits : java.util.Arrays.copyOf(bits, len);
    }

    private int maxBit = -2;

    private int maxBit() {
        int m = maxBit;
        if (m == -2) {
            m = -1;
            for (Entry e : entries) {
                m = Math.max(m, e.bit());
            }
            maxBit = m;
        }
        return m;
    }

    /** The subscription with this id, or null. */
    Entry entry(long subscriptionId) {
        for (Entry e : entries) {
            if (e.id() == subscriptionId) {
                return e;
            }
        }
        return null;
    }

    /** Reads a topic's subscriptions and their version in one statement, on {@code c}. */
    static TopicView load(Connection c, int destinationId, TopicView previous) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.TOPIC_VIEW_SELECT))) {
            ps.setInt(1, destinationId);
            long version = -1;
            List<Entry> entries = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    version = rs.getLong(1);
                    long id = rs.getLong(2);
                    if (rs.wasNull()) {
                        continue;
                    }
                    String text = rs.getString(4);
                    entries.add(new Entry(
                            id,
                            rs.getInt(3),
                            compile(text, id, previous),
                            rs.getBoolean(5),
                            rs.getString(6),
                            rs.getString(7)));
                }
            }
            return new TopicView(true, version, entries.toArray(new Entry[0]));
        }
    }

    /**
     * A subscription's selector. One that does not compile (only possible when it was written by
     * hand in psql: the engine checks what it is given) selects every message, with a warning:
     * the subscription then receives too much rather than silently nothing.
     */
    private static Selector compile(String text, long id, TopicView previous) {
        if (text == null || text.isBlank()) {
            return null;
        }
        if (previous != null) {
            Entry old = previous.entry(id);
            if (old != null && old.selector() != null && old.selector().text().equals(text)) {
                return old.selector();
            }
        }
        try {
            return Selector.compile(text);
        } catch (RuntimeException e) {
            LOG.warn(
                    "subscription {} has a selector that does not compile ({}); it receives every message",
                    id,
                    e.getMessage());
            return null;
        }
    }
}
