package io.shardq.perf;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;

/**
 * The live line of a {@code mixed} stage: elapsed time, committed transactions and messages per
 * second since the previous line, failures so far. Rewritten in place with {@code \r} on a
 * terminal; a plain line every {@code plainEvery} otherwise (a pipe, a CI log).
 */
final class MixedProgress {
    private final PrintWriter out;
    private final boolean console;
    private final long plainEveryNanos;
    private String label = "";
    private long lastNanos;
    private TemplateMeter.Counts last = TemplateMeter.Counts.ZERO;
    private int lastWidth;

    MixedProgress(PrintWriter out, boolean console, Duration plainEvery) {
        this.out = out;
        this.console = console;
        this.plainEveryNanos = plainEvery.toNanos();
    }

    static MixedProgress forTerminal(PrintWriter out) {
        return new MixedProgress(out, System.console() != null, Duration.ofSeconds(5));
    }

    void begin(String stageLabel, long nowNanos, TemplateMeter.Counts now) {
        label = stageLabel;
        lastNanos = nowNanos;
        last = now;
        lastWidth = 0;
    }

    /** Called about once a second with the run's cumulative counts; prints when due. */
    void tick(String phase, long phaseElapsedNanos, TemplateMeter.Counts now, long nowNanos) {
        long interval = nowNanos - lastNanos;
        if (!console && interval < plainEveryNanos) {
            return;
        }
        TemplateMeter.Counts d = now.minus(last);
        String line = String.format(
                Locale.ROOT,
                "%-12s %-7s %5.1fs  transactions %,8.0f/s  messages %,9.0f/s  failed %,d",
                label,
                phase,
                phaseElapsedNanos / 1e9,
                Rates.perSecond(d.committed(), interval),
                Rates.perSecond(d.messages(), interval),
                now.failed());
        lastNanos = nowNanos;
        last = now;
        if (console) {
            String padded = line.length() < lastWidth ? line + " ".repeat(lastWidth - line.length()) : line;
            lastWidth = line.length();
            out.print("\r" + padded);
        } else {
            out.println(line);
        }
        out.flush();
    }

    /** Ends the stage's line on a terminal, so the next output starts on a fresh line. */
    void end() {
        if (console && lastWidth > 0) {
            out.println();
            out.flush();
        }
        lastWidth = 0;
    }
}
