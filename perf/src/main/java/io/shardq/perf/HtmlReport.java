package io.shardq.perf;

import io.shardq.tools.Charts;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * results.html: one self-contained page (inline CSS, uPlot and the charts' data: nothing fetched): the
 * UNSAFE banner when durability was off, the settings, three charts against threads (enqueue
 * rate, dequeue rate, p99 latency; one line per system) and the results table.
 */
final class HtmlReport {
    private static final Map<String, String> COLORS = Map.of(
            CeilingSystem.NAME,
            "#6b7280",
            Ceiling2System.NAME,
            "#a3a3a3",
            NaiveSkipLockedSystem.NAME,
            "#d95f02",
            SystemRegistry.SHARDQ,
            "#1f6fd1",
            ShardQSystem.ASYNC_NAME,
            "#7fb3f0");
    private static final List<String> PALETTE = List.of("#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf");

    private static final String ASYNC_HEADER = "async/sync";

    private HtmlReport() {}

    static String render(RunReport report) {
        Environment env = report.environment();
        Comparison run = report.run();
        StringBuilder sb = new StringBuilder(head("ShardQ benchmark: queue"));
        if (!env.unsafeBanner().isEmpty()) {
            sb.append("<div class=\"unsafe\">").append(esc(env.unsafeBanner())).append("</div>\n");
        }
        sb.append("<h1>ShardQ benchmark: queue</h1>\n<p class=\"summary\">")
                .append(esc(summary(env, report.scenario())))
                .append("</p>\n");
        sb.append("<div class=\"charts\">\n");
        List<String> categories =
                run.threadValues().stream().map(String::valueOf).toList();
        sb.append(Charts.render(
                "Enqueue rate",
                "producer threads",
                "messages enqueued per second",
                categories,
                "threads",
                series(run, false, StepResult::enqueueRate),
                Charts::compact));
        sb.append(Charts.render(
                "Dequeue rate",
                "consumer threads (as many producers)",
                "messages dequeued per second",
                categories,
                "threads",
                series(run, true, StepResult::dequeueRate),
                Charts::compact));
        sb.append(Charts.render(
                "p99 end-to-end latency",
                "threads (producers = consumers)",
                "p99 latency, ms",
                categories,
                "threads",
                series(run, true, r -> r.latency().millis(r.latency().p99())),
                v -> v == 0 ? "0" : Numbers.millis(v)));
        sb.append("</div>\n<h2>Results</h2>\n<div style=\"overflow-x:auto\">\n<table>\n<tr>");
        boolean async = run.hasAsync();
        String[] head = {
            "threads",
            "system",
            "enqueue/s",
            "dequeue/s",
            "enq/ceiling",
            "deq/naive",
            "async/sync",
            "msg/s",
            "/ceiling2",
            "/ceiling",
            "backlog",
            "p50 ms",
            "p90 ms",
            "p99 ms",
            "p99.9 ms",
            "WAL B/msg",
            "reads/msg",
            "JVM cpu s",
            "PG cpu s",
            "commits/msg",
            "JVM µs/msg",
            "PG µs/msg",
            "table MB",
            "dead tuples",
            "errors"
        };
        for (String h : head) {
            if (!async && h.equals(ASYNC_HEADER)) {
                continue;
            }
            sb.append(h.equals("system") ? "<th class=\"l\">" : "<th>")
                    .append(esc(h))
                    .append("</th>");
        }
        sb.append("</tr>\n");
        for (StepResult r : run.results()) {
            LatencyStats l = r.latency();
            String[] cells = {
                Integer.toString(r.threads()),
                r.system(),
                Numbers.rate(r.enqueueRate()),
                Numbers.rate(r.dequeueRate()),
                Numbers.ratio(run.enqueueVsCeiling(r)),
                Numbers.ratio(run.dequeueVsNaive(r)),
                Numbers.ratio(run.enqueueVsSync(r)),
                Numbers.rate(r.messageRate()),
                Numbers.ratio(run.messagesVsCeiling2(r)),
                Numbers.ratio(run.messagesVsCeiling(r)),
                Numbers.count(r.backlog()),
                Numbers.millis(l.millis(l.p50())),
                Numbers.millis(l.millis(l.p90())),
                Numbers.millis(l.millis(l.p99())),
                Numbers.millis(l.millis(l.p999())),
                Numbers.decimal(r.walBytesPerMessage(), 0),
                Numbers.decimal(r.sqlReadsPerMessage(), 3),
                Numbers.decimal(r.jvmCpuSeconds(), 1),
                TextReport.pgSeconds(r),
                Numbers.decimal(r.commitsPerMessage(), 3),
                Numbers.decimal(r.jvmCpuMicrosPerMessage(), 1),
                TextReport.pgMicros(r),
                Numbers.megabytes(r.tableBytes()),
                Numbers.count(r.deadTuples()),
                Numbers.count(r.errors())
            };
            sb.append("<tr>");
            for (int i = 0; i < cells.length; i++) {
                if (!async && head[i].equals(ASYNC_HEADER)) {
                    continue;
                }
                sb.append(i == 1 ? "<td class=\"l\">" : "<td>")
                        .append(esc(cells[i]))
                        .append("</td>");
            }
            sb.append("</tr>\n");
        }
        sb.append("</table>\n</div>\n<p class=\"note\">")
                .append("enq/ceiling: enqueue rate divided by the ceiling's (a plain multi-row INSERT) at the same"
                        + " threads. deq/naive: dequeue rate divided by the naive FOR UPDATE SKIP LOCKED queue's."
                        + " Latency: from the payload stamp just before sendBatch to receiveBatch returning after"
                        + " its commit. WAL B/msg: WAL of the whole server in the window per message enqueued."
                        + " msg/s: deliveries per second end to end for a queue, inserts per second for a ceiling;"
                        + " /ceiling2 and /ceiling: msg/s divided by the inserts per second of ceiling2 (multi-row"
                        + " INSERT, then COMMIT, per batch on the producer's own connection: two round trips) and of"
                        + " ceiling (one autocommit INSERT per batch) at the same threads. commits/msg: transactions"
                        + " committed in the database in the window (pg_stat_database.xact_commit) per msg. µs/msg:"
                        + " CPU per msg of this JVM and of the PostgreSQL processes (n/a: the server is not on this"
                        + " machine).")
                .append(
                        async
                                ? " async/sync: shardq-async's enqueue rate divided by shardq's (synchronous) at the"
                                        + " same threads, in the same run."
                                : "")
                .append("</p>\n");
        for (StepResult r : run.results()) {
            if (r.firstError() != null) {
                sb.append("<p class=\"note\">")
                        .append(esc(r.system() + " x" + r.threads() + ": " + r.errors() + " failed calls; first: "
                                + r.firstError()))
                        .append("</p>\n");
            }
        }
        return sb.append(end(env.facts(), report.scenario().facts())).toString();
    }

    /** The page up to and including {@code <body>}: inline CSS and the charts' script, nothing fetched. */
    static String head(String title) {
        return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + esc(title)
                + "</title>\n<style>\n" + STYLE + "\n</style>\n" + Charts.assets() + "</head>\n<body>\n";
    }

    /**
     * The results table every benchmark's page ends with (before its settings): a heading cell per
     * column, a row per result, unknown figures as {@link Numbers#NONE}, scrolling sideways when wide.
     */
    static <R> String resultsTable(List<ResultColumn<R>> columns, List<R> rows) {
        StringBuilder sb = new StringBuilder("<h2>Results</h2>\n<div style=\"overflow-x:auto\">\n<table>\n<tr>");
        for (ResultColumn<R> c : columns) {
            sb.append("<th>").append(esc(c.name())).append("</th>");
        }
        sb.append("</tr>\n");
        for (R r : rows) {
            sb.append("<tr>");
            for (ResultColumn<R> c : columns) {
                Object v = c.value().apply(r);
                String text = v == null || (v instanceof Double d && d.isNaN())
                        ? Numbers.NONE
                        : v instanceof Double d ? Numbers.plain(d) : v.toString();
                sb.append("<td>").append(esc(text)).append("</td>");
            }
            sb.append("</tr>\n");
        }
        return sb.append("</table>\n</div>\n").toString();
    }

    /** A titled list (a benchmark's targets and whether each was met). */
    static String list(String title, List<String> items) {
        StringBuilder sb = new StringBuilder("<h2>").append(esc(title)).append("</h2>\n<ul>\n");
        for (String item : items) {
            sb.append("<li>").append(esc(item)).append("</li>\n");
        }
        return sb.append("</ul>\n").toString();
    }

    /** The end of every benchmark's page: the settings (the environment's, then the scenario's). */
    static String end(List<String[]> environmentFacts, List<String[]> scenarioFacts) {
        List<String[]> facts = new ArrayList<>(environmentFacts);
        facts.addAll(scenarioFacts);
        return settings(facts) + "</body>\n</html>\n";
    }

    /** The settings section: one row per {@code name  value} fact. */
    static String settings(List<String[]> facts) {
        StringBuilder sb = new StringBuilder("<h2>Settings</h2>\n<table>\n");
        for (String[] f : facts) {
            sb.append("<tr><th class=\"l\">")
                    .append(esc(f[0]))
                    .append("</th><td class=\"l\">")
                    .append(esc(f[1]))
                    .append("</td></tr>\n");
        }
        return sb.append("</table>\n").toString();
    }

    private static final String STYLE = "body{font-family:sans-serif;margin:24px;color:#111827}"
            + "table{border-collapse:collapse;margin:8px 0 20px}"
            + "td,th{padding:3px 8px;border-bottom:1px solid #e5e7eb;text-align:right;white-space:nowrap}"
            + "table{font-size:13px}"
            + "td.l,th.l{text-align:left}th{background:#f3f4f6}"
            + ".unsafe{background:#b91c1c;color:#fff;font-weight:bold;font-size:20px;padding:12px}"
            + ".charts{display:flex;flex-wrap:wrap;gap:12px}"
            + ".charts figure.chart{margin:0;border:1px solid #e5e7eb}.note{color:#4b5563;font-size:13px}"
            + ".summary{color:#374151}";

    /** The settings that matter most, in one line under the title. */
    static String summary(Environment env, Scenario sc) {
        Settings b = sc.base();
        return "PostgreSQL " + env.serverVersion() + ", fsync " + env.fsync() + ", synchronous_commit "
                + env.synchronousCommit() + ", shared_buffers " + env.sharedBuffers() + ", " + env.cores()
                + " cores | payload " + b.payloadBytes() + " B, batch " + b.batchSize() + ", "
                + (b.persistent() ? "persistent" : "non-persistent") + ", threads " + sc.threads() + ", "
                + sc.duration().toSeconds() + " s measured after " + sc.warmup().toSeconds() + " s warm-up";
    }

    private static List<Charts.Series> series(
            Comparison run, boolean consumersOnly, ToDoubleFunction<StepResult> metric) {
        List<Charts.Series> out = new ArrayList<>();
        List<Integer> threads = run.threadValues();
        int other = 0;
        for (String system : run.systems()) {
            double[] values = new double[threads.size()];
            boolean any = false;
            for (int i = 0; i < threads.size(); i++) {
                StepResult r = run.get(system, threads.get(i));
                values[i] = r == null || (consumersOnly && !r.consumes()) ? Double.NaN : metric.applyAsDouble(r);
                any |= r != null && (!consumersOnly || r.consumes());
            }
            if (any) {
                String color = COLORS.containsKey(system) ? COLORS.get(system) : PALETTE.get(other++ % PALETTE.size());
                out.add(new Charts.Series(system, color, values));
            }
        }
        return out;
    }

    private static String esc(String s) {
        return Charts.escape(s);
    }
}
