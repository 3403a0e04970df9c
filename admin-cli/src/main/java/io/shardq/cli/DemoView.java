package io.shardq.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The demo's live view: on a terminal a block redrawn twice a second (ANSI cursor-up and clear);
 * otherwise one plain line every 5 seconds, so a log or a pipe gets readable progress.
 */
final class DemoView {
    private final PrintWriter out;
    private final boolean terminal;
    private final List<String> events = new ArrayList<>();
    private int drawn;
    private DemoCommand.Snapshot previous;

    DemoView(PrintWriter out, boolean terminal) {
        this.out = out;
        this.terminal = terminal;
    }

    long interval() {
        return terminal ? 500_000_000L : 5_000_000_000L;
    }

    void event(String e) {
        events.add(e);
        if (!terminal) {
            out.println(e);
            out.flush();
        }
    }

    void show(DemoCommand.Snapshot s) {
        double seconds = previous == null ? 0 : (s.elapsedMs() - previous.elapsedMs()) / 1000.0;
        String sendRate = rate(s.sent(), previous == null ? 0 : previous.sent(), seconds);
        String takeRate = rate(s.processed(), previous == null ? 0 : previous.processed(), seconds);
        previous = s;
        if (!terminal) {
            out.println(String.format(
                    Locale.ROOT,
                    "%.0f s %s: sent %s, processed %s, backlog %s, lag %s, cache hits %s; consumers %s",
                    s.elapsedMs() / 1000.0,
                    s.phase(),
                    Format.count(s.sent()),
                    Format.count(s.processed()),
                    Format.count(s.backlog()),
                    lag(s.lag()),
                    s.hitRatio(),
                    String.join("; ", s.consumers())));
            out.flush();
            return;
        }
        List<String> block = new ArrayList<>();
        block.add(String.format(
                Locale.ROOT,
                "shardq demo  %.1f s  %s (orders for %.0f s)   Ctrl-C stops",
                s.elapsedMs() / 1000.0,
                s.phase(),
                s.sendMs() / 1000.0));
        block.add(String.format(
                Locale.ROOT,
                "  orders     sent %s (%s/s)   processed %s (%s/s)   backlog %s",
                Format.count(s.sent()),
                sendRate,
                Format.count(s.processed()),
                takeRate,
                Format.count(s.backlog())));
        block.add("  events     lag " + lag(s.lag()));
        block.add(String.format(
                Locale.ROOT,
                "  prices     cache hit ratio %s (%s hits, %s misses)",
                s.hitRatio(),
                Format.count(s.hits()),
                Format.count(s.misses())));
        for (String c : s.consumers()) {
            block.add("  consumer   " + c);
        }
        for (String e : events) {
            block.add("  ! " + e);
        }
        StringBuilder b = new StringBuilder();
        if (drawn > 0) {
            b.append("\033[").append(drawn).append("A\033[J");
        }
        for (String line : block) {
            b.append(line).append('\n');
        }
        out.print(b);
        out.flush();
        drawn = block.size();
    }

    void close() {
        out.flush();
    }

    private static String rate(long now, long before, double seconds) {
        return seconds <= 0 ? "-" : Format.count(Math.round((now - before) / seconds));
    }

    private static String lag(Map<String, Long> lag) {
        List<String> parts = new ArrayList<>();
        lag.forEach((name, n) -> parts.add(name + " " + Format.count(n)));
        return String.join(", ", parts);
    }
}
