package io.shardq.tools;

import java.io.PrintWriter;
import java.time.Duration;

/**
 * The one live progress line of the tools (the CLI's long moves, perf's steps and stages): on a
 * terminal it is redrawn in place with {@code \r}, at most every {@code redrawEvery}; anywhere else
 * (a pipe, a CI log) it is printed as a plain line at most every {@code plainEvery}, so a log gets a
 * few lines rather than one per tick. What the line says is the caller's; this class owns how and
 * when it reaches the screen. Thread-safe.
 */
public final class LiveLine {
    private final PrintWriter out;
    private final boolean terminal;
    private final long everyNanos;
    private long lastNanos;
    private boolean started;
    private int drawnWidth;

    /**
     * @param terminal redraw in place (true when the process has a console: {@link #hasTerminal()})
     * @param redrawEvery the least time between two redraws on a terminal (zero: every call)
     * @param plainEvery the least time between two plain lines elsewhere
     */
    public LiveLine(PrintWriter out, boolean terminal, Duration redrawEvery, Duration plainEvery) {
        this.out = out;
        this.terminal = terminal;
        this.everyNanos = (terminal ? redrawEvery : plainEvery).toNanos();
    }

    /** True when the process has a console ({@code System.console()} is null when redirected). */
    public static boolean hasTerminal() {
        return System.console() != null;
    }

    /** Whether the line is redrawn in place. */
    public boolean terminal() {
        return terminal;
    }

    /** The interval starts again at {@code nowNanos}: the next line is due one interval later. */
    public synchronized void restart(long nowNanos) {
        lastNanos = nowNanos;
        started = true;
    }

    /** Whether a line is due at {@code nowNanos} (one interval since the last, or since {@link #restart}). */
    public synchronized boolean due(long nowNanos) {
        return !started || nowNanos - lastNanos >= everyNanos;
    }

    /** Shows {@code line} now: redrawn over the previous one on a terminal, else printed on its own. */
    public synchronized void show(String line, long nowNanos) {
        lastNanos = nowNanos;
        started = true;
        if (terminal) {
            out.print("\r" + line + " ".repeat(Math.max(0, drawnWidth - line.length())));
            drawnWidth = line.length();
        } else {
            out.println(line);
        }
        out.flush();
    }

    /** Shows {@code line} if one is due at {@code nowNanos}; returns whether it did. */
    public boolean showIfDue(String line, long nowNanos) {
        synchronized (this) {
            if (!due(nowNanos)) {
                return false;
            }
            show(line, nowNanos);
            return true;
        }
    }

    /** Ends the drawn line on a terminal (a newline), so the next output starts on a fresh line. */
    public synchronized void end() {
        if (terminal && drawnWidth > 0) {
            out.println();
            out.flush();
        }
        drawnWidth = 0;
    }

    /** Erases the drawn line on a terminal, leaving the cursor at its start for what comes next. */
    public synchronized void clear() {
        if (terminal && drawnWidth > 0) {
            out.print("\r" + " ".repeat(drawnWidth) + "\r");
            out.flush();
        }
        drawnWidth = 0;
    }

    /** A line of its own between live lines (a failed step, a note): the live line ends first. */
    public synchronized void note(String message) {
        end();
        out.println(message);
        out.flush();
    }
}
