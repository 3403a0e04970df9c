package io.shardq.perf;

import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * What the users did with one template, shared by all of them: cumulative counts from the start
 * of the run (warm-ups included, so they can be checked against the application tables), and the
 * latency of committed transactions in an HdrHistogram {@link Recorder} whose interval the runner
 * takes at the start and the end of each measured window. Thread-safe.
 */
final class TemplateMeter {
    private final Workload.Template template;
    private final LongAdder committed = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final LongAdder sent = new LongAdder();
    private final LongAdder received = new LongAdder();
    private final LongAdder browsed = new LongAdder();
    private final AtomicReference<String> firstError = new AtomicReference<>();
    private final Recorder latency = new Recorder(LatencyStats.HIGHEST_MICROS, LatencyStats.DIGITS);

    TemplateMeter(Workload.Template template) {
        this.template = template;
    }

    Workload.Template template() {
        return template;
    }

    /** A transaction of this template committed after {@code micros}, moving these messages. */
    void committed(long micros, int sentNow, int receivedNow, int browsedNow) {
        committed.increment();
        sent.add(sentNow);
        received.add(receivedNow);
        browsed.add(browsedNow);
        latency.recordValue(LatencyStats.clamp(micros));
    }

    /** A transaction failed and was rolled back: nothing it did counts. */
    void failed(Exception e) {
        failed.increment();
        firstError.compareAndSet(null, Runner.describe(e));
    }

    /** Latencies recorded since the previous call, which starts a new interval. */
    Histogram takeLatencies() {
        return latency.getIntervalHistogram();
    }

    Counts counts() {
        return new Counts(committed.sum(), failed.sum(), sent.sum(), received.sum(), browsed.sum());
    }

    /** The first failure since the previous call, or null; the next failure is kept again. */
    String takeFirstError() {
        return firstError.getAndSet(null);
    }

    /** Cumulative counts at one instant; a window is the difference of two. */
    record Counts(long committed, long failed, long sent, long received, long browsed) {
        static final Counts ZERO = new Counts(0, 0, 0, 0, 0);

        Counts minus(Counts o) {
            return new Counts(
                    committed - o.committed,
                    failed - o.failed,
                    sent - o.sent,
                    received - o.received,
                    browsed - o.browsed);
        }

        Counts plus(Counts o) {
            return new Counts(
                    committed + o.committed,
                    failed + o.failed,
                    sent + o.sent,
                    received + o.received,
                    browsed + o.browsed);
        }

        /** Messages moved: sent plus received (a browse moves nothing). */
        long messages() {
            return sent + received;
        }
    }
}
