package io.shardq.perf;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;

/**
 * The live progress line: elapsed time, enqueue and dequeue rates since the previous line, and
 * the backlog as the workers count it (sent minus received since the step began). On a terminal
 * the line is rewritten in place with {@code \r} at every tick; otherwise (a pipe, a CI log) a
 * plain line is printed every {@code plainEvery}.
 */
final class Progress {
    private final PrintWriter out;
    private final boolean console;
    private final long plainEveryNanos;
    private String label = "";
    private long lastNanos;
    private long lastEnqueued;
    private long lastDequeued;
    private int lastWidth;
    private long deliveriesPerMessage = 1;

    Progress(PrintWriter out, boolean console, Duration plainEvery) {
        this.out = out;
        this.console = console;
        this.plainEveryNanos = plainEvery.toNanos();
    }

    /** On a terminal when there is one: {@code System.console() != null}. */
    static Progress forTerminal(PrintWriter out) {
        return new Progress(out, System.console() != null, Duration.ofSeconds(5));
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
        lastWidth = 0;
    }

    /**
     * Called about once a second with the cumulative counts of the step; prints when due.
     *
     * @param phase "warm-up" or "measure"
     * @param phaseElapsedNanos time since the phase began
     * @param consumes false when there are no consumers: the dequeue rate shows as "-"
     */
    void tick(String phase, long phaseElapsedNanos, long enqueued, long dequeued, boolean consumes, long nowNanos) {
        long interval = nowNanos - lastNanos;
        if (!console && interval < plainEveryNanos) {
            return;
        }
        String line = line(phase, phaseElapsedNanos, enqueued, dequeued, consumes, interval);
        lastNanos = nowNanos;
        lastEnqueued = enqueued;
        lastDequeued = dequeued;
        if (console) {
            String padded = line.length() < lastWidth ? line + " ".repeat(lastWidth - line.length()) : line;
            lastWidth = line.length();
            out.print("\r" + padded);
        } else {
            out.println(line);
        }
        out.flush();
    }

    /** A line of its own, between progress lines: a step that failed, a system not available. */
    void note(String message) {
        end();
        out.println(message);
        out.flush();
    }

    /** Ends the step's line on a terminal, so the next output starts on a fresh line. */
    void end() {
        if (console && lastWidth > 0) {
            out.println();
            out.flush();
        }
        lastWidth = 0;
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
