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
        sb.append("</div>\n<h2>Issue 10's targets</h2>\n<ul>\n");
        for (String v : run.verdicts(sc.rate() > 0)) {
            sb.append("<li>").append(esc(v)).append("</li>\n");
        }
        sb.append("</ul>\n<h2>Results</h2>\n<div style=\"overflow-x:auto\">\n<table>\n<tr>");
        List<ResultColumn<TopicStep>> cols = report.columns();
        for (ResultColumn<TopicStep> c : cols) {
            sb.append("<th>").append(esc(c.name())).append("</th>");
        }
        sb.append("</tr>\n");
        for (TopicStep s : run.steps()) {
            sb.append("<tr>");
            for (ResultColumn<TopicStep> c : cols) {
                Object v = c.value().apply(s);
                String text = v == null || (v instanceof Double d && d.isNaN())
                        ? Numbers.NONE
                        : v instanceof Double d ? Numbers.plain(d) : v.toString();
                sb.append("<td>").append(esc(text)).append("</td>");
            }
            sb.append("</tr>\n");
        }
        sb.append("</table>\n</div>\n");
        List<String[]> facts = new ArrayList<>(env.facts());
        facts.addAll(sc.facts());
        return sb.append(HtmlReport.settings(facts))
                .append("</body>\n</html>\n")
                .toString();
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
