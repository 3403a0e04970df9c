package io.shardq.metrics;

import io.shardq.broker.CacheInfo;
import io.shardq.broker.QueueStats;
import io.shardq.broker.SubscriptionStats;
import io.shardq.broker.TopicStats;
import java.util.Map;

/**
 * The figures that need SQL, read together at {@code takenAtMillis}: every queue's {@link
 * QueueStats}, every topic's {@link TopicStats} (with its subscriptions) and every key/value
 * cache's catalog row. Immutable; maps keyed by name. A destination or cache dropped while the
 * snapshot was read is left out.
 */
record Snapshot(
        long takenAtMillis,
        Map<String, QueueStats> queues,
        Map<String, TopicStats> topics,
        Map<String, CacheInfo> caches) {

    static final Snapshot EMPTY = new Snapshot(Long.MIN_VALUE, Map.of(), Map.of(), Map.of());

    /** The subscription {@code name} of {@code topic}, or null. */
    SubscriptionStats subscription(String topic, String name) {
        TopicStats t = topics.get(topic);
        if (t == null) {
            return null;
        }
        for (SubscriptionStats s : t.subscriptions()) {
            if (s.name().equals(name)) {
                return s;
            }
        }
        return null;
    }

    /** Messages waiting (a queue) or retained for a subscription not yet past them (a topic); NaN when gone. */
    double backlog(String destination) {
        QueueStats q = queues.get(destination);
        if (q != null) {
            return q.backlog();
        }
        TopicStats t = topics.get(destination);
        return t == null ? Double.NaN : t.topic().retained();
    }

    /** Age of the oldest waiting (queue) or retained (topic) message in ms: 0 when none, NaN when gone. */
    double oldestAgeMillis(String destination) {
        QueueStats q = queues.get(destination);
        if (q != null) {
            return Math.max(0, q.oldestMessageAgeMillis());
        }
        TopicStats t = topics.get(destination);
        if (t == null) {
            return Double.NaN;
        }
        Long oldest = t.oldestRetainedMillis();
        return oldest == null ? 0 : oldest;
    }

    /** Messages stored since the destination was created (database-wide); NaN when gone. */
    double stored(String destination) {
        QueueStats q = queues.get(destination);
        if (q != null) {
            return q.enqueued();
        }
        TopicStats t = topics.get(destination);
        return t == null ? Double.NaN : t.published();
    }

    /** A queue's messages sent with a delivery delay and not due yet; NaN for a topic or when gone. */
    double scheduled(String destination) {
        QueueStats q = queues.get(destination);
        return q == null ? Double.NaN : q.scheduled();
    }

    /** Subscriptions of a topic holding back a slice's retirement (0 for a queue); NaN when gone. */
    double retirementHeldBy(String destination) {
        if (queues.containsKey(destination)) {
            return 0;
        }
        TopicStats t = topics.get(destination);
        return t == null ? Double.NaN : t.holdingRetirement().size();
    }
}
