package io.shardq.broker.shard;

/**
 * The highest committed sequence number of one shard known to this instance (from its own
 * commits, NOTIFY wake-ups and polls). One per shard of a destination, shared by the cursors of
 * all its subscriptions: a message is stored once, whoever consumes it.
 *
 * <p>It also remembers when its last {@link #RING} raises happened, so that the time a message
 * waited between becoming visible here and being taken by a consumer can be measured ({@link
 * StepTimes.Step#VISIBLE_TO_TAKEN}).
 *
 * <p>While its destination shrinks it may carry a <b>fence</b> (V015, see
 * docs/design/resharding.md): consumers then see the head no higher than {@code fence - 1}, whatever
 * this instance learns, until the fence is lifted; what it learned meanwhile is kept and shown at
 * the lift. Without a fence {@link #get} is one volatile read, as before.
 */
final class ShardHead {
    static final int RING = 64;

    private volatile long value;
    /** The highest committed sequence number learned, fence or not (guarded by the monitor). */
    private long learned;
    /** Consumers see nothing beyond this (Long.MAX_VALUE: no fence; written under the monitor). */
    private volatile long cap = Long.MAX_VALUE;
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
        learned = Math.max(learned, head);
        return show(Math.min(head, cap));
    }

    /**
     * Forgets what was learned: the server changed (a failover, a restart) and may have fewer
     * messages than this instance saw, its sequence numbers handed out again. Only after every
     * subscription's lease of the shard was dropped ({@link ShardState#lost}): the next lease
     * acquisition raises the head again to what the new server has. A fence stays.
     */
    synchronized void reset() {
        learned = 0;
        value = 0;
        cachedFrom.set(0);
    }

    /**
     * Consumers see nothing at or beyond {@code fence} until {@link #lift}. Set before a message
     * at or beyond it can be learned here (the catalog refresh, and the enqueue statement that
     * returns the fence, come first); a lower fence than one already set is kept.
     */
    synchronized void fence(long fence) {
        cap = Math.min(cap, fence - 1);
    }

    /** The fence is gone: shows what was learned beyond it; returns how many became visible. */
    synchronized long lift() {
        cap = Long.MAX_VALUE;
        return show(learned);
    }

    boolean fenced() {
        return cap != Long.MAX_VALUE;
    }

    private long show(long head) {
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
