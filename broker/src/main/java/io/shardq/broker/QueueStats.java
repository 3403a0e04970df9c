package io.shardq.broker;

import io.shardq.broker.catalog.DestinationInfo;
import java.util.List;

/**
 * A point-in-time view of one queue, read from the catalog and PostgreSQL's statistics.
 *
 * @param oldestMessageAgeMillis age of the oldest waiting message, -1 when none waits
 * @param scheduled messages sent with a delivery delay that are not due yet (not in the backlog:
 *     they wait in {@code shardq.scheduled_message} until moved into a shard)
 */
public record QueueStats(
        DestinationInfo destination,
        long backlog,
        long enqueued,
        long oldestMessageAgeMillis,
        List<ShardStats> shards,
        int slicesInUse,
        int slicesFree,
        long tableBytes,
        long deadTuples,
        long scheduled) {

    /**
     * @param leaseInstance instance holding the dequeue lease, 0 when none
     * @param draining the queue shrinks and this shard takes no new messages: it is retired once
     *     its consumers drained it
     */
    public record ShardStats(
            int shardNo, long nextSeq, long position, long backlog, long leaseInstance, boolean draining) {}
}
