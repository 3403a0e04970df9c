package io.shardq.perf;

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
record MixedReport(Environment environment, MixedScenario scenario, List<StageResult> stages, ApplicationCheck check)
        implements BenchmarkReport {

    record Row(MixedReport report, StageResult stage, StageResult.TemplateResult result) {}

    static final List<ResultColumn<Row>> COLUMNS = List.of(
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

    @Override
    public String text() {
        return MixedTextReport.render(this);
    }

    @Override
    public String html() {
        return MixedHtmlReport.render(this);
    }

    @Override
    public String csv() {
        return CsvReport.render(COLUMNS, rows());
    }

    /**
     * {@code {"unsafe", "banner", "environment": {...}, "scenario": {..., "templates": [...]},
     * "results": [rows], "check": {...}}}; unknown figures are null.
     */
    @Override
    public String json() {
        Workload w = scenario.workload();
        com.fasterxml.jackson.databind.node.ObjectNode root = JsonReport.root();
        com.fasterxml.jackson.databind.node.ObjectNode s = JsonReport.scenario(root, environment, "mixed");
        JsonReport.put(s, "workload", w.source());
        com.fasterxml.jackson.databind.node.ArrayNode templates = s.putArray("templates");
        for (Workload.Template t : w.templates()) {
            com.fasterxml.jackson.databind.node.ObjectNode o = templates.addObject();
            JsonReport.put(o, "name", t.name());
            JsonReport.put(o, "weight", t.weight());
            JsonReport.put(o, "steps", t.describe());
        }
        JsonReport.put(s, "stages", scenario.stages());
        JsonReport.put(s, "accounts", w.accounts());
        JsonReport.put(s, "payload_bytes", w.payloadBytes());
        JsonReport.put(s, "shards", w.shards());
        JsonReport.put(s, "prefill", w.prefill());
        JsonReport.put(s, "receive_wait_ms", w.receiveWaitMillis());
        JsonReport.put(s, "persistent", true);
        JsonReport.put(s, "unsafe_option", scenario.unsafe());
        JsonReport.put(s, "warmup_s", scenario.warmup().toMillis() / 1000.0);
        JsonReport.put(s, "duration_s", scenario.duration().toMillis() / 1000.0);
        root.set("results", JsonReport.rows(rows(), COLUMNS));
        if (check == null) {
            JsonReport.put(root, "check", null);
            return JsonReport.write(root);
        }
        com.fasterxml.jackson.databind.node.ObjectNode c = root.putObject("check");
        JsonReport.put(c, "consistent", check.consistent());
        JsonReport.put(c, "account_updates", check.accountUpdates());
        JsonReport.put(c, "expected_account_updates", check.expectedAccountUpdates());
        JsonReport.put(c, "audit_rows", check.auditRows());
        JsonReport.put(c, "expected_audit_rows", check.expectedAuditRows());
        JsonReport.put(c, "backlog", check.backlog());
        JsonReport.put(c, "expected_backlog", check.expectedBacklog());
        return JsonReport.write(root);
    }

    private static ResultColumn<Row> col(String name, Function<Row, Object> value) {
        return new ResultColumn<>(name, value);
    }

    private static Object ms(Row r, long micros) {
        return r.result().latency().millis(micros);
    }
}
