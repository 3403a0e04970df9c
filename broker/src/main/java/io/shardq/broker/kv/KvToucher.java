package io.shardq.broker.kv;

import io.shardq.broker.internal.BackgroundService;

/**
 * Writes the touches this instance's reads recorded ({@link KvCaches#flushTouches}), every touch
 * interval, on every instance (each knows only its own reads).
 */
public final class KvToucher extends BackgroundService {
    private final KvCaches caches;
    private final long intervalMillis;

    public KvToucher(KvCaches caches, long intervalMillis, String threadName) {
        super(threadName);
        this.caches = caches;
        this.intervalMillis = intervalMillis;
    }

    @Override
    protected long runOnce() throws Exception {
        caches.flushTouches();
        return intervalMillis;
    }

    /** What was read since the last flush is written once more when the instance stops. */
    @Override
    protected void afterStop() {
        try {
            caches.flushTouches();
        } catch (java.sql.SQLException | RuntimeException e) {
            // best effort: touches only steer eviction
        }
    }
}
