package io.shardq.broker.shard;

/**
 * The highest committed sequence number of one shard known to this instance (from its own
 * commits, NOTIFY wake-ups and polls). One per shard of a destination, shared by the cursors of
 * all its subscriptions: a message is stored once, whoever consumes it.
 */
final class ShardHead {
    private volatile long value;

    long get() {
        return value;
    }

    /** Raises the head; returns how many new messages became visible (0 when it did not move). */
    synchronized long raise(long head) {
        long before = value;
        if (head > before) {
            value = head;
            return head - before;
        }
        return 0;
    }
}
