package io.shardq.perf;

import io.shardq.tools.LiveLine;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;

/**
 * The live line of a {@code mixed} stage: elapsed time, committed transactions and messages per
 * second since the previous line, failures so far, drawn by the tools' {@link LiveLine} (in place
 * on a terminal; a plain line every {@code plainEvery} otherwise).
 */
final class MixedProgress {
    private final LiveLine out;
    private String label = "";
    private long lastNanos;
    private TemplateMeter.Counts last = TemplateMeter.Counts.ZERO;

    MixedProgress(PrintWriter out, boolean console, Duration plainEvery) {
        this.out = new LiveLine(out, console, Duration.ZERO, plainEvery);
    }

    static MixedProgress forTerminal(PrintWriter out) {
        return new MixedProgress(out, LiveLine.hasTerminal(), Duration.ofSeconds(5));
    }

    void begin(String stageLabel, long nowNanos, TemplateMeter.Counts now) {
        label = stageLabel;
        lastNanos = nowNanos;
        last = now;
        out.restart(nowNanos);
    }

    /** Called about once a second with the run's cumulative counts; prints when due. */
    void tick(String phase, long phaseElapsedNanos, TemplateMeter.Counts now, long nowNanos) {
        long interval = nowNanos - lastNanos;
        if (!out.due(nowNanos)) {
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
        out.show(line, nowNanos);
        lastNanos = nowNanos;
        last = now;
    }

    /** Ends the stage's line on a terminal, so the next output starts on a fresh line. */
    void end() {
        out.end();
    }
}
