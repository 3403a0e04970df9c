package io.shardq.perf;

import java.util.concurrent.locks.LockSupport;

/**
 * Holds one producer thread to a batch rate: {@link #awaitNext()} after each batch parks until the
 * next batch is due (fixed schedule from the first call, so a slow commit is caught up, never
 * accumulated). Called after the commit, not before it, so the time spent waiting is never part of
 * a message's end-to-end latency (the harness stamps the payload just before the batch is sent).
 */
final class Pacer {
    /** No pacing: {@link #awaitNext()} returns at once. */
    static final Pacer UNPACED = new Pacer(0);

    private final long intervalNanos;
    private long next = Long.MIN_VALUE;

    /** @param batchesPerSecond 0 or less: unpaced */
    Pacer(double batchesPerSecond) {
        this.intervalNanos = batchesPerSecond <= 0 ? 0 : Math.max(1, (long) (1e9 / batchesPerSecond));
    }

    /** A pacer for one of {@code producers} threads sending {@code messagesPerSecond} in all. */
    static Pacer forShare(double messagesPerSecond, int producers, int batch) {
        return messagesPerSecond <= 0 ? UNPACED : new Pacer(messagesPerSecond / producers / batch);
    }

    boolean paced() {
        return intervalNanos > 0;
    }

    void awaitNext() {
        if (intervalNanos == 0) {
            return;
        }
        long now = System.nanoTime();
        if (next == Long.MIN_VALUE) {
            next = now;
        }
        next += intervalNanos;
        if (next - now < -intervalNanos) {
            next = now; // far behind (a stall): start the schedule again rather than burst
        }
        while (next - System.nanoTime() > 0 && !Thread.currentThread().isInterrupted()) {
            LockSupport.parkNanos(next - System.nanoTime());
        }
    }
}
