package io.shardq.cli;

import io.shardq.tools.LiveLine;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Progress of a long move (drain, load, requeue, purge) on stderr, so stdout stays clean for
 * data, drawn by the tools' {@link LiveLine}. On a terminal: one line redrawn in place (bar, count,
 * rate, ETA); else a plain line every {@value #LINE_INTERVAL_SECONDS} s. With an unknown total (purge is a single
 * statement), a ticker thread shows the elapsed time instead. Thread-safe.
 */
final class Progress {
    private static final long LINE_INTERVAL_SECONDS = 5;
    private static final long REDRAW_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
    private static final int BAR = 24;

    private final LiveLine err;
    private final String label;
    private final long total;
    private final boolean terminal;
    private final long startNanos = System.nanoTime();
    private long done;
    private Thread ticker;

    /**
     * @param total messages expected, 0 or less when unknown
     */
    Progress(PrintWriter err, String label, long total, boolean terminal) {
        this.err =
                new LiveLine(err, terminal, Duration.ofNanos(REDRAW_NANOS), Duration.ofSeconds(LINE_INTERVAL_SECONDS));
        this.err.restart(startNanos);
        this.label = label;
        this.total = total;
        this.terminal = terminal;
    }

    /** On a terminal when the process has one (System.console() is null when redirected). */
    static Progress forTerminal(PrintWriter err, String label, long total) {
        return new Progress(err, label, total, LiveLine.hasTerminal());
    }

    /** Shows the elapsed time while a single long statement runs. */
    synchronized Progress tick() {
        ticker = new Thread(
                () -> {
                    try {
                        while (!Thread.currentThread().isInterrupted()) {
                            Thread.sleep(terminal ? 200 : 1000);
                            advance(0);
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "shardq-cli-progress-1");
        ticker.setDaemon(true);
        ticker.start();
        return this;
    }

    synchronized void advance(long n) {
        done += n;
        long now = System.nanoTime();
        if (err.due(now)) {
            err.show(describe(now), now);
        }
    }

    synchronized long done() {
        return done;
    }

    /** Messages per second since the start. */
    synchronized double rate() {
        double seconds = Math.max(1e-3, (System.nanoTime() - startNanos) / 1e9);
        return done / seconds;
    }

    long elapsedMillis() {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    /** Stops the ticker and clears the bar, leaving the line for the command's summary. */
    void finish() {
        Thread t;
        synchronized (this) {
            t = ticker;
            ticker = null;
        }
        if (t != null) {
            t.interrupt();
            try {
                t.join(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        err.clear();
    }

    private String describe(long now) {
        long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(now - startNanos);
        if (total <= 0) {
            return label + ": " + (done > 0 ? Format.count(done) + ", " : "") + "running for "
                    + Format.duration(elapsedMillis);
        }
        double rate = done / Math.max(1e-3, elapsedMillis / 1000.0);
        long left = Math.max(0, total - done);
        String eta = rate > 0 ? Format.duration((long) (left / rate * 1000)) : "?";
        int pct = (int) Math.min(100, done * 100 / total);
        if (terminal) {
            int filled = pct * BAR / 100;
            return String.format(
                    Locale.ROOT,
                    "%s [%s%s] %3d%%  %s/%s  %s  ETA %s",
                    label,
                    "#".repeat(filled),
                    ".".repeat(BAR - filled),
                    pct,
                    Format.count(done),
                    Format.count(total),
                    Format.rate(rate),
                    eta);
        }
        return String.format(
                Locale.ROOT,
                "%s: %s of %s (%d%%), %s, ETA %s",
                label,
                Format.count(done),
                Format.count(total),
                pct,
                Format.rate(rate),
                eta);
    }
}
