package io.shardq.broker;

import java.time.Instant;

/**
 * One subscription of a topic as {@code shardq.subscriptions(topic)} shows it.
 *
 * @param kind {@code durable}, {@code shared durable}, {@code shared} or {@code non-durable}
 * @param consumers open consumers on live instances
 * @param lag sequence numbers not passed yet over all shards: an upper bound on the messages it
 *     must still receive (messages without its bit are passed over, not received)
 * @param oldestAgeMillis age of its oldest message not passed yet, null when it is caught up
 * @param holdsRetirement a slice every other subscription has passed waits for this one
 * @param expiredSeqs sequence numbers the topic's expiry policy passed over for it
 * @param expiredAt when the policy last did, or null
 */
public record SubscriptionStats(
        String name,
        String clientId,
        String kind,
        String selector,
        int bit,
        boolean noLocal,
        long consumers,
        long lag,
        Long oldestAgeMillis,
        boolean holdsRetirement,
        long expiredSeqs,
        Instant expiredAt,
        Instant createdAt) {}
