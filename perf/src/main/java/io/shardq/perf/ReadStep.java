package io.shardq.perf;

import org.HdrHistogram.Histogram;

/**
 * One system read by {@code threads} threads at {@code entries} entries, over the measured window.
 * Latencies in nanoseconds: one {@code get} (or SELECT) call as the application sees it.
 *
 * @param missing reads that found nothing (every key read was loaded: must be 0)
 * @param served what the system counted itself in the window (ShardQ: cache hits), -1 when none
 */
record ReadStep(
        String system,
        int entries,
        int threads,
        double seconds,
        long reads,
        long p50Nanos,
        long p90Nanos,
        long p99Nanos,
        long p999Nanos,
        long maxNanos,
        double meanNanos,
        long missing,
        long served,
        long errors,
        String firstError,
        String loadAtEnd) {

    /** Highest latency recorded (larger values are clamped): one minute, in nanoseconds. */
    static final long HIGHEST_NANOS = 60_000_000_000L;

    static Histogram newHistogram() {
        return new Histogram(HIGHEST_NANOS, 3);
    }

    static ReadStep of(
            String system,
            int entries,
            int threads,
            double seconds,
            Histogram h,
            long missing,
            long served,
            long errors,
            String firstError,
            String loadAtEnd) {
        boolean any = h.getTotalCount() > 0;
        return new ReadStep(
                system,
                entries,
                threads,
                seconds,
                h.getTotalCount(),
                any ? h.getValueAtPercentile(50) : -1,
                any ? h.getValueAtPercentile(90) : -1,
                any ? h.getValueAtPercentile(99) : -1,
                any ? h.getValueAtPercentile(99.9) : -1,
                any ? h.getMaxValue() : -1,
                any ? h.getMean() : Double.NaN,
                missing,
                served,
                errors,
                firstError,
                loadAtEnd);
    }

    double readsPerSecond() {
        return seconds > 0 ? reads / seconds : Double.NaN;
    }

    /** Microseconds of a nanosecond figure, NaN when nothing was measured. */
    static double micros(long nanos) {
        return nanos < 0 ? Double.NaN : nanos / 1000.0;
    }

    boolean ok() {
        return missing == 0 && errors == 0 && reads > 0;
    }
}
