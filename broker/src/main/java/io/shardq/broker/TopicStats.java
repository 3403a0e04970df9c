package io.shardq.broker;

import java.util.List;

/**
 * A topic's state for an operator: per shard the head and the slowest cursor (nothing behind it
 * can be retired), and the subscriptions with their lag and whether they hold retirement.
 *
 * @param shards from {@code shardq.topic_shard_stats(topic)}, by shard number
 * @param subscriptions from {@code shardq.subscriptions(topic)}, by bit
 */
public record TopicStats(TopicInfo topic, List<Shard> shards, List<SubscriptionStats> subscriptions) {
    /**
     * One shard of a topic.
     *
     * @param slowestPosition the lowest cursor of the shard; null when the topic has no subscription
     * @param slowestSubscription whose cursor it is (the lowest bit when several share it)
     * @param slowestClientId its client id, null for an administered or shared one without
     * @param slowestCount subscriptions whose cursor is at that position
     * @param retained sequence numbers behind the head not yet passed by every subscription
     * @param oldestRetainedMillis age of the oldest of them, null when there is none
     * @param ownerInstance the instance owning the shard for enqueue, 0 for none
     */
    public record Shard(
            int shardNo,
            long nextSeq,
            Long slowestPosition,
            String slowestSubscription,
            String slowestClientId,
            long slowestCount,
            long retained,
            Long oldestRetainedMillis,
            long slicesInUse,
            long slicesFree,
            long tableBytes,
            long deadTuples,
            long ownerInstance) {}

    /** Messages published since the topic was created (stored ones: a message nobody wanted takes no number). */
    public long published() {
        return shards.stream().mapToLong(s -> s.nextSeq() - 1).sum();
    }

    /** Age of the oldest retained message over all shards, or null when nothing is retained. */
    public Long oldestRetainedMillis() {
        return shards.stream()
                .map(Shard::oldestRetainedMillis)
                .filter(a -> a != null)
                .max(Long::compare)
                .orElse(null);
    }

    public long slicesInUse() {
        return shards.stream().mapToLong(Shard::slicesInUse).sum();
    }

    public long slicesFree() {
        return shards.stream().mapToLong(Shard::slicesFree).sum();
    }

    public long tableBytes() {
        return shards.stream().mapToLong(Shard::tableBytes).sum();
    }

    public long deadTuples() {
        return shards.stream().mapToLong(Shard::deadTuples).sum();
    }

    /** The subscriptions that hold back the retirement of a slice the others have passed. */
    public List<SubscriptionStats> holdingRetirement() {
        return subscriptions.stream().filter(SubscriptionStats::holdsRetirement).toList();
    }
}
