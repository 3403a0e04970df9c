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
import java.util.function.Function;

/**
 * The subscriptions and delivery policy part of {@link Admin}: add and remove a topic's
 * subscriptions, list them with their lag ({@code shardq.add_subscriber}, {@code
 * shardq.remove_subscriber}, {@code shardq.subscriptions}), and set a destination's delivery
 * policy ({@code shardq.set_delivery_policy}). Names and selectors are checked here first, so a
 * bad one fails with the parser's reason before any SQL runs; every change is told to this
 * instance at once ({@code changed}), as {@link Admin}'s own are.
 */
final class SubscriptionAdmin {
    private final AdminSql sql;
    /** Reads the destination again and tells this instance it changed; returns it. */
    private final Function<String, DestinationInfo> changed;

    SubscriptionAdmin(AdminSql sql, Function<String, DestinationInfo> changed) {
        this.sql = sql;
        this.changed = changed;
    }

    /**
     * Adds a durable shared subscription to the topic ({@code shardq.add_subscriber}, like Oracle's
     * ADD_SUBSCRIBER): it keeps what is published from now on that matches {@code selector} (null:
     * everything) until consumers take it; JMS consumers attach with {@code
     * createSharedDurableConsumer(topic, name)} on a connection without a client id.
     */
    void addSubscriber(String topic, String name, String selector) {
        Names.checkDestination(topic);
        if (selector != null && !selector.isBlank()) {
            io.shardq.broker.selector.Selector.compile(selector);
        }
        sql.call(
                Query.ADMIN_ADD_SUBSCRIBER,
                "adding subscriber " + name + " to " + topic,
                topic,
                name,
                selector == null || selector.isBlank() ? null : selector);
        changed.apply(topic);
    }

    /**
     * Removes a subscription of the topic ({@code shardq.remove_subscriber}); {@code clientId} names a
     * JMS durable subscription's client (null for those added here). Refused while it has an active
     * consumer unless {@code force}.
     */
    void removeSubscriber(String topic, String name, String clientId, boolean force) {
        Names.checkDestination(topic);
        sql.call(
                Query.ADMIN_REMOVE_SUBSCRIBER,
                "removing subscriber " + name + " from " + topic,
                topic,
                name,
                clientId,
                force);
        changed.apply(topic);
    }

    /** The topic's subscriptions with their lag, from {@code shardq.subscriptions(topic)}. */
    List<SubscriptionStats> subscriptions(String topic) {
        Names.checkDestination(topic);
        List<SubscriptionStats> out = new ArrayList<>();
        try (Connection c = sql.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.ADMIN_SELECT_SUBSCRIPTIONS))) {
            ps.setString(1, topic);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    long age = rs.getLong(9);
                    Long oldest = rs.wasNull() ? null : age;
                    java.sql.Timestamp expiredAt = rs.getTimestamp(12);
                    out.add(new SubscriptionStats(
                            rs.getString(1),
                            rs.getString(2),
                            rs.getString(3),
                            rs.getString(4),
                            rs.getInt(5),
                            rs.getBoolean(6),
                            rs.getLong(7),
                            rs.getLong(8),
                            oldest,
                            rs.getBoolean(10),
                            rs.getLong(11),
                            expiredAt == null ? null : expiredAt.toInstant(),
                            rs.getTimestamp(13).toInstant()));
                }
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "reading the subscriptions of " + topic);
        }
        return out;
    }

    /**
     * Sets the delivery policy of a queue or topic; what is null is unchanged. {@code expiryQueue}:
     * the queue that receives its messages found expired at delivery ({@code ""}: none, they are
     * dropped); {@code redeliveryDelayMs} (0: at once) and {@code redeliveryMultiplier} (1 or
     * more) override the instance's {@code shardq.redelivery.*} settings for it.
     */
    DestinationInfo setDeliveryPolicy(
            String name, String expiryQueue, Integer redeliveryDelayMs, Double redeliveryMultiplier) {
        return setDeliveryPolicy(name, expiryQueue, redeliveryDelayMs, redeliveryMultiplier, null);
    }

    /**
     * As {@link #setDeliveryPolicy(String, String, Integer, Double)}, and message groups on or off
     * (null: unchanged): with them, a message with a {@code JMSXGroupID} goes to the shard its
     * group hashes to, and each shard is taken by one consumer session at a time, so a group's
     * messages reach one consumer at a time, in order.
     */
    DestinationInfo setDeliveryPolicy(
            String name,
            String expiryQueue,
            Integer redeliveryDelayMs,
            Double redeliveryMultiplier,
            Boolean messageGroups) {
        Names.checkDestination(name);
        if (expiryQueue != null && !expiryQueue.isEmpty()) {
            Names.checkDestination(expiryQueue);
        }
        sql.call(
                Query.ADMIN_SET_DELIVERY_POLICY,
                "setting the delivery policy of " + name,
                name,
                expiryQueue,
                redeliveryDelayMs,
                redeliveryMultiplier,
                messageGroups);
        return changed.apply(name);
    }
}
