package io.shardq.perf;

import io.shardq.tools.Charts;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * results.html of a {@code mixed} run, in the style of the {@code queue} page (self-contained,
 * no script): the UNSAFE banner when durability was off, three charts against users (committed
 * transactions per second, messages per second, p99 transaction latency; one line per template
 * and one for all of them), the results table, the application check and the settings.
 */
final class MixedHtmlReport {
    private static final String ALL_COLOR = "#111827";
    private static final List<String> PALETTE =
            List.of("#1f6fd1", "#d95f02", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22");

    private MixedHtmlReport() {}

    static String render(MixedReport report) {
        Environment env = report.environment();
        MixedScenario sc = report.scenario();
        StringBuilder sb = new StringBuilder(HtmlReport.head("ShardQ benchmark: mixed"));
        if (!env.unsafeBanner().isEmpty()) {
            sb.append("<div class=\"unsafe\">").append(esc(env.unsafeBanner())).append("</div>\n");
        }
        sb.append("<h1>ShardQ benchmark: mixed</h1>\n<p class=\"summary\">")
                .append(esc(summary(env, sc)))
                .append("</p>\n<div class=\"charts\">\n");
        List<String> users =
                report.stages().stream().map(s -> String.valueOf(s.users())).toList();
        sb.append(Charts.render(
                "Transactions per second",
                "concurrent users (no think time)",
                "committed transactions per second",
                users,
                "users",
                series(report, true, StageResult.TemplateResult::transactionRate),
                Charts::compact));
        sb.append(Charts.render(
                "Messages per second",
                "concurrent users (no think time)",
                "messages sent + received per second",
                users,
                "users",
                series(report, false, StageResult.TemplateResult::messageRate),
                Charts::compact));
        sb.append(Charts.render(
                "p99 transaction latency",
                "concurrent users (no think time)",
                "p99 latency, ms",
                users,
                "users",
                series(report, true, t -> t.latency().millis(t.latency().p99())),
                v -> v == 0 ? "0" : Numbers.millis(v)));
        sb.append("</div>\n<h2>Results</h2>\n<div style=\"overflow-x:auto\">\n<table>\n<tr>");
        String[] head = {
            "users",
            "template",
            "share",
            "transactions/s",
            "messages/s",
            "browsed/s",
            "p50 ms",
            "p90 ms",
            "p99 ms",
            "p99.9 ms",
            "transactions",
            "failed",
            "backlog",
            "WAL B/tx"
        };
        for (String h : head) {
            sb.append(h.equals("template") ? "<th class=\"l\">" : "<th>")
                    .append(esc(h))
                    .append("</th>");
        }
        sb.append("</tr>\n");
        for (StageResult s : report.stages()) {
            for (StageResult.TemplateResult t : s.rows()) {
                LatencyStats l = t.latency();
                boolean all = t == s.all();
                String[] cells = {
                    Integer.toString(s.users()),
                    t.template(),
                    Double.isNaN(t.share()) ? Numbers.NONE : String.format(Locale.ROOT, "%.1f%%", 100 * t.share()),
                    Numbers.rate(t.transactionRate()),
                    Numbers.rate(t.messageRate()),
                    Numbers.rate(t.browseRate()),
                    Numbers.millis(l.millis(l.p50())),
                    Numbers.millis(l.millis(l.p90())),
                    Numbers.millis(l.millis(l.p99())),
                    Numbers.millis(l.millis(l.p999())),
                    Numbers.count(t.counts().committed()),
                    Numbers.count(t.counts().failed()),
                    all ? Numbers.count(s.backlog()) : "",
                    all ? Numbers.decimal(s.walBytesPerTransaction(), 0) : ""
                };
                sb.append(all ? "<tr style=\"font-weight:bold\">" : "<tr>");
                for (int i = 0; i < cells.length; i++) {
                    sb.append(i == 1 ? "<td class=\"l\">" : "<td>")
                            .append(esc(cells[i]))
                            .append("</td>");
                }
                sb.append("</tr>\n");
            }
        }
        sb.append("</table>\n</div>\n<p class=\"note\">")
                .append("A transaction is one template: its steps in one transacted JMS session, then commit; the"
                        + " application's UPDATE and INSERT run on the session's JDBC connection and commit with the"
                        + " messages. Latency: from the first step to the commit returning, committed transactions"
                        + " only. messages/s: sent plus received; a browse moves none. Backlog: messages in the queue"
                        + " when the stage's users stopped.")
                .append("</p>\n");
        if (report.check() != null) {
            sb.append("<p class=\"note\"><b>Application rows, whole run:</b> ")
                    .append(esc(report.check().describe()))
                    .append("</p>\n");
        }
        for (StageResult s : report.stages()) {
            for (StageResult.TemplateResult t : s.templates()) {
                if (t.firstError() != null) {
                    sb.append("<p class=\"note\">")
                            .append(esc("x" + s.users() + " " + t.template() + ": "
                                    + t.counts().failed() + " failed in the window; first failure of the stage: "
                                    + t.firstError()))
                            .append("</p>\n");
                }
            }
        }
        return sb.append(HtmlReport.end(env.facts(), sc.facts())).toString();
    }

    /** The settings that matter most, in one line under the title. */
    static String summary(Environment env, MixedScenario sc) {
        Workload w = sc.workload();
        return "PostgreSQL " + env.serverVersion() + ", fsync " + env.fsync() + ", synchronous_commit "
                + env.synchronousCommit() + ", shared_buffers " + env.sharedBuffers() + ", " + env.cores()
                + " cores | workload " + w.source() + " (" + w.templates().size() + " templates), payload "
                + w.payloadBytes() + " B persistent, " + w.shards() + " shards, users " + sc.stages() + ", "
                + sc.duration().toSeconds() + " s measured after " + sc.warmup().toSeconds() + " s warm-up per stage";
    }

    /**
     * One line per template, then "all"; {@code everyTemplate} false leaves out templates that move
     * no message (a browse), whose line would lie flat at zero.
     */
    private static List<Charts.Series> series(
            MixedReport report, boolean everyTemplate, ToDoubleFunction<StageResult.TemplateResult> metric) {
        List<Charts.Series> out = new ArrayList<>();
        List<Workload.Template> templates = report.scenario().workload().templates();
        List<StageResult> stages = report.stages();
        for (int t = 0; t < templates.size(); t++) {
            Workload.Template tpl = templates.get(t);
            boolean moves = tpl.countOf(Workload.Step.Kind.SEND) + tpl.countOf(Workload.Step.Kind.RECEIVE) > 0;
            if (!everyTemplate && !moves) {
                continue;
            }
            double[] values = new double[stages.size()];
            for (int i = 0; i < stages.size(); i++) {
                values[i] = metric.applyAsDouble(stages.get(i).templates().get(t));
            }
            out.add(new Charts.Series(tpl.name(), PALETTE.get(t % PALETTE.size()), values));
        }
        double[] all = new double[stages.size()];
        for (int i = 0; i < stages.size(); i++) {
            all[i] = metric.applyAsDouble(stages.get(i).all());
        }
        out.add(new Charts.Series(StageResult.ALL, ALL_COLOR, all));
        return out;
    }

    private static String esc(String s) {
        return Charts.escape(s);
    }
}
