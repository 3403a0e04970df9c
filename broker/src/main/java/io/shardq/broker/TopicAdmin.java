package io.shardq.broker;

import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.catalog.Names;
import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.Query;
import io.shardq.broker.internal.SqlErrors;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Topics and their subscriptions, from {@link Admin#topics()}: create, drop, alter (with the
 * expiry policy), list, statistics, and subscriptions added and removed by name. Each call is one
 * of the {@code shardq.*} SQL functions, with the names validated here first.
 */
public final class TopicAdmin {
    private final Admin admin;

    TopicAdmin(Admin admin) {
        this.admin = admin;
    }

    // ---------------------------------------------------------------- topics

    /** Creates a topic ({@code shardq.create_topic}); its subscriptions are added later. */
    public DestinationInfo create(String name, QueueOptions o) {
        return create(name, o, false);
    }

    /** Creates the topic with these options unless it exists; returns it either way. */
    public DestinationInfo createOrGet(String name, QueueOptions o) {
        return create(name, o, true);
    }

    private DestinationInfo create(String name, QueueOptions o, boolean ifNotExists) {
        return admin.create("topic", name, o, ifNotExists);
    }

    /** Drops the topic and its subscriptions; refuses one with undelivered messages unless {@code force}. */
    public void drop(String name, boolean force) {
        Names.checkDestination(name);
        admin.call(Query.ADMIN_DROP_TOPIC, "dropping topic " + name, name, force);
        admin.catalog().forget(name);
        admin.changedListener().accept(name);
    }

    /**
     * Changes what is not null, as {@link #alterQueue}, plus the expiry policy: {@code maxLag}
     * (sequence numbers a subscription may fall behind) and {@code maxAgeSeconds} (age of its
     * oldest unconsumed message); 0 clears a limit. Beyond them the maintenance leader expires the
     * subscription's backlog (counted in {@link SubscriptionStats#expiredSeqs()}, logged).
     */
    public DestinationInfo alter(
            String name,
            Integer shards,
            Integer sliceSize,
            Integer maxAttempts,
            String deadLetterQueue,
            Long maxLag,
            Long maxAgeSeconds) {
        Names.checkDestination(name);
        if (deadLetterQueue != null) {
            Names.checkDestination(deadLetterQueue);
        }
        admin.call(
                Query.ADMIN_ALTER_TOPIC,
                "altering topic " + name,
                name,
                shards,
                sliceSize,
                maxAttempts,
                deadLetterQueue,
                maxLag,
                maxAgeSeconds);
        return admin.changed(name);
    }

    /**
     * Adds a durable shared subscription to the topic ({@code shardq.add_subscriber}, like Oracle's
     * ADD_SUBSCRIBER): it keeps what is published from now on that matches {@code selector} (null:
     * everything) until consumers take it; JMS consumers attach with {@code
     * createSharedDurableConsumer(topic, name)} on a connection without a client id.
     */
    public void addSubscriber(String topic, String name, String selector) {
        admin.subscriptionAdmin().addSubscriber(topic, name, selector);
    }

    /**
     * Removes a subscription of the topic ({@code shardq.remove_subscriber}); {@code clientId} names a
     * JMS durable subscription's client (null for those added here). Refused while it has an active
     * consumer unless {@code force}.
     */
    public void removeSubscriber(String topic, String name, String clientId, boolean force) {
        admin.subscriptionAdmin().removeSubscriber(topic, name, clientId, force);
    }

    /** The topic's subscriptions with their lag, from {@code shardq.subscriptions(topic)}. */
    public List<SubscriptionStats> subscriptions(String topic) {
        return admin.subscriptionAdmin().subscriptions(topic);
    }

    /** Every topic with its expiry policy and what it retains, from {@code shardq.topics()}, by name. */
    public List<TopicInfo> list() {
        List<TopicInfo> out = new ArrayList<>();
        try (Connection c = admin.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.ADMIN_SELECT_TOPICS));
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                String name = rs.getString(1);
                // a topic dropped since the statement ran is left out
                admin.catalog().reload(name).ifPresent(d -> out.add(topicInfo(d, rs)));
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "listing the topics");
        }
        return out;
    }

    /** The topic called {@code name}; UNKNOWN_DESTINATION when there is none, INVALID_ARGUMENT for a queue. */
    public TopicInfo get(String name) {
        Names.checkDestination(name);
        admin.call(Query.ADMIN_TOPIC_ID, "reading topic " + name, name); // names an unknown topic or a queue
        try (Connection c = admin.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.ADMIN_SELECT_TOPIC))) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new ShardQException(
                            ErrorKind.UNKNOWN_DESTINATION, "destination \"" + name + "\" does not exist");
                }
                return topicInfo(admin.require(name), rs);
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "reading topic " + name);
        }
    }

    private static TopicInfo topicInfo(DestinationInfo d, ResultSet rs) {
        try {
            long lag = rs.getLong(2);
            Long maxLag = rs.wasNull() ? null : lag;
            long age = rs.getLong(3);
            Long maxAge = rs.wasNull() ? null : age;
            return new TopicInfo(d, maxLag, maxAge, rs.getLong(4), rs.getLong(5));
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "reading topic " + d.name());
        }
    }

    /**
     * A topic's shards (head, slowest cursor and whose, retained messages, slices, bytes) from
     * {@code shardq.topic_shard_stats(topic)} and its subscriptions from {@code
     * shardq.subscriptions(topic)}.
     */
    public TopicStats stats(String name) {
        TopicInfo topic = get(name);
        List<TopicStats.Shard> shards = new ArrayList<>();
        try (Connection c = admin.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.ADMIN_SELECT_TOPIC_SHARDS))) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    long pos = rs.getLong(3);
                    Long slowest = rs.wasNull() ? null : pos;
                    long age = rs.getLong(8);
                    Long oldest = rs.wasNull() ? null : age;
                    shards.add(new TopicStats.Shard(
                            rs.getInt(1),
                            rs.getLong(2),
                            slowest,
                            rs.getString(4),
                            rs.getString(5),
                            rs.getLong(6),
                            rs.getLong(7),
                            oldest,
                            rs.getLong(9),
                            rs.getLong(10),
                            rs.getLong(11),
                            rs.getLong(12),
                            rs.getLong(13)));
                }
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "reading the shards of topic " + name);
        }
        return new TopicStats(topic, List.copyOf(shards), subscriptions(name));
    }
}
