package io.shardq.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.shardq.tools.Charts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportWritersTest {

    @Test
    void csv_readsBackAsOneRowPerStep_withQuotedCellsIntact() {
        String csv = CsvReport.render(Samples.report(false));
        List<List<String>> rows = MiniCsv.parse(csv);

        List<String> header = rows.get(0);
        assertThat(header).startsWith("threads", "system").contains("enqueue_vs_ceiling", "p99_ms", "durable");
        assertThat(rows).hasSize(6).allSatisfy(r -> assertThat(r).hasSameSizeAs(header));
        Map<String, String> naive1 = row(header, rows.get(2));
        assertThat(naive1.get("system")).isEqualTo("naive");
        assertThat(Double.parseDouble(naive1.get("enqueue_per_s"))).isEqualTo(18_000);
        assertThat(Double.parseDouble(naive1.get("enqueue_vs_ceiling"))).isCloseTo(0.9, within(1e-9));
        assertThat(Double.parseDouble(naive1.get("dequeue_vs_naive"))).isEqualTo(1.0);
        assertThat(Double.parseDouble(naive1.get("p99_ms"))).isCloseTo(9.9, within(0.01));
        assertThat(Double.parseDouble(naive1.get("wal_bytes_per_msg"))).isEqualTo(780.25);
        Map<String, String> ceiling1 = row(header, rows.get(1));
        assertThat(ceiling1.get("dequeue_per_s")).as("not applicable: empty").isEmpty();
        assertThat(ceiling1.get("p50_ms")).isEmpty();
        assertThat(Double.parseDouble(ceiling1.get("msg_per_s"))).isEqualTo(20_000);
        assertThat(Double.parseDouble(ceiling1.get("commits_per_msg"))).isCloseTo(0.1, within(1e-9));
        assertThat(Double.parseDouble(ceiling1.get("jvm_cpu_us_per_msg"))).isCloseTo(25.0, within(1e-9));
        assertThat(Double.parseDouble(ceiling1.get("pg_cpu_us_per_msg"))).isCloseTo(30.0, within(1e-9));
        assertThat(Double.parseDouble(naive1.get("msg_per_s"))).as("deliveries").isEqualTo(1_000);
        assertThat(Double.parseDouble(naive1.get("msg_vs_ceiling"))).isCloseTo(0.05, within(1e-9));
        assertThat(naive1.get("msg_vs_ceiling2")).as("no ceiling2 in this run").isEmpty();
        assertThat(Double.parseDouble(naive1.get("commits_per_msg"))).isCloseTo(0.3, within(1e-9));
        assertThat(naive1.get("pg_cpu_us_per_msg")).isEmpty();
        Map<String, String> odd = row(header, rows.get(3));
        assertThat(odd.get("first_error")).isEqualTo("boom, \"quoted\"\nsecond line <b>&</b>");
        assertThat(odd.get("backlog")).isEmpty();
        assertThat(odd.get("commits")).isEmpty();
    }

    @Test
    @SuppressWarnings("unchecked")
    void json_parsesBack_withNullForWhatWasNotMeasured() {
        Object parsed = Json.parse(JsonReport.render(Samples.report(false)));

        Map<String, Object> root = (Map<String, Object>) parsed;
        assertThat(root.get("unsafe")).isEqualTo(false);
        assertThat(root.get("banner")).isNull();
        Map<String, Object> env = (Map<String, Object>) root.get("environment");
        assertThat(env).containsEntry("fsync", "on").containsEntry("synchronous_commit", "on");
        Map<String, Object> scenario = (Map<String, Object>) root.get("scenario");
        assertThat((List<Object>) scenario.get("threads")).containsExactly(1.0, 2.0);
        assertThat(scenario.get("payload_bytes")).isEqualTo(512.0);
        List<Map<String, Object>> results = (List<Map<String, Object>>) root.get("results");
        assertThat(results).hasSize(5);
        Map<String, Object> naive2 = results.get(4);
        assertThat(naive2).containsEntry("system", "naive").containsEntry("threads", 2.0);
        assertThat((Double) naive2.get("dequeue_per_s")).isEqualTo(6_000.0);
        assertThat((Double) naive2.get("enqueue_vs_ceiling")).isCloseTo(8_000 / 30_000.0, within(1e-6));
        assertThat(naive2.get("pg_cpu_s")).isNull();
        assertThat(results.get(0).get("dequeue_per_s")).isNull();
        assertThat(results.get(2).get("first_error")).isEqualTo("boom, \"quoted\"\nsecond line <b>&</b>");
        assertThat(results.get(0).keySet())
                .containsExactlyElementsOf(
                        RunReport.COLUMNS.stream().map(ResultColumn::name).toList());
    }

    @Test
    @SuppressWarnings("unchecked")
    void json_carriesTheBanner_whenDurabilityIsOff() {
        Map<String, Object> root = (Map<String, Object>) Json.parse(JsonReport.render(Samples.report(true)));
        assertThat(root.get("unsafe")).isEqualTo(true);
        assertThat((String) root.get("banner")).contains("UNSAFE: durability off");
    }

    @Test
    void text_saysUnsafeOnItsFirstLine_whenSynchronousCommitIsOff() {
        RunReport r = Samples.report(true);
        String text = TextReport.render(r.environment(), r.scenario(), r.run());
        assertThat(text.lines().findFirst().orElseThrow())
                .startsWith("!!! UNSAFE: durability off")
                .contains("synchronous_commit=off");
        assertThat(TextReport.header(r.environment(), r.scenario())
                        .lines()
                        .findFirst()
                        .orElseThrow())
                .startsWith("!!! UNSAFE: durability off");
    }

    @Test
    void text_startsWithTheSettings_andShowsRatios_whenDurable() {
        RunReport r = Samples.report(false);
        String text = TextReport.render(r.environment(), r.scenario(), r.run());
        assertThat(text.lines().findFirst().orElseThrow()).isEqualTo("ShardQ benchmark: queue");
        assertThat(text).doesNotContain("UNSAFE");
        assertThat(text).contains("synchronous_commit  on").contains("payload             512 bytes");
        String naive2 = text.lines()
                .filter(l -> l.matches("\\s+2\\s+naive\\s+8,000.*"))
                .findFirst()
                .orElseThrow();
        assertThat(naive2).contains("0.27x").contains("1.00x");
        String perMessage = text.substring(text.indexOf("Per message against the ceilings"));
        assertThat(perMessage.lines().filter(l -> l.matches("\\s+2\\s+naive\\s+6,000\\s.*")))
                .singleElement()
                .satisfies(
                        l -> assertThat(l).contains("0.20x").contains("0.300").contains("n/a"));
        assertThat(text).contains("odd x1: 1 failed calls; first: boom");
    }

    @Test
    void html_isSelfContained_withItsChartsData(@TempDir Path dir) throws Exception {
        List<Path> written = Samples.report(true).writeTo(dir.resolve("out"));
        assertThat(written)
                .extracting(p -> p.getFileName().toString())
                .containsExactly("results.json", "results.csv", "results.html");
        String html = Files.readString(dir.resolve("out/results.html"));

        assertThat(html).contains("UNSAFE: durability off");
        // one file: uPlot and the drawing script inline, nothing fetched
        assertThat(html).doesNotContain(" src=").doesNotContain("href=").contains("uPlot");
        assertThat(html).contains("&lt;b&gt;&amp;&lt;/b&gt;").doesNotContain("<b>&</b>");
        List<JsonNode> charts = specs(html);
        assertThat(charts)
                .extracting(c -> c.get("title").asText())
                .containsExactly("Enqueue rate", "Dequeue rate", "p99 end-to-end latency");
        JsonNode enqueue = charts.get(0);
        assertThat(enqueue.get("xLabel").asText()).isEqualTo("producer threads");
        assertThat(enqueue.get("yLabel").asText()).isEqualTo("messages enqueued per second");
        List<String> names = new java.util.ArrayList<>();
        enqueue.get("series").forEach(s -> names.add(s.get("name").asText()));
        assertThat(names).contains("ceiling", "naive");
        for (JsonNode c : charts) { // every line has a value or a gap (null) per category, and a label for each
            int n = c.get("categories").size();
            c.get("series").forEach(s -> {
                assertThat(s.get("values").size()).isEqualTo(n);
                assertThat(s.get("labels").size()).isEqualTo(n);
            });
            double top = c.get("yTicks").get(c.get("yTicks").size() - 1).asDouble();
            c.get("series").forEach(s -> s.get("values").forEach(v -> {
                if (!v.isNull()) {
                    assertThat(v.asDouble()).isBetween(0.0, top);
                }
            }));
        }
    }

    @Test
    void niceTicks_endOnARoundNumberAtOrAboveTheMaximum() {
        assertThat(Charts.niceTicks(32_855)).containsExactly(0, 10_000, 20_000, 30_000, 40_000);
        assertThat(Charts.niceTicks(9.9)).containsExactly(0, 2, 4, 6, 8, 10);
        assertThat(Charts.niceTicks(0)).containsExactly(0, 1);
        assertThat(Charts.compact(32_500)).isEqualTo("32.5k");
        assertThat(Charts.compact(1_200_000)).isEqualTo("1.2M");
        assertThat(Charts.compact(0)).isEqualTo("0");
    }

    @Test
    void manyCategories_labelEveryKth_butEveryPointKeepsItsValueLabel() throws Exception {
        List<String> seconds = new java.util.ArrayList<>();
        double[] values = new double[60];
        for (int i = 0; i < 60; i++) {
            seconds.add("s" + i);
            values[i] = i;
        }
        String html = Charts.render(
                "t", "x", "y", seconds, "s", List.of(new Charts.Series("p99", "#000", values)), Charts::compact);
        JsonNode spec = specs(html).get(0);
        // 60 categories, at most 15 labels: every 4th, so s0, s4, ..., s56
        assertThat(spec.get("xLabels").get(0).asText()).isEqualTo("s0");
        assertThat(spec.get("xLabels").get(1).asText()).isEmpty();
        assertThat(spec.get("xLabels").get(4).asText()).isEqualTo("s4");
        assertThat(spec.get("xLabels").get(56).asText()).isEqualTo("s56");
        assertThat(spec.get("series").get(0).get("labels").get(59).asText()).isEqualTo("59"); // the last point's
    }

    /** The chart specs of a page, in order. */
    private static List<JsonNode> specs(String html) throws Exception {
        List<JsonNode> out = new java.util.ArrayList<>();
        String open = "<script type=\"application/json\" class=\"chart-spec\">";
        for (int from = html.indexOf(open); from >= 0; from = html.indexOf(open, from)) {
            int end = html.indexOf("</script>", from);
            out.add(new ObjectMapper().readTree(html.substring(from + open.length(), end)));
            from = end;
        }
        return out;
    }

    @Test
    void plainNumbers_haveNoExponentAndNoTrailingZeros() {
        assertThat(Numbers.plain(19537.128)).isEqualTo("19537.13");
        assertThat(Numbers.plain(0.000123456789)).isEqualTo("0.0001234568");
        assertThat(Numbers.plain(3.0)).isEqualTo("3");
        assertThat(Numbers.plain(123456789.0)).isEqualTo("123456800");
    }

    private static Map<String, String> row(List<String> header, List<String> cells) {
        Map<String, String> m = new java.util.LinkedHashMap<>();
        for (int i = 0; i < header.size(); i++) {
            m.put(header.get(i), cells.get(i));
        }
        return m;
    }
}
