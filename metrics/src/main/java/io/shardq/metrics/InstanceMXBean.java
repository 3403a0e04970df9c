package io.shardq.metrics;

/**
 * One ShardQ instance ({@code io.shardq:type=Instance,instance=ID}): its own counters since it
 * started, read from memory. The meanings are those of the meters of the same names in {@code
 * docs/design/operations.md}, "Metrics and JMX".
 */
public interface InstanceMXBean {
    long getInstanceId();

    boolean isMaintenanceLeader();

    long getEnqueued();

    long getDequeued();

    long getDeadLettered();

    long getExpired();

    long getMessageCacheHits();

    long getMessageCacheMisses();

    double getMessageCacheHitRatio();

    long getMessageCacheBytes();

    long getDequeueSqlReads();

    double getSqlReadsPerDequeue();

    long getSendCommits();

    double getSendCommitMillisTotal();

    long getConsumeCommits();

    double getConsumeCommitMillisTotal();

    /** True while a slice cannot be truncated because a session holds a lock on it. */
    boolean isRetirementBlocked();

    /** How long it has been blocked, 0 when it is not. */
    long getRetirementBlockedMillis();

    /** The slice and the backends holding it ({@code pid}, state, since when), or empty. */
    String getRetirementBlockedBy();

    long getSlicesRetired();
}
