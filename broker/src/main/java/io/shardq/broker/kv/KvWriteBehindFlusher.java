package io.shardq.broker.kv;

import io.shardq.broker.internal.BackgroundService;

/**
 * Commits the write-behind queues of this instance ({@link KvCaches#flushWriteBehind}) every flush
 * interval, at once when a queue holds a batch, and with back-off (doubling up to 5 s) while
 * flushes fail; at a clean stop it flushes what is left ({@link KvCaches#closeWriteBehind}).
 */
public final class KvWriteBehindFlusher extends BackgroundService {
    static final long MAX_BACKOFF_MS = 5_000;

    private final KvCaches caches;
    private final long intervalMillis;
    private int failedRounds;

    public KvWriteBehindFlusher(KvCaches caches, long intervalMillis, String threadName) {
        super(threadName);
        this.caches = caches;
        this.intervalMillis = Math.max(1, intervalMillis);
    }

    @Override
    protected long runOnce() {
        if (caches.flushWriteBehind() == 0) {
            failedRounds = 0;
            return intervalMillis;
        }
        failedRounds = Math.min(failedRounds + 1, 20);
        return Math.min(MAX_BACKOFF_MS, intervalMillis << Math.min(failedRounds, 12));
    }

    @Override
    protected void afterStop() {
        caches.closeWriteBehind();
    }
}
