package io.shardq.perf;

import io.shardq.tools.TextTable;
import java.util.Locale;

/**
 * The human report of a {@code mixed} run: the UNSAFE banner first when durability is off, the
 * settings, throughput per stage, then per template and stage with latency percentiles, then the
 * application check.
 */
final class MixedTextReport {
    private MixedTextReport() {}

    static String header(Environment env, MixedScenario scenario) {
        return TextReport.header(env, "mixed", scenario.facts());
    }

    static String render(MixedReport report) {
        StringBuilder sb = new StringBuilder(header(report.environment(), report.scenario())).append('\n');
        TextTable stages = TextTable.numeric(
                "users", "transactions/s", "messages/s", "p50 ms", "p90 ms", "p99 ms", "backlog", "WAL B/tx", "failed");
        TextTable templates = TextTable.numeric(
                "users",
                "<template",
                "share",
                "transactions/s",
                "messages/s",
                "browsed/s",
                "p50 ms",
                "p90 ms",
                "p99 ms",
                "failed");
        for (StageResult s : report.stages()) {
            StageResult.TemplateResult a = s.all();
            LatencyStats l = a.latency();
            stages.row(
                    Integer.toString(s.users()),
                    Numbers.rate(a.transactionRate()),
                    Numbers.rate(a.messageRate()),
                    Numbers.millis(l.millis(l.p50())),
                    Numbers.millis(l.millis(l.p90())),
                    Numbers.millis(l.millis(l.p99())),
                    Numbers.count(s.backlog()),
                    Numbers.decimal(s.walBytesPerTransaction(), 0),
                    Numbers.count(a.counts().failed()));
            for (StageResult.TemplateResult t : s.templates()) {
                LatencyStats tl = t.latency();
                templates.row(
                        Integer.toString(s.users()),
                        t.template(),
                        Double.isNaN(t.share()) ? Numbers.NONE : String.format(Locale.ROOT, "%.1f%%", 100 * t.share()),
                        Numbers.rate(t.transactionRate()),
                        Numbers.rate(t.messageRate()),
                        Numbers.rate(t.browseRate()),
                        Numbers.millis(tl.millis(tl.p50())),
                        Numbers.millis(tl.millis(tl.p90())),
                        Numbers.millis(tl.millis(tl.p99())),
                        Numbers.count(t.counts().failed()));
            }
        }
        sb.append("Throughput per stage, measured window (all templates)\n")
                .append(stages.render())
                .append('\n')
                .append("Per template: committed transactions, messages moved, transaction latency\n")
                .append(templates.render());
        for (StageResult s : report.stages()) {
            for (StageResult.TemplateResult t : s.templates()) {
                if (t.firstError() != null) {
                    sb.append(String.format(
                            Locale.ROOT,
                            "%nx%d %s: %,d failed in the window; first failure of the stage: %s",
                            s.users(),
                            t.template(),
                            t.counts().failed(),
                            t.firstError()));
                }
            }
        }
        if (report.check() != null) {
            sb.append("\n\nApplication rows, whole run: ")
                    .append(report.check().describe())
                    .append('\n');
        }
        return sb.append(NOTES).toString();
    }

    private static final String NOTES =
            """

            transactions/s  committed transactions per second (a template's steps, then commit)
            messages/s      messages sent plus received per second; a browse moves none (browsed/s)
            latency         from the template's first step to its commit returning, committed only
            share           this template's committed transactions / all committed in the stage
            backlog         messages in the queue when the stage's users stopped
            WAL B/tx        WAL of the whole server in the window / committed transactions
            """;
}
