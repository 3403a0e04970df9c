package io.shardq.broker;

import io.shardq.broker.catalog.DestinationInfo;

/**
 * A topic as {@code shardq.topics()} shows it: its settings, its expiry policy and what it holds.
 *
 * @param maxLag sequence numbers a subscription may fall behind before the maintenance leader
 *     expires its backlog; null: no limit
 * @param maxAgeSeconds age of a subscription's oldest unconsumed message beyond which its backlog
 *     expires; null: no limit
 * @param subscriptions subscriptions of every kind
 * @param retained messages stored and not yet passed by every subscription
 */
public record TopicInfo(
        DestinationInfo destination, Long maxLag, Long maxAgeSeconds, long subscriptions, long retained) {
    public String name() {
        return destination.name();
    }
}
