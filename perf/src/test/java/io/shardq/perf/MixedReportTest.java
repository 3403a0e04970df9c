package io.shardq.perf;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** The mixed reports on a made-up run: two stages of the default workload. */
class MixedReportTest {

    @Test
    void csv_hasOneRowPerStageAndTemplate_plusAnAllRowPerStage() {
        List<List<String>> rows = MiniCsv.parse(report(false).csv());

        List<String> header = rows.get(0);
        assertThat(header).startsWith("users", "template").contains("tx_per_s", "messages_per_s", "p99_ms");
        assertThat(rows).hasSize(1 + 2 * 5).allSatisfy(r -> assertThat(r).hasSameSizeAs(header));
        Map<String, String> send = row(header, rows.get(1));
        assertThat(send).containsEntry("users", "4").containsEntry("template", "send10-update");
        assertThat(Double.parseDouble(send.get("tx_per_s"))).isEqualTo(100);
        assertThat(Double.parseDouble(send.get("messages_per_s"))).isEqualTo(1000);
        Map<String, String> all = row(header, rows.get(5));
        assertThat(all).containsEntry("template", "all").containsEntry("weight", "100");
        assertThat(Double.parseDouble(all.get("tx_per_s"))).isEqualTo(250);
        assertThat(Double.parseDouble(all.get("share"))).isEqualTo(1.0);
        assertThat(row(header, rows.get(3)).get("p50_ms"))
                .as("browse: nothing committed, no latency")
                .isEmpty();
    }

    @Test
    @SuppressWarnings("unchecked")
    void json_parsesBack_withTheTemplatesAndTheCheck() {
        Map<String, Object> root = (Map<String, Object>) Json.parse(report(true).json());

        assertThat(root.get("unsafe")).isEqualTo(true);
        assertThat((String) root.get("banner")).contains("UNSAFE");
        Map<String, Object> scenario = (Map<String, Object>) root.get("scenario");
        assertThat(scenario).containsEntry("name", "mixed").containsEntry("workload", "default (built in)");
        assertThat((List<Object>) scenario.get("stages")).containsExactly(4.0, 8.0);
        List<Map<String, Object>> templates = (List<Map<String, Object>>) scenario.get("templates");
        assertThat(templates.get(0))
                .containsEntry("name", "send10-update")
                .containsEntry("weight", 40.0)
                .containsEntry("steps", "send 10, update-account");
        List<Map<String, Object>> results = (List<Map<String, Object>>) root.get("results");
        assertThat(results).hasSize(10);
        assertThat(results.get(0).keySet())
                .containsExactlyElementsOf(
                        MixedReport.COLUMNS.stream().map(ResultColumn::name).toList());
        Map<String, Object> check = (Map<String, Object>) root.get("check");
        assertThat(check).containsEntry("consistent", true).containsEntry("audit_rows", 400.0);
    }

    @Test
    void text_saysUnsafeFirst_thenShowsStagesTemplatesAndTheCheck() {
        String text = MixedTextReport.render(report(true));

        assertThat(text.lines().findFirst().orElseThrow()).startsWith("!!! UNSAFE");
        assertThat(text)
                .contains("ShardQ benchmark: mixed")
                .contains("weight 40 (40%): send 10, update-account")
                .contains("Throughput per stage")
                .contains("receive10-insert")
                .contains("Application rows, whole run: consistent");
    }

    @Test
    void html_drawsThreeChartsAgainstUsers_withALineForAll() {
        String html = MixedHtmlReport.render(report(false));

        assertThat(html).doesNotContain("UNSAFE");
        assertThat(html.split("<figure class=\"chart\"", -1)).hasSize(4);
        assertThat(html).contains("Transactions per second", "p99 transaction latency", "\"name\":\"all\"");
        assertThat(html).contains("\"unit\":\"users\"", "\"categories\":[\"4\",\"8\"]");
    }

    static MixedReport report(boolean unsafe) {
        MixedScenario sc = new MixedScenario(
                Workload.defaults(), List.of(4, 8), Duration.ofSeconds(1), Duration.ofSeconds(10), unsafe);
        List<StageResult> stages = List.of(stage(sc, 4, 1), stage(sc, 8, 2));
        return new MixedReport(
                Samples.environment(unsafe ? "off" : "on"),
                sc,
                stages,
                new ApplicationCheck(800, 800, 400, 400, 1234, 1234));
    }

    private static StageResult stage(MixedScenario sc, int users, int factor) {
        Histogram h = LatencyStats.newHistogram();
        for (long v = 1; v <= 100; v++) {
            h.recordValue(v * 100);
        }
        long[] tx = {1000L * factor, 1000L * factor, 0, 500L * factor};
        List<StageResult.TemplateResult> rows = new java.util.ArrayList<>();
        TemplateMeter.Counts sum = TemplateMeter.Counts.ZERO;
        long total = tx[0] + tx[1] + tx[2] + tx[3];
        for (int i = 0; i < 4; i++) {
            Workload.Template t = sc.workload().templates().get(i);
            TemplateMeter.Counts c = new TemplateMeter.Counts(
                    tx[i],
                    0,
                    tx[i] * t.countOf(Workload.Step.Kind.SEND),
                    tx[i] * t.countOf(Workload.Step.Kind.RECEIVE),
                    tx[i] * t.countOf(Workload.Step.Kind.BROWSE));
            sum = sum.plus(c);
            rows.add(new StageResult.TemplateResult(
                    t.name(),
                    t.weight(),
                    c,
                    10.0,
                    tx[i] / (double) total,
                    tx[i] == 0 ? LatencyStats.EMPTY : LatencyStats.of(h),
                    null));
        }
        StageResult.TemplateResult all =
                new StageResult.TemplateResult("all", 100, sum, 10.0, 1.0, LatencyStats.of(h), null);
        return new StageResult(users, 10.0, rows, all, 1234, 950.5);
    }

    private static Map<String, String> row(List<String> header, List<String> cells) {
        Map<String, String> m = new java.util.LinkedHashMap<>();
        for (int i = 0; i < header.size(); i++) {
            m.put(header.get(i), cells.get(i));
        }
        return m;
    }
}
