package io.shardq.perf;

import io.shardq.tools.Charts;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * results.html of {@code perf topic}: deliveries per second and WAL per delivery against the
 * publishers drawn by the tools' charts (uPlot), issue 10's targets, the results table (results.csv's columns), and the
 * settings. Self-contained, nothing fetched, as the queue's {@link HtmlReport}.
 */
final class TopicHtmlReport {
    private static final String[] COLORS = {"#7f7f7f", "#1f77b4", "#d62728"};

    private TopicHtmlReport() {}

    static String render(TopicReport report) {
        Environment env = report.environment();
        TopicScenario sc = report.scenario();
        TopicComparison run = report.run();
        StringBuilder sb = new StringBuilder(HtmlReport.head("ShardQ benchmark: topic"));
        if (!env.unsafeBanner().isEmpty()) {
            sb.append("<div class=\"unsafe\">").append(esc(env.unsafeBanner())).append("</div>\n");
        }
        sb.append("<h1>ShardQ benchmark: topic</h1>\n<p class=\"summary\">")
                .append(esc(sc.subscriptions() + " durable subscriptions, payload "
                        + sc.base().payloadBytes()
                        + " B, batch " + sc.base().batchSize() + ", "
                        + sc.duration().toSeconds()
                        + " s measured after " + sc.warmup().toSeconds() + " s warm-up; load average at start "
                        + sc.loadAtStart()))
                .append("</p>\n<div class=\"charts\">\n");
        List<String> categories = sc.publishers().stream().map(String::valueOf).toList();
        sb.append(Charts.render(
                "Messages received per second",
                "publishers (queue: producers = consumers)",
                "deliveries per second",
                categories,
                "publishers",
                series(run, sc, s -> TopicComparison.deliveryRate(s.result())),
                Charts::compact));
        sb.append(Charts.render(
                "WAL per delivered message",
                "publishers",
                "WAL bytes",
                categories,
                "publishers",
                series(run, sc, s -> TopicComparison.walPerDelivery(s.result())),
                Charts::compact));
        sb.append("</div>\n").append(HtmlReport.list("Issue 10's targets", run.verdicts(sc.rate() > 0)));
        sb.append(HtmlReport.resultsTable(report.columns(), run.steps()));
        return sb.append(HtmlReport.end(env.facts(), sc.facts())).toString();
    }

    private static List<Charts.Series> series(
            TopicComparison run, TopicScenario sc, ToDoubleFunction<TopicStep> metric) {
        List<Charts.Series> out = new ArrayList<>();
        for (int i = 0; i < sc.systems().size(); i++) {
            String system = sc.systems().get(i);
            double[] values = new double[sc.publishers().size()];
            boolean any = false;
            for (int p = 0; p < values.length; p++) {
                TopicStep s = run.get(system, sc.publishers().get(p));
                values[p] = s == null ? Double.NaN : metric.applyAsDouble(s);
                any |= !Double.isNaN(values[p]);
            }
            if (any) {
                out.add(new Charts.Series(system, COLORS[TopicScenario.ALL.indexOf(system) % COLORS.length], values));
            }
        }
        return out;
    }

    private static String esc(String s) {
        return Charts.escape(s);
    }
}
