package io.shardq.perf;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The delay report from figures made up here: the statements' table and the JSON, checked by Jackson. */
class DelayReportTest {
    private static final Environment ENV =
            new Environment("jdbc:postgresql://db/x", false, "17.6", "on", "on", "on", "on", "128MB", 2, "jvm", "os");

    private static DelayScenario scenario() {
        return new DelayScenario(
                1000,
                Duration.ofSeconds(2),
                Duration.ofSeconds(1),
                2,
                2,
                100,
                64,
                2,
                Duration.ofSeconds(10),
                "1.00 1.00 1.00");
    }

    private static DelayResult result(long early, SqlCounters.Delta delivering) {
        return new DelayResult(
                1000,
                0,
                0.5,
                1000,
                0,
                0,
                early,
                early > 0 ? -1500 : 2000,
                new LatencyStats(1000, 12_000, 30_000, 45_000, 50_000, 51_000, 14_000.0),
                2.0,
                0,
                new SqlCounters.Delta(50, List.of(), 10, 1000, 0, 0, 0),
                delivering,
                900.0,
                0.001,
                List.of(
                        new DelayResult.Second(0, 600, 11_000, 40_000, 41_000),
                        new DelayResult.Second(1, 400, 13_000, 45_000, 51_000)),
                0,
                null,
                "2.00 1.00 1.00");
    }

    @Test
    void statementsCounted_showPerDeliveryAndTheTopStatements() {
        SqlCounters.Delta delivering = new SqlCounters.Delta(
                30,
                List.of(new SqlCounters.QueryCalls(
                        7, "DELETE FROM shardq.scheduled_message WHERE id = ANY($1)", 4, 12.0, 2_800_000, 300)),
                22,
                1000,
                10,
                1000,
                3);
        DelayReport report = new DelayReport(ENV, scenario(), result(0, delivering));

        assertThat(report.result().statementsPerDelivery()).isEqualTo(0.03);
        assertThat(report.text())
                .contains("SQL statements per delivered message        0.030 (pg_stat_statements")
                .contains("lateness p99                                45.0 ms")
                .contains("Statements run most while delivering")
                .contains("DELETE FROM shardq.scheduled_message WHERE id = ANY($1)")
                .contains("balance: all 1,000 messages delivered exactly once");
        @SuppressWarnings("unchecked")
        Map<String, Object> json = (Map<String, Object>) Json.parse(report.json());
        @SuppressWarnings("unchecked")
        Map<String, Object> summary = (Map<String, Object>) json.get("summary");
        assertThat(summary)
                .containsEntry("statements_per_delivery", 0.03)
                .containsEntry("statements_counted_by", "pg_stat_statements")
                .containsEntry("lateness_p99_ms", 45.0)
                .containsEntry("balanced", true);
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> top = (List<Map<String, Object>>) json.get("top_statements_delivering");
        assertThat(top).singleElement().satisfies(q -> assertThat(q)
                .containsEntry("calls", 4.0)
                .containsEntry("wal_bytes", 2_800_000.0)
                .containsEntry("mean_ms", 3.0));
        assertThat((List<?>) json.get("timeline")).hasSize(2);
        assertThat(report.csv().lines()).hasSize(3);
    }

    @Test
    void withoutPgStatStatements_andAnEarlyDelivery_theReportSaysSo() {
        DelayReport report = new DelayReport(
                ENV, scenario(), result(1, new SqlCounters.Delta(-1, List.of(), 22, 1000, 10, 1000, -1)));

        assertThat(report.result().balanced()).isFalse();
        assertThat(report.result().statementsPerDelivery()).isNaN();
        assertThat(report.text())
                .contains("not counted: pg_stat_statements is not loaded")
                .contains("1 NOT 0: delivered before their time")
                .contains("balance: NOT BALANCED")
                .doesNotContain("Statements run most while delivering");
        assertThat(DelayCommand.exitCode(report)).isEqualTo(1);
        @SuppressWarnings("unchecked")
        Map<String, Object> summary =
                (Map<String, Object>) ((Map<String, Object>) Json.parse(report.json())).get("summary");
        assertThat(summary).containsEntry("statements_per_delivery", null).containsEntry("early", 1.0);
    }
}
