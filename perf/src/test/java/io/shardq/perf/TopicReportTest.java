package io.shardq.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Ratios, targets and the shape of perf topic's reports, on made-up figures. */
class TopicReportTest {

    private static StepResult step(String system, boolean consumes, double seconds, long enq, long deq, double wal) {
        double nan = Double.NaN;
        return new StepResult(
                system,
                4,
                consumes,
                seconds,
                enq,
                deq,
                enq / seconds,
                consumes ? deq / seconds : nan,
                0,
                LatencyStats.EMPTY,
                wal,
                nan,
                1000,
                0,
                1.0,
                2.0,
                -1,
                0,
                null,
                List.of());
    }

    private static LatencyStats commits(long p50) {
        return new LatencyStats(100, p50, p50, p50 * 2, p50 * 3, p50 * 4, p50);
    }

    /** At 4 publishers: ceiling 100K/s, queue 20K/s at 750 B/msg, topic 18K/s x 10 at 900 B per publish. */
    static TopicComparison sample(long subBacklogEnd) {
        TopicStep ceiling = new TopicStep(
                "ceiling",
                4,
                step("ceiling", false, 10, 1_000_000, 0, 670),
                LatencyStats.EMPTY,
                StoredRows.UNKNOWN,
                List.of(),
                -1,
                -1,
                10,
                "1.0 1.0 1.0");
        TopicStep queue = new TopicStep(
                "queue",
                4,
                step("shardq", true, 10, 200_000, 200_000, 750),
                commits(1000),
                new StoredRows(5000, 620, 0),
                List.of(new SubscriptionBacklog("perf.shardq", 100, 120)),
                -1,
                -1,
                10,
                "2.0 1.0 1.0");
        TopicStep topic = new TopicStep(
                "topic",
                4,
                step("topic", true, 10, 180_000, 1_800_000, 900),
                commits(1500),
                new StoredRows(5000, 622, 2),
                List.of(
                        new SubscriptionBacklog("sub-0", 100, 200),
                        new SubscriptionBacklog("sub-1", 50, subBacklogEnd)),
                200_000,
                390_000,
                10,
                "3.0 1.0 1.0");
        return new TopicComparison(List.of(ceiling, queue, topic));
    }

    private static TopicScenario scenario() {
        return new TopicScenario(
                List.of(4),
                2,
                2,
                10,
                0,
                TopicScenario.ALL,
                Duration.ofSeconds(1),
                Duration.ofSeconds(10),
                new Settings(4, 512, 10, 8, true, false),
                "0.5 0.4 0.3");
    }

    @Test
    void ratios_comeFromTheSameRun_atTheSamePublishers() {
        TopicComparison run = sample(300);
        TopicStep topic = run.get("topic", 4);
        assertThat(run.deliveriesVsQueue(topic)).isCloseTo(9.0, within(1e-9)); // 180K/s / 20K/s
        assertThat(run.publishesVsCeiling(topic)).isCloseTo(0.18, within(1e-9));
        // 900 B per publish over 10 deliveries each = 90 B per delivery, against the queue's 750
        assertThat(TopicComparison.walPerDelivery(topic.result())).isCloseTo(90.0, within(1e-9));
        assertThat(run.walVsQueue(topic)).isCloseTo(0.12, within(1e-9));
        assertThat(run.publishCostVsQueue(topic)).isCloseTo(1.5, within(1e-9));
        assertThat(run.deliveriesVsQueue(run.get("ceiling", 4))).isNaN();
        assertThat(run.walVsQueue(run.get("ceiling", 4))).isNaN();
    }

    @Test
    void verdicts_sayWhichTargetsWereMet() {
        assertThat(sample(300).verdicts())
                .singleElement()
                .asString()
                .contains("9.00x the queue's (target >= 8x): met")
                .contains("0.12x a queue message's (target <= 0.2x): met")
                .contains("kept up: 2 of 2: met");
        // sub-1 grew from 50 to 50,000 in the window: more than a second of publishing (18,000)
        assertThat(sample(50_000).verdicts()).singleElement().asString().contains("kept up: 1 of 2: NOT MET");
    }

    @Test
    void keptUp_allowsOneSecondOfPublishingOfGrowth() {
        assertThat(new SubscriptionBacklog("s", 100, 1100).keptUp(1000, 10)).isTrue();
        assertThat(new SubscriptionBacklog("s", 100, 1101).keptUp(1000, 10)).isFalse();
        assertThat(new SubscriptionBacklog("s", 5000, 10).keptUp(1000, 10)).isTrue();
        assertThat(new SubscriptionBacklog("s", -1, 10).keptUp(1000, 10)).isFalse();
        // 9.99 published per second in batches of 10: one batch is not falling behind
        assertThat(new SubscriptionBacklog("s", 0, 10).keptUp(9.99, 10)).isTrue();
        assertThat(new SubscriptionBacklog("s", 0, 11).keptUp(9.99, 10)).isFalse();
    }

    @Test
    void text_printsSettingsFirst_thenTheTables_theTargets_andTheBalance() {
        TopicReport report = new TopicReport(Samples.environment("on"), scenario(), sample(300));
        String text = report.text();
        assertThat(text).startsWith("ShardQ benchmark: topic\n");
        assertThat(text.indexOf("load average        0.5 0.4 0.3"))
                .isLessThan(text.indexOf("Throughput and end-to-end latency"));
        assertThat(text)
                .contains("deliveries/s", "vs queue", "backlog start", "kept up", "WAL B/delivery", "bitmap B")
                .contains("180,000", "9.00x")
                .contains(
                        "x4: whole step: 200,000 published x 2 subscriptions = 400,000; delivered 390,000  (NOT EQUAL: 10,000 not delivered when the consumers stopped; the subscriptions' lag then: 0)")
                .contains("sub-1", "kept up");
    }

    @Test
    void csvAndJson_haveOneRowPerSystemAndPublishers_withTheSameColumns() {
        TopicReport report = new TopicReport(Samples.environment("on"), scenario(), sample(300));
        List<List<String>> lines = MiniCsv.parse(report.csv());
        List<String> header = lines.get(0);
        List<Map<String, String>> csv = lines.subList(1, lines.size()).stream()
                .map(l -> {
                    Map<String, String> m = new java.util.LinkedHashMap<>();
                    for (int i = 0; i < header.size(); i++) {
                        m.put(header.get(i), l.get(i));
                    }
                    return m;
                })
                .toList();
        assertThat(csv).hasSize(3);
        assertThat(csv.get(2))
                .containsEntry("system", "topic")
                .containsEntry("publishers", "4")
                .containsEntry("deliveries_vs_queue", "9")
                .containsEntry("wal_vs_queue", "0.12")
                .containsEntry("bitmap_bytes", "2");
        assertThat(csv.get(0)).containsEntry("delivery_per_s", "").containsEntry("wal_vs_queue", "");

        Object json = Json.parse(report.json());
        assertThat(json).isInstanceOf(Map.class);
        Map<?, ?> root = (Map<?, ?>) json;
        assertThat(((Map<?, ?>) root.get("scenario")).get("name")).isEqualTo("topic");
        List<?> results = (List<?>) root.get("results");
        assertThat(results).hasSize(3);
        Map<?, ?> topic = (Map<?, ?>) results.get(2);
        List<Object> keys = List.copyOf(topic.keySet());
        assertThat(keys)
                .containsAll(
                        report.columns().stream().map(c -> (Object) c.name()).toList());
        assertThat((List<?>) topic.get("backlogs")).hasSize(2);
        assertThat((List<?>) root.get("targets")).hasSize(1);
    }

    @Test
    void writeTo_writesJsonCsvAndASelfContainedHtml(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        TopicReport report = new TopicReport(Samples.environment("on"), scenario(), sample(300));
        List<java.nio.file.Path> written = report.writeTo(dir);
        assertThat(written)
                .extracting(p -> p.getFileName().toString())
                .containsExactly("results.json", "results.csv", "results.html");
        String html = java.nio.file.Files.readString(dir.resolve("results.html"));
        assertThat(html)
                .startsWith("<!DOCTYPE html>")
                .contains("<figure class=\"chart\"", "Issue 10's targets", "deliveries_vs_queue", "load average")
                .doesNotContain("<link", " src=", "href=");
    }
}
