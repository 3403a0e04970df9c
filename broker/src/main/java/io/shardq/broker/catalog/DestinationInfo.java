package io.shardq.broker.catalog;

/**
 * One destination as the catalog describes it: an immutable snapshot.
 *
 * @param queueSubscription id of the single subscription of a queue (0 for topics)
 * @param subVersion a topic's subscription version (moves when a subscription is created or
 *     dropped; 0 for queues)
 * @param expiryName the queue that receives this destination's messages found expired at delivery
 *     (null: they are dropped)
 * @param redeliveryDelayMs the wait before a redelivery, overriding the instance's setting (null:
 *     the instance's {@code shardq.redelivery.delay-ms})
 * @param redeliveryMultiplier the back-off multiplier, overriding the instance's (null: its own)
 * @param messageGroups messages with a {@code JMSXGroupID} go to the shard of their group, and each
 *     shard is taken by one consumer session at a time
 * @param groupMap where groups go (V014): a group hashed to {@code i} over the map's size goes to
 *     shard {@code groupMap.get(i)}; empty: the identity over {@code shardCount} (no grow since
 *     groups were turned on)
 * @param drainingFrom while the destination shrinks (V015): shards from this one up are draining,
 *     taking no new messages until the maintenance leader retires them (null: no shrink under way)
 * @param fences while it shrinks: by active shard, the sequence number from which its consumers
 *     wait for the draining shards to be empty (null entries, or an empty list: no fence)
 */
public record DestinationInfo(
        int id,
        String name,
        String kind,
        int shardCount,
        int sliceSize,
        int maxAttempts,
        String deadLetterName,
        boolean enqueueEnabled,
        boolean dequeueEnabled,
        long queueSubscription,
        long subVersion,
        String expiryName,
        Integer redeliveryDelayMs,
        Double redeliveryMultiplier,
        boolean messageGroups,
        java.util.List<Integer> groupMap,
        Integer drainingFrom,
        java.util.List<Long> fences) {

    /** The shards that take new messages: all of them, or those below the draining ones. */
    public int activeShards() {
        return drainingFrom == null ? shardCount : Math.min(drainingFrom, shardCount);
    }

    /** True while the destination shrinks: some of its shards are draining. */
    public boolean shrinking() {
        return drainingFrom != null && drainingFrom < shardCount;
    }

    public boolean isTopic() {
        return kind.equals("topic");
    }

    public boolean isQueue() {
        return kind.equals("queue");
    }

    /**
     * The shard of message group {@code group}: its {@code String.hashCode} (specified, so the same
     * in every JVM) over the recorded assignment, which a grow leaves as it was, so a group keeps
     * its shard for its life.
     */
    public int groupShard(String group) {
        if (groupMap.isEmpty()) {
            return Math.floorMod(group.hashCode(), activeShards());
        }
        return groupMap.get(Math.floorMod(group.hashCode(), groupMap.size()));
    }

    /** The queue dead letters go to: the configured one, else {@code <name>.DLQ}. */
    public String deadLetterQueue() {
        if (deadLetterName != null) {
            return deadLetterName;
        }
        String base = name.length() > 60 ? name.substring(0, 60) : name;
        return base + ".DLQ";
    }
}
