package io.shardq.perf;

import io.shardq.tools.LiveLine;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;

/**
 * The live progress line: elapsed time, enqueue and dequeue rates since the previous line, and
 * the backlog as the workers count it (sent minus received since the step began), drawn by the
 * tools' {@link LiveLine}: rewritten in place at every tick on a terminal, a plain line every
 * {@code plainEvery} otherwise (a pipe, a CI log).
 */
final class Progress {
    private final LiveLine out;
    private String label = "";
    private long lastNanos;
    private long lastEnqueued;
    private long lastDequeued;
    private long deliveriesPerMessage = 1;

    Progress(PrintWriter out, boolean console, Duration plainEvery) {
        this.out = new LiveLine(out, console, Duration.ZERO, plainEvery);
    }

    /** On a terminal when there is one. */
    static Progress forTerminal(PrintWriter out) {
        return new Progress(out, LiveLine.hasTerminal(), Duration.ofSeconds(5));
    }

    /** A new step starts now; counts start from zero. */
    void begin(String stepLabel, long nowNanos) {
        begin(stepLabel, nowNanos, 1);
    }

    /**
     * A new step whose every message sent is received {@code deliveriesPerMessage} times (a topic's
     * subscriptions): the backlog shown is {@code sent x that - received}.
     */
    void begin(String stepLabel, long nowNanos, long deliveriesPerMessage) {
        this.deliveriesPerMessage = deliveriesPerMessage;
        label = stepLabel;
        lastNanos = nowNanos;
        lastEnqueued = 0;
        lastDequeued = 0;
        out.restart(nowNanos);
    }

    /**
     * Called about once a second with the cumulative counts of the step; prints when due.
     *
     * @param phase "warm-up" or "measure"
     * @param phaseElapsedNanos time since the phase began
     * @param consumes false when there are no consumers: the dequeue rate shows as "-"
     */
    void tick(String phase, long phaseElapsedNanos, long enqueued, long dequeued, boolean consumes, long nowNanos) {
        if (!out.due(nowNanos)) {
            return;
        }
        out.show(line(phase, phaseElapsedNanos, enqueued, dequeued, consumes, nowNanos - lastNanos), nowNanos);
        lastNanos = nowNanos;
        lastEnqueued = enqueued;
        lastDequeued = dequeued;
    }

    /** A line of its own, between progress lines: a step that failed, a system not available. */
    void note(String message) {
        out.note(message);
    }

    /** Ends the step's line on a terminal, so the next output starts on a fresh line. */
    void end() {
        out.end();
    }

    String line(String phase, long phaseElapsedNanos, long enqueued, long dequeued, boolean consumes, long interval) {
        double enq = Rates.perSecond(enqueued - lastEnqueued, interval);
        String deq = consumes
                ? String.format(Locale.ROOT, "%,10.0f/s", Rates.perSecond(dequeued - lastDequeued, interval))
                : String.format(Locale.ROOT, "%12s", "-");
        String backlog = consumes ? String.format(Locale.ROOT, "%,d", enqueued * deliveriesPerMessage - dequeued) : "-";
        return String.format(
                Locale.ROOT,
                "%-16s %-7s %5.1fs  enqueue %,10.0f/s  dequeue %s  backlog %s",
                label,
                phase,
                phaseElapsedNanos / 1e9,
                enq,
                deq,
                backlog);
    }
}
