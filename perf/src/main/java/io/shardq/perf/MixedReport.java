package io.shardq.perf;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Everything a {@code mixed} run produced, and the columns results.csv and results.json share:
 * one row per stage and template, plus an {@code all} row per stage, the settings repeated on
 * each row so a CSV line stands on its own. The text is {@link MixedTextReport}, the page {@link
 * MixedHtmlReport}; CSV cells and JSON values are written as the {@code queue} reports write them.
 *
 * @param check null when the run stopped before it could be made
 */
record MixedReport(Environment environment, MixedScenario scenario, List<StageResult> stages, ApplicationCheck check) {

    record Column(String name, Function<Row, Object> value) {}

    record Row(MixedReport report, StageResult stage, StageResult.TemplateResult result) {}

    static final List<Column> COLUMNS = List.of(
            col("users", r -> r.stage().users()),
            col("template", r -> r.result().template()),
            col("weight", r -> r.result().weight()),
            col("seconds", r -> r.result().seconds()),
            col("transactions", r -> r.result().counts().committed()),
            col("failed", r -> r.result().counts().failed()),
            col("tx_per_s", r -> r.result().transactionRate()),
            col("share", r -> r.result().share()),
            col("sent", r -> r.result().counts().sent()),
            col("received", r -> r.result().counts().received()),
            col("browsed", r -> r.result().counts().browsed()),
            col("messages_per_s", r -> r.result().messageRate()),
            col("browsed_per_s", r -> r.result().browseRate()),
            col("latency_count", r -> r.result().latency().count()),
            col("p50_ms", r -> ms(r, r.result().latency().p50())),
            col("p90_ms", r -> ms(r, r.result().latency().p90())),
            col("p99_ms", r -> ms(r, r.result().latency().p99())),
            col("p999_ms", r -> ms(r, r.result().latency().p999())),
            col("max_ms", r -> ms(r, r.result().latency().max())),
            col("first_error", r -> r.result().firstError()),
            col("stage_backlog", r -> r.stage().backlog()),
            col("stage_wal_bytes_per_tx", r -> r.stage().walBytesPerTransaction()),
            col("payload_bytes", r -> r.report().scenario().workload().payloadBytes()),
            col("shards", r -> r.report().scenario().workload().shards()),
            col("accounts", r -> r.report().scenario().workload().accounts()),
            col("durable", r -> r.report().environment().durable()));

    List<Row> rows() {
        List<Row> rows = new ArrayList<>();
        for (StageResult s : stages) {
            for (StageResult.TemplateResult t : s.rows()) {
                rows.add(new Row(this, s, t));
            }
        }
        return rows;
    }

    /** Writes results.json, results.csv and results.html into the directory, creating it. */
    List<Path> writeTo(Path dir) throws IOException {
        return ReportFiles.write(dir, json(), csv(), MixedHtmlReport.render(this));
    }

    String csv() {
        StringBuilder sb = new StringBuilder();
        CsvReport.line(sb, COLUMNS.stream().map(Column::name).toArray());
        for (Row row : rows()) {
            CsvReport.line(sb, COLUMNS.stream().map(c -> c.value().apply(row)).toArray());
        }
        return sb.toString();
    }

    /**
     * {@code {"unsafe", "banner", "environment": {...}, "scenario": {..., "templates": [...]},
     * "results": [rows], "check": {...}}}; unknown figures are null.
     */
    String json() {
        Environment env = environment;
        Workload w = scenario.workload();
        StringBuilder sb = JsonReport.opening(env, "mixed");
        JsonReport.field(sb, 2, "workload", w.source(), true);
        sb.append("    \"templates\": [");
        for (int i = 0; i < w.templates().size(); i++) {
            Workload.Template t = w.templates().get(i);
            sb.append(i > 0 ? ", " : "")
                    .append("{\"name\": ")
                    .append(JsonReport.value(t.name()))
                    .append(", \"weight\": ")
                    .append(t.weight())
                    .append(", \"steps\": ")
                    .append(JsonReport.value(t.describe()))
                    .append('}');
        }
        sb.append("],\n    \"stages\": ").append(scenario.stages()).append(",\n");
        JsonReport.field(sb, 2, "accounts", w.accounts(), true);
        JsonReport.field(sb, 2, "payload_bytes", w.payloadBytes(), true);
        JsonReport.field(sb, 2, "shards", w.shards(), true);
        JsonReport.field(sb, 2, "prefill", w.prefill(), true);
        JsonReport.field(sb, 2, "receive_wait_ms", w.receiveWaitMillis(), true);
        JsonReport.field(sb, 2, "persistent", true, true);
        JsonReport.field(sb, 2, "unsafe_option", scenario.unsafe(), true);
        JsonReport.field(sb, 2, "warmup_s", scenario.warmup().toMillis() / 1000.0, true);
        JsonReport.field(sb, 2, "duration_s", scenario.duration().toMillis() / 1000.0, false);
        sb.append("  },\n  \"results\": [");
        List<Row> rows = rows();
        for (int r = 0; r < rows.size(); r++) {
            sb.append(r > 0 ? ",\n    {" : "\n    {");
            for (int c = 0; c < COLUMNS.size(); c++) {
                Column col = COLUMNS.get(c);
                sb.append(c > 0 ? ", " : "")
                        .append(JsonReport.value(col.name()))
                        .append(": ")
                        .append(JsonReport.value(col.value().apply(rows.get(r))));
            }
            sb.append('}');
        }
        sb.append(rows.isEmpty() ? "],\n" : "\n  ],\n");
        if (check == null) {
            sb.append("  \"check\": null\n}\n");
            return sb.toString();
        }
        sb.append("  \"check\": {\n");
        JsonReport.field(sb, 2, "consistent", check.consistent(), true);
        JsonReport.field(sb, 2, "account_updates", check.accountUpdates(), true);
        JsonReport.field(sb, 2, "expected_account_updates", check.expectedAccountUpdates(), true);
        JsonReport.field(sb, 2, "audit_rows", check.auditRows(), true);
        JsonReport.field(sb, 2, "expected_audit_rows", check.expectedAuditRows(), true);
        JsonReport.field(sb, 2, "backlog", check.backlog(), true);
        JsonReport.field(sb, 2, "expected_backlog", check.expectedBacklog(), false);
        return sb.append("  }\n}\n").toString();
    }

    private static Column col(String name, Function<Row, Object> value) {
        return new Column(name, value);
    }

    private static Object ms(Row r, long micros) {
        return r.result().latency().millis(micros);
    }
}
