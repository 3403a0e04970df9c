package io.shardq.broker.shard;

import java.util.concurrent.atomic.LongAdder;

/** Counters of one instance; read by {@code Broker#stats()}. */
public final class EngineStats {
    final LongAdder enqueued = new LongAdder();
    final LongAdder dequeued = new LongAdder();
    /** SELECTs run for dequeue: message reads on cache misses, head polls, lease look-ups. */
    final LongAdder dequeueSqlReads = new LongAdder();
    /** Message rows read on the dequeue path: read-ahead rows and large bodies read one by one. */
    final LongAdder messageRowsRead = new LongAdder();
    /** Bodies among those rows: small bodies read ahead and large bodies read on delivery. */
    final LongAdder bodiesRead = new LongAdder();

    final LongAdder slicesRetired = new LongAdder();
    final LongAdder deadLettered = new LongAdder();
    /** Messages found expired at delivery (dropped, or sent to their destination's expiry queue). */
    final LongAdder expired = new LongAdder();

    final LongAdder notifiesSent = new LongAdder();
    final LongAdder notifiesFailed = new LongAdder();
    final LongAdder wakeupsReceived = new LongAdder();
    /** Batches that rode along in another session's group commit ({@link SendCommitter}). */
    final LongAdder combinedWrites = new LongAdder();
    /** Send groups that spanned several shards and committed (or tried to) as one transaction. */
    final LongAdder sharedSendCommits = new LongAdder();
    /** Shared send transactions the database refused, whose shards were then written one by one. */
    final LongAdder sharedSendRetries = new LongAdder();
    /** Shards of a shared send that its statement could not write (a wrong head, a new slice): written alone. */
    final LongAdder sharedSendAlone = new LongAdder();

    final java.util.concurrent.atomic.AtomicLong nonPersistentBytes = new java.util.concurrent.atomic.AtomicLong();
    final LongAdder nonPersistentRejected = new LongAdder();
    /** Producer commits held back by flow control, and for how long in all. */
    final LongAdder flowWaits = new LongAdder();

    final LongAdder flowWaitNanos = new LongAdder();
    /** Producer commits held back by flow control right now. */
    final java.util.concurrent.atomic.AtomicInteger flowHeld = new java.util.concurrent.atomic.AtomicInteger();

    final LongAdder maintenanceRounds = new LongAdder();
    final LongAdder catalogChanges = new LongAdder();
    volatile String retireBlockedBy = "";
    /** The leaf whose truncation timed out last, and since when (clock millis); guarded by this. */
    private String retireBlockedLeaf;

    private long retireBlockedSinceMillis = -1;
    final StepTimes steps = new StepTimes();
    /**
     * Cumulative commit counts and times (nanoseconds) of commits that wrote messages and of
     * commits that consumed them, for meters that need totals rather than {@link #steps}'
     * intervals; a commit doing both counts in both. Two adds per commit, no allocation.
     */
    final LongAdder sendCommits = new LongAdder();

    final LongAdder sendCommitNanos = new LongAdder();
    final LongAdder consumeCommits = new LongAdder();
    final LongAdder consumeCommitNanos = new LongAdder();

    /** Where a message's time goes inside this instance, from the producer's commit to the consumer's. */
    public StepTimes steps() {
        return steps;
    }

    public long combinedWrites() {
        return combinedWrites.sum();
    }

    public long sharedSendCommits() {
        return sharedSendCommits.sum();
    }

    public long sharedSendRetries() {
        return sharedSendRetries.sum();
    }

    public long sharedSendAlone() {
        return sharedSendAlone.sum();
    }

    /** Counts {@code size} bytes of non-persistent messages in, unless that passes {@code max}. */
    public boolean reserveNonPersistent(long size, long max, boolean force) {
        while (true) {
            long held = nonPersistentBytes.get();
            if (!force && held + size > max) {
                nonPersistentRejected.increment();
                return false;
            }
            if (nonPersistentBytes.compareAndSet(held, held + size)) {
                return true;
            }
        }
    }

    public void releaseNonPersistent(long size) {
        nonPersistentBytes.addAndGet(-size);
    }

    /** Bytes of non-persistent messages held in memory now. */
    public long nonPersistentBytes() {
        return nonPersistentBytes.get();
    }

    /** Non-persistent sends refused because the memory bound was reached. */
    /** Producer commits that flow control held back (consumers busy and behind). */
    public long flowWaits() {
        return flowWaits.sum();
    }

    /** Producer commits that flow control holds back right now. */
    public int flowHeld() {
        return flowHeld.get();
    }

    /** Time producer commits spent held back by flow control, in milliseconds. */
    public long flowWaitMillis() {
        return flowWaitNanos.sum() / 1_000_000;
    }

    public long nonPersistentRejected() {
        return nonPersistentRejected.sum();
    }

    public long enqueued() {
        return enqueued.sum();
    }

    public long dequeued() {
        return dequeued.sum();
    }

    public long dequeueSqlReads() {
        return dequeueSqlReads.sum();
    }

    public long messageRowsRead() {
        return messageRowsRead.sum();
    }

    public long bodiesRead() {
        return bodiesRead.sum();
    }

    /** SQL reads per dequeued message; 0 when nothing was dequeued. */
    public double sqlReadsPerDequeue() {
        long d = dequeued();
        return d == 0 ? 0 : (double) dequeueSqlReads() / d;
    }

    public long slicesRetired() {
        return slicesRetired.sum();
    }

    public long expired() {
        return expired.sum();
    }

    public long deadLettered() {
        return deadLettered.sum();
    }

    /**
     * Wake-up NOTIFYs that failed after the fast path's batch had committed: the batch stands, and
     * the waiting consumer finds it by its poll instead.
     */
    public long notifiesFailed() {
        return notifiesFailed.sum();
    }

    public long notifiesSent() {
        return notifiesSent.sum();
    }

    public long wakeupsReceived() {
        return wakeupsReceived.sum();
    }

    /**
     * Empty, or which backend blocked the last slice truncation and for how long; cleared when
     * that slice is retired (or found retired or changed by another instance).
     */
    public String retireBlockedBy() {
        return retireBlockedBy;
    }

    /**
     * Since when (the broker clock's epoch millis) the slice named by {@link #retireBlockedBy()}
     * has been blocked, -1 when none is. Only this instance's own attempts count: it is set while
     * this instance is the maintenance leader, and a leader that loses the lead keeps the value
     * until it leads again and retires the slice.
     */
    public synchronized long retireBlockedSinceMillis() {
        return retireBlockedSinceMillis;
    }

    /**
     * Successful commits that wrote messages (sends, delayed sends, and a consuming commit's dead
     * letters or sends).
     */
    public long sendCommits() {
        return sendCommits.sum();
    }

    /** Their total time in nanoseconds, from the start of the commit until it returned. */
    public long sendCommitNanos() {
        return sendCommitNanos.sum();
    }

    /** Successful commits that consumed messages (moved a cursor or logged a consumption). */
    public long consumeCommits() {
        return consumeCommits.sum();
    }

    /** Their total time in nanoseconds. */
    public long consumeCommitNanos() {
        return consumeCommitNanos.sum();
    }

    /**
     * A successful commit: {@code sent} wrote messages into shards, {@code scheduled} wrote
     * messages sent with a delivery delay (a send commit too, but not a step of {@link #steps}:
     * nothing became visible), {@code consumed} consumed messages.
     */
    void recordCommit(boolean sent, boolean scheduled, boolean consumed, long nanos) {
        if (sent || scheduled) {
            sendCommits.increment();
            sendCommitNanos.add(nanos);
        }
        if (sent) {
            steps.record(StepTimes.Step.SEND_COMMIT, nanos);
        }
        if (consumed) {
            consumeCommits.increment();
            consumeCommitNanos.add(nanos);
            steps.record(StepTimes.Step.CONSUMER_COMMIT, nanos);
        }
    }

    /** Maintenance rounds (retirement and spare slots of one destination) run by this instance. */
    public long maintenanceRounds() {
        return maintenanceRounds.sum();
    }

    /** Catalog changes (by NOTIFY) applied to this instance's in-memory state. */
    public long catalogChanges() {
        return catalogChanges.sum();
    }

    public void recordMaintenanceRound() {
        maintenanceRounds.increment();
    }

    public void recordCatalogChange() {
        catalogChanges.increment();
    }

    public void recordSliceRetired() {
        slicesRetired.increment();
    }

    /** Truncating {@code leaf} timed out on a lock held as {@code description} says. */
    public synchronized void recordRetireBlocked(String leaf, String description, long nowMillis) {
        if (!leaf.equals(retireBlockedLeaf) || retireBlockedSinceMillis < 0) {
            retireBlockedLeaf = leaf;
            retireBlockedSinceMillis = nowMillis;
        }
        retireBlockedBy = description;
    }

    /** {@code leaf} is no longer blocked (retired, or another instance's): clears it if it was the blocked one. */
    public synchronized void recordRetireSettled(String leaf) {
        if (leaf.equals(retireBlockedLeaf)) {
            retireBlockedLeaf = null;
            retireBlockedSinceMillis = -1;
            retireBlockedBy = "";
        }
    }

    public void recordWakeup() {
        wakeupsReceived.increment();
    }
}
