package io.shardq.broker.shard;

import java.util.concurrent.atomic.LongAdder;

/** Counters of one instance; read by {@code Broker#stats()}. */
public final class EngineStats {
    final LongAdder enqueued = new LongAdder();
    final LongAdder dequeued = new LongAdder();
    /** SELECTs run for dequeue: message reads on cache misses, head polls, lease look-ups. */
    final LongAdder dequeueSqlReads = new LongAdder();

    final LongAdder slicesRetired = new LongAdder();
    final LongAdder deadLettered = new LongAdder();
    final LongAdder notifiesSent = new LongAdder();
    final LongAdder wakeupsReceived = new LongAdder();
    final LongAdder maintenanceRounds = new LongAdder();
    final LongAdder catalogChanges = new LongAdder();
    volatile String retireBlockedBy = "";

    public long enqueued() {
        return enqueued.sum();
    }

    public long dequeued() {
        return dequeued.sum();
    }

    public long dequeueSqlReads() {
        return dequeueSqlReads.sum();
    }

    /** SQL reads per dequeued message; 0 when nothing was dequeued. */
    public double sqlReadsPerDequeue() {
        long d = dequeued();
        return d == 0 ? 0 : (double) dequeueSqlReads() / d;
    }

    public long slicesRetired() {
        return slicesRetired.sum();
    }

    public long deadLettered() {
        return deadLettered.sum();
    }

    public long notifiesSent() {
        return notifiesSent.sum();
    }

    public long wakeupsReceived() {
        return wakeupsReceived.sum();
    }

    /** Empty, or which backend blocked the last slice truncation and for how long. */
    public String retireBlockedBy() {
        return retireBlockedBy;
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

    public void recordRetireBlocked(String description) {
        retireBlockedBy = description;
    }

    public void recordWakeup() {
        wakeupsReceived.increment();
    }
}
