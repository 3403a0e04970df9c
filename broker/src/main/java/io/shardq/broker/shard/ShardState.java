package io.shardq.broker.shard;

import java.util.concurrent.ConcurrentHashMap;

/**
 * What this instance knows of one shard of one destination. Guarded by the owning {@link
 * DestinationRuntime}'s lock, except {@link #attempts}.
 */
final class ShardState {
    final int shardNo;
    /** Highest committed sequence number known here (from local commits, notifies, polls). */
    long knownHead;
    /** True while this instance holds the dequeue lease of the (shard, subscription) cursor. */
    boolean leased;
    /** Committed cursor position (valid while leased). */
    long position;
    /** Session with uncommitted deliveries from this shard; only it may deliver from here. */
    Object claimedBy;
    /** Next sequence number the claiming session will deliver. */
    long nextSeq;
    /** nanoTime of the last claim, for idle lease release. */
    long lastClaimNanos;
    /** Sequence numbers above the position already consumed out of order (selectors). */
    final java.util.TreeSet<Long> consumedAhead = new java.util.TreeSet<>();
    /** Delivery attempts already recorded for sequence numbers above the position. */
    final ConcurrentHashMap<Long, Integer> attempts = new ConcurrentHashMap<>();

    ShardState(int shardNo) {
        this.shardNo = shardNo;
    }

    boolean hasAvailable() {
        return leased && (claimedBy == null ? position : nextSeq - 1) < knownHead;
    }

    @Override
    public String toString() {
        return "shard " + shardNo + " (head " + knownHead + ", position " + position + (leased ? ", leased" : "") + ")";
    }
}
