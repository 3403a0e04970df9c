package io.shardq.perf;

/**
 * Wall-clock time in epoch microseconds, for send stamps and receive times. Injected so tests
 * control it.
 */
@FunctionalInterface
public interface MicroClock {
    long nowMicros();

    /**
     * Epoch microseconds anchored once on {@link System#currentTimeMillis()} and advanced with
     * {@link System#nanoTime()}: monotonic and microsecond-precise within this JVM, where both
     * producers and consumers run, so a wall-clock step mid-run cannot make latency negative.
     */
    static MicroClock system() {
        long anchorMicros = System.currentTimeMillis() * 1000L;
        long anchorNanos = System.nanoTime();
        return () -> anchorMicros + (System.nanoTime() - anchorNanos) / 1000L;
    }
}
