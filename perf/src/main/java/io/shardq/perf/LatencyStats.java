package io.shardq.perf;

import org.HdrHistogram.Histogram;

/**
 * Percentiles of end-to-end latency, in microseconds, taken from an HdrHistogram of the measured
 * window. End-to-end means from the moment the producer stamped the payload, just before {@code
 * sendBatch} (so the producer's commit is included), to the moment the consumer's {@code
 * receiveBatch} returned after its commit.
 */
record LatencyStats(long count, long p50, long p90, long p99, long p999, long max, double mean) {

    /** Highest latency recorded; larger values are clamped to it. One hour, in microseconds. */
    static final long HIGHEST_MICROS = 3_600_000_000L;

    /** Significant digits kept by the histograms: 0.1% resolution. */
    static final int DIGITS = 3;

    static final LatencyStats EMPTY = new LatencyStats(0, 0, 0, 0, 0, 0, Double.NaN);

    static Histogram newHistogram() {
        return new Histogram(HIGHEST_MICROS, DIGITS);
    }

    /** The latency to record for a message: never negative, never above the histogram's range. */
    static long clamp(long micros) {
        return Math.max(0, Math.min(HIGHEST_MICROS, micros));
    }

    static LatencyStats of(Histogram h) {
        if (h == null || h.getTotalCount() == 0) {
            return EMPTY;
        }
        return new LatencyStats(
                h.getTotalCount(),
                h.getValueAtPercentile(50),
                h.getValueAtPercentile(90),
                h.getValueAtPercentile(99),
                h.getValueAtPercentile(99.9),
                h.getMaxValue(),
                h.getMean());
    }

    /** Milliseconds of a microsecond value, NaN when nothing was measured. */
    double millis(long micros) {
        return count == 0 ? Double.NaN : micros / 1000.0;
    }
}
