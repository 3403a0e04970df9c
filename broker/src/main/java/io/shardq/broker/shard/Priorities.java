package io.shardq.broker.shard;

import java.util.TreeSet;

/**
 * The untaken messages of one shard (for one subscription) whose priority this instance knows and
 * is not the default ({@link #DEFAULT}): one ordered set of sequence numbers per priority. Messages
 * of the default priority are not kept: they are the shard's plain sequence. Guarded by the owning
 * {@link ShardState}'s monitor.
 */
final class Priorities {
    /** JMS's default priority: a message with it is delivered in plain sequence order. */
    static final int DEFAULT = 4;

    @SuppressWarnings("unchecked")
    private final TreeSet<Long>[] bySeq = new TreeSet[10];

    private int size;

    Priorities() {
        for (int p = 0; p < bySeq.length; p++) {
            bySeq[p] = new TreeSet<>();
        }
    }

    int size() {
        return size;
    }

    /** Notes untaken message {@code seq} of priority {@code p} (not the default). */
    void add(long seq, int p) {
        if (bySeq[p].add(seq)) {
            size++;
        }
    }

    /** Forgets {@code seq} (it was taken, or passed by the cursor); true if it was noted. */
    boolean remove(long seq) {
        for (TreeSet<Long> set : bySeq) {
            if (set.remove(seq)) {
                size--;
                return true;
            }
        }
        return false;
    }

    boolean contains(long seq) {
        for (TreeSet<Long> set : bySeq) {
            if (set.contains(seq)) {
                return true;
            }
        }
        return false;
    }

    /** The lowest noted sequence number, or {@code Long.MAX_VALUE}. */
    long lowest() {
        long low = Long.MAX_VALUE;
        for (TreeSet<Long> set : bySeq) {
            if (!set.isEmpty()) {
                low = Math.min(low, set.first());
            }
        }
        return low;
    }

    /**
     * The noted message to deliver first among priorities {@code from} down to {@code to} with a
     * sequence number at most {@code maxSeq}: the highest priority, the oldest within it; -1 if none.
     */
    long best(int from, int to, long maxSeq) {
        for (int p = from; p >= to; p--) {
            TreeSet<Long> set = bySeq[p];
            if (!set.isEmpty() && set.first() <= maxSeq) {
                return set.first();
            }
        }
        return -1;
    }

    /** The highest noted priority, or -1. */
    int top() {
        for (int p = bySeq.length - 1; p >= 0; p--) {
            if (!bySeq[p].isEmpty()) {
                return p;
            }
        }
        return -1;
    }

    /** Forgets every noted number up to {@code seq} (consumed: the cursor passed them). */
    void removeUpTo(long seq) {
        for (TreeSet<Long> set : bySeq) {
            var head = set.headSet(seq, true);
            size -= head.size();
            head.clear();
        }
    }

    void clear() {
        for (TreeSet<Long> set : bySeq) {
            set.clear();
        }
        size = 0;
    }
}
