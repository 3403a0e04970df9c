package io.shardq.perf;

import io.shardq.tools.Charts;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * results.html of {@code perf cache-read}: reads per second against the number of entries (seed
 * 000's curve) and p50 latency against threads, drawn by {@link Charts}, the targets, the
 * results table and the settings. Self-contained, as the queue's {@link HtmlReport}.
 */
final class CacheReadHtmlReport {
    private static final List<String> SYSTEMS =
            List.of(CacheReadReport.NEAR, CacheReadReport.MISS, CacheReadReport.SELECT);
    private static final List<String> COLORS = List.of("#2ca02c", "#1f6fd1", "#6b7280");

    private CacheReadHtmlReport() {}

    static String render(CacheReadReport report) {
        Environment env = report.environment();
        CacheReadScenario sc = report.scenario();
        StringBuilder sb = new StringBuilder(HtmlReport.head("ShardQ benchmark: cache-read"));
        if (!env.unsafeBanner().isEmpty()) {
            sb.append("<div class=\"unsafe\">").append(esc(env.unsafeBanner())).append("</div>\n");
        }
        sb.append("<h1>ShardQ benchmark: cache-read</h1>\n<p class=\"summary\">")
                .append(esc(String.format(
                        Locale.ROOT,
                        "random reads of route prices (values of %d B); latencies at %,d entries, threads %s;"
                                + " reads/s at sizes %s, %d thread(s); load average at start %s",
                        sc.valueBytes(),
                        sc.entries(),
                        sc.threads(),
                        sc.sizes(),
                        sc.scaleThreads(),
                        sc.loadAtStart())))
                .append("</p>\n<div class=\"charts\">\n");
        if (!sc.sizes().isEmpty()) {
            List<String> categories = sc.sizes().stream().map(Charts::compact).toList();
            List<Charts.Series> series = new ArrayList<>();
            for (int i = 0; i < SYSTEMS.size(); i++) {
                double[] v = new double[sc.sizes().size()];
                boolean any = false;
                for (int s = 0; s < v.length; s++) {
                    ReadStep r = report.get(SYSTEMS.get(i), sc.sizes().get(s), sc.scaleThreads());
                    v[s] = r == null ? Double.NaN : r.readsPerSecond();
                    any |= r != null;
                }
                if (any) {
                    series.add(new Charts.Series(label(SYSTEMS.get(i)), COLORS.get(i), v));
                }
            }
            sb.append(Charts.render(
                    "Lookups per second by cache size",
                    "entries (" + sc.scaleThreads() + " thread" + (sc.scaleThreads() == 1 ? "" : "s") + ")",
                    "lookups per second",
                    categories,
                    "entries",
                    series,
                    Charts::compact));
        }
        List<String> threads = sc.threads().stream().map(String::valueOf).toList();
        List<Charts.Series> p50 = new ArrayList<>();
        for (int i = 0; i < SYSTEMS.size(); i++) {
            double[] v = new double[sc.threads().size()];
            boolean any = false;
            for (int t = 0; t < v.length; t++) {
                ReadStep r =
                        report.get(SYSTEMS.get(i), sc.entries(), sc.threads().get(t));
                v[t] = r == null ? Double.NaN : ReadStep.micros(r.p50Nanos());
                any |= r != null;
            }
            if (any) {
                p50.add(new Charts.Series(label(SYSTEMS.get(i)), COLORS.get(i), v));
            }
        }
        sb.append(Charts.render(
                String.format(Locale.ROOT, "p50 of one read, %,d entries", sc.entries()),
                "threads",
                "p50, microseconds",
                threads,
                "threads",
                p50,
                v -> Numbers.decimal(v, v < 10 ? 1 : 0)));
        sb.append("</div>\n");
        if (report.nearCacheNote() != null) {
            sb.append("<p class=\"note\">near-cache hit: ")
                    .append(esc(report.nearCacheNote()))
                    .append("</p>\n");
        }
        sb.append(HtmlReport.list("Issue 11's targets", report.verdicts()));
        sb.append(HtmlReport.resultsTable(report.columns(), report.steps()));
        return sb.append(HtmlReport.end(env.facts(), sc.facts())).toString();
    }

    private static String label(String system) {
        return system.equals(CacheReadReport.MISS) ? "shardq get (PG)" : system;
    }

    private static String esc(String s) {
        return Charts.escape(s);
    }
}
