package io.shardq.broker.shard;

/**
 * The highest committed sequence number of one shard known to this instance (from its own
 * commits, NOTIFY wake-ups and polls). One per shard of a destination, shared by the cursors of
 * all its subscriptions: a message is stored once, whoever consumes it.
 *
 * <p>It also remembers when its last {@link #RING} raises happened, so that the time a message
 * waited between becoming visible here and being taken by a consumer can be measured ({@link
 * StepTimes.Step#VISIBLE_TO_TAKEN}).
 */
final class ShardHead {
    static final int RING = 64;

    private volatile long value;
    /** Raise i made (raisedFrom[i], raisedTo[i]] visible at raisedAt[i] (nanoTime). */
    private final long[] raisedFrom = new long[RING];

    private final long[] raisedTo = new long[RING];
    private final long[] raisedAt = new long[RING];
    private int raises;
    /**
     * A topic's messages up to this sequence number were dropped from the message cache: every
     * local subscription with a consumer had consumed them ({@link DestinationRuntime#trimCache}).
     */
    final java.util.concurrent.atomic.AtomicLong cachedFrom = new java.util.concurrent.atomic.AtomicLong();

    long get() {
        return value;
    }

    /** Raises the head; returns how many new messages became visible (0 when it did not move). */
    synchronized long raise(long head) {
        long before = value;
        if (head > before) {
            value = head;
            int i = raises++ & (RING - 1);
            raisedFrom[i] = before;
            raisedTo[i] = head;
            raisedAt[i] = System.nanoTime();
            return head - before;
        }
        return 0;
    }

    /**
     * Records, for each sequence number taken at {@code nowNanos}, how long ago it became visible;
     * those older than the remembered raises are not recorded.
     */
    synchronized void recordWaits(Iterable<Long> seqs, long nowNanos, StepTimes times) {
        int n = Math.min(raises, RING);
        for (long seq : seqs) {
            for (int k = 1; k <= n; k++) {
                int i = (raises - k) & (RING - 1);
                if (seq > raisedTo[i]) {
                    break; // newer raises only go higher: not seen being raised (a lease's first read)
                }
                if (seq > raisedFrom[i]) {
                    times.record(StepTimes.Step.VISIBLE_TO_TAKEN, nowNanos - raisedAt[i]);
                    break;
                }
            }
        }
    }
}
