package io.shardq.perf;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Times the producers' batches as the application sees them (sends and {@code commit()}, which
 * for ShardQ is where the batch is written), over the measured window: {@link #startWindow()}
 * drops what was recorded before, {@link #endWindow()} keeps what came after. Thread-safe.
 */
final class PublishMeter {
    private final Recorder recorder = new Recorder(LatencyStats.HIGHEST_MICROS, LatencyStats.DIGITS);
    private volatile LatencyStats window = LatencyStats.EMPTY;

    void record(long startNanos) {
        recorder.recordValue(LatencyStats.clamp((System.nanoTime() - startNanos) / 1000));
    }

    void startWindow() {
        recorder.getIntervalHistogram();
    }

    void endWindow() {
        Histogram h = recorder.getIntervalHistogram();
        window = LatencyStats.of(h);
    }

    /** The batches of the last measured window, in microseconds. */
    LatencyStats window() {
        return window;
    }
}
