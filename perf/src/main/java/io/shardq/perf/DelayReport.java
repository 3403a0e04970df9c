package io.shardq.perf;

import io.shardq.tools.Charts;
import io.shardq.tools.TextTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The report of {@code perf delay}: the settings, the figures (lateness, early deliveries,
 * throughput, SQL per message, the balance), the statements run most while delivering, then what
 * the figures mean; results.json (all of it), results.csv (lateness per second of delivery time)
 * and results.html (that timeline drawn by the tools' charts (uPlot), the figures and the settings).
 */
record DelayReport(Environment environment, DelayScenario scenario, DelayResult result) implements BenchmarkReport {

    /** One figure: its name in JSON, its label in the text and HTML, its value and how it reads. */
    private record Figure(String key, String label, Object value, String shown) {}

    private List<Figure> figures() {
        DelayResult r = result;
        LatencyStats l = r.lateness();
        List<Figure> f = new ArrayList<>();
        f.add(new Figure("scheduled", "scheduled", r.scheduled(), Numbers.count(r.scheduled())));
        f.add(new Figure(
                "schedule_per_s",
                "scheduling rate",
                r.scheduleRate(),
                Numbers.rate(r.scheduleRate()) + " messages/s over " + Numbers.decimal(r.scheduleSeconds(), 1) + " s"));
        f.add(new Figure(
                "late_sends",
                "sent after their time",
                r.lateSends(),
                Numbers.count(r.lateSends()) + (r.lateSends() > 0 ? " (scheduling outran --lead)" : "")));
        f.add(new Figure("delivered", "delivered", r.delivered(), Numbers.count(r.delivered())));
        f.add(new Figure(
                "delivered_per_s",
                "delivery rate",
                r.deliveryRate(),
                Numbers.rate(r.deliveryRate()) + " messages/s from the first delivery time to the last delivery ("
                        + Numbers.decimal(r.deliverySeconds(), 1) + " s)"));
        f.add(new Figure("lateness_p50_ms", "lateness p50", ms(l, l.p50()), Numbers.millis(ms(l, l.p50())) + " ms"));
        f.add(new Figure("lateness_p99_ms", "lateness p99", ms(l, l.p99()), Numbers.millis(ms(l, l.p99())) + " ms"));
        f.add(new Figure(
                "lateness_p999_ms", "lateness p99.9", ms(l, l.p999()), Numbers.millis(ms(l, l.p999())) + " ms"));
        f.add(new Figure("lateness_max_ms", "lateness max", ms(l, l.max()), Numbers.millis(ms(l, l.max())) + " ms"));
        f.add(new Figure(
                "early",
                "early",
                r.early(),
                Numbers.count(r.early()) + (r.early() == 0 ? " (must be 0)" : " NOT 0: delivered before their time")));
        f.add(new Figure(
                "min_lateness_ms",
                "smallest lateness",
                r.minLatenessMicros() / 1000.0,
                Numbers.millis(r.minLatenessMicros() / 1000.0) + " ms"));
        f.add(new Figure(
                "statements_per_delivery",
                "SQL statements per delivered message",
                r.statementsPerDelivery(),
                r.delivering().statementsCounted()
                        ? Numbers.decimal(r.statementsPerDelivery(), 3) + " (pg_stat_statements, delivery phase: "
                                + Numbers.count(r.delivering().statements()) + " statements)"
                        : "not counted: pg_stat_statements is not loaded (see docs/performance.md)"));
        f.add(new Figure(
                "statements_per_schedule",
                "SQL statements per scheduled message",
                r.statementsPerSchedule(),
                r.scheduling().statementsCounted()
                        ? Numbers.decimal(r.statementsPerSchedule(), 3) + " (pg_stat_statements, scheduling phase)"
                        : "not counted"));
        f.add(new Figure(
                "transactions_per_delivery",
                "transactions per delivered message",
                r.transactionsPerDelivery(),
                Numbers.decimal(r.transactionsPerDelivery(), 3) + " (pg_stat_database, delivery phase)"));
        f.add(new Figure(
                "transactions_per_schedule",
                "transactions per scheduled message",
                r.transactionsPerSchedule(),
                Numbers.decimal(r.transactionsPerSchedule(), 3) + " (pg_stat_database, scheduling phase)"));
        f.add(new Figure(
                "rows_written_per_delivery",
                "rows inserted/updated/deleted per delivery",
                Rates.perMessage(
                        r.delivering().inserted()
                                + r.delivering().updated()
                                + r.delivering().deleted(),
                        r.delivered()),
                Numbers.decimal(Rates.perMessage(r.delivering().inserted(), r.delivered()), 2) + " / "
                        + Numbers.decimal(Rates.perMessage(r.delivering().updated(), r.delivered()), 2) + " / "
                        + Numbers.decimal(Rates.perMessage(r.delivering().deleted(), r.delivered()), 2)
                        + " (pg_stat_database, delivery phase)"));
        f.add(new Figure(
                "sql_reads_per_delivery",
                "consumer reads per delivery",
                r.sqlReadsPerMessage(),
                Numbers.decimal(r.sqlReadsPerMessage(), 3) + " (the engine's count of statements reading queue rows)"));
        f.add(new Figure(
                "wal_bytes_per_message",
                "WAL per message",
                r.walBytesPerMessage(),
                Numbers.decimal(r.walBytesPerMessage(), 0) + " bytes (whole server, first send to last delivery)"));
        f.add(new Figure(
                "checkpoints",
                "checkpoints (scheduling, delivering)",
                r.scheduling().checkpoints() < 0
                        ? null
                        : r.scheduling().checkpoints() + r.delivering().checkpoints(),
                r.scheduling().checkpoints() < 0
                        ? Numbers.NONE
                        : r.scheduling().checkpoints() + ", " + r.delivering().checkpoints()
                                + " (pg_stat_checkpointer; the run starts with one of its own)"));
        f.add(new Figure(
                "left_scheduled", "left in the scheduled area", r.leftScheduled(), Numbers.count(r.leftScheduled())));
        f.add(new Figure("duplicates", "duplicates", r.duplicates(), Numbers.count(r.duplicates())));
        f.add(new Figure("missing", "missing", r.missing(), Numbers.count(r.missing())));
        f.add(new Figure("errors", "failed calls", r.errors(), Numbers.count(r.errors())));
        f.add(new Figure("load_average_at_end", "load at end", r.loadAtEnd(), r.loadAtEnd()));
        return f;
    }

    private static double ms(LatencyStats l, long micros) {
        return l.millis(micros);
    }

    /** One line: the balance, which must hold. */
    String balance() {
        DelayResult r = result;
        return r.balanced()
                ? String.format(
                        Locale.ROOT,
                        "balance: all %,d messages delivered exactly once, none early, none left scheduled",
                        r.scheduled())
                : String.format(
                        Locale.ROOT,
                        "balance: NOT BALANCED: %,d scheduled, %,d delivered, %,d duplicates, %,d missing, %,d early,"
                                + " %,d left scheduled, %,d failed calls",
                        r.scheduled(),
                        r.delivered(),
                        r.duplicates(),
                        r.missing(),
                        r.early(),
                        r.leftScheduled(),
                        r.errors());
    }

    @Override
    public String text() {
        StringBuilder sb = new StringBuilder(TextReport.header(environment, "delay", scenario.facts())).append('\n');
        TextTable t = TextTable.numeric("<figure", "<value");
        for (Figure f : figures()) {
            t.row(f.label(), f.shown());
        }
        sb.append("Delivery delay at scale\n").append(t.render()).append('\n');
        statements(sb, "delivering", result.delivering().top(), result.delivered());
        statements(sb, "scheduling", result.scheduling().top(), result.scheduled());
        sb.append(balance()).append('\n');
        if (result.firstError() != null) {
            sb.append(
                    String.format(Locale.ROOT, "%,d failed calls; first: %s%n", result.errors(), result.firstError()));
        }
        return sb.append(NOTES).toString();
    }

    /** The statements of one phase, most called first, per message of the phase. */
    private static void statements(StringBuilder sb, String phase, List<SqlCounters.QueryCalls> top, long messages) {
        if (top.isEmpty()) {
            return;
        }
        TextTable q = TextTable.numeric(
                "calls", "per message", "mean ms", "WAL B/message", "FPI", "<statement (pg_stat_statements)");
        for (SqlCounters.QueryCalls c : top) {
            q.row(
                    Numbers.count(c.calls()),
                    Numbers.decimal(Rates.perMessage(c.calls(), messages), 4),
                    Numbers.decimal(c.meanMillis(), 3),
                    Numbers.decimal(Rates.perMessage(c.walBytes(), messages), 0),
                    Numbers.count(c.walFpi()),
                    oneLine(c.query(), 90));
        }
        sb.append("Statements run most while ")
                .append(phase)
                .append('\n')
                .append(q.render())
                .append('\n');
    }

    private static final String NOTES =
            """

            lateness      receive() returned the message (consumer's wall clock) - its JMSDeliveryTime
            early         deliveries with a negative lateness (recorded as 0 in the percentiles)
            delivery phase  from the producers' last commit to the last delivery: the scheduled mover,
                          the consumers and the background services (heartbeats) of the instance
            statements    pg_stat_statements calls in the database (the harness's few probes included);
                          mean ms is its execution time, WAL B/message the WAL it wrote (FPI: full-page images)
            transactions  pg_stat_database xact_commit + xact_rollback (autocommit statements count one each)
            """;

    private static String oneLine(String s, int max) {
        String one = s == null ? "" : s.replaceAll("\\s+", " ").trim();
        return one.length() <= max ? one : one.substring(0, max - 3) + "...";
    }

    /** results.csv: lateness per second of delivery time (the run's figures are in results.json). */
    @Override
    public String csv() {
        return CsvReport.render(timelineColumns(), result.timeline());
    }

    private static List<ResultColumn<DelayResult.Second>> timelineColumns() {
        return List.of(
                new ResultColumn<>("due_second", DelayResult.Second::second),
                new ResultColumn<>("delivered", DelayResult.Second::delivered),
                new ResultColumn<>("lateness_p50_ms", s -> s.p50Micros() / 1000.0),
                new ResultColumn<>("lateness_p99_ms", s -> s.p99Micros() / 1000.0),
                new ResultColumn<>("lateness_max_ms", s -> s.maxMicros() / 1000.0));
    }

    @Override
    public String json() {
        DelayScenario sc = scenario;
        com.fasterxml.jackson.databind.node.ObjectNode root = JsonReport.root();
        com.fasterxml.jackson.databind.node.ObjectNode s = JsonReport.scenario(root, environment, "delay");
        JsonReport.put(s, "messages", sc.messages());
        JsonReport.put(s, "spread_ms", sc.spread().toMillis());
        JsonReport.put(s, "lead_ms", sc.lead().toMillis());
        JsonReport.put(s, "producers", sc.producers());
        JsonReport.put(s, "consumers", sc.consumers());
        JsonReport.put(s, "batch", sc.batch());
        JsonReport.put(s, "payload_bytes", sc.payloadBytes());
        JsonReport.put(s, "shards", sc.shards());
        JsonReport.put(s, "load_average_at_start", sc.loadAtStart());
        com.fasterxml.jackson.databind.node.ObjectNode summary = root.putObject("summary");
        for (Figure f : figures()) {
            JsonReport.put(summary, f.key(), f.value());
        }
        JsonReport.put(
                summary,
                "statements_counted_by",
                result.delivering().statementsCounted() ? "pg_stat_statements" : null);
        JsonReport.put(summary, "balanced", result.balanced());
        JsonReport.put(summary, "first_error", result.firstError());
        topJson(root, "top_statements_delivering", result.delivering().top());
        topJson(root, "top_statements_scheduling", result.scheduling().top());
        root.set("timeline", JsonReport.rows(result.timeline(), timelineColumns()));
        return JsonReport.write(root);
    }

    private static void topJson(
            com.fasterxml.jackson.databind.node.ObjectNode root, String name, List<SqlCounters.QueryCalls> top) {
        com.fasterxml.jackson.databind.node.ArrayNode a = root.putArray(name);
        for (SqlCounters.QueryCalls q : top) {
            com.fasterxml.jackson.databind.node.ObjectNode o = a.addObject();
            JsonReport.put(o, "calls", q.calls());
            JsonReport.put(o, "mean_ms", q.meanMillis());
            JsonReport.put(o, "wal_bytes", q.walBytes());
            JsonReport.put(o, "wal_fpi", q.walFpi());
            JsonReport.put(o, "query", oneLine(q.query(), 2000));
        }
    }

    @Override
    public String html() {
        StringBuilder sb = new StringBuilder(HtmlReport.head("ShardQ benchmark: delay"));
        if (!environment.unsafeBanner().isEmpty()) {
            sb.append("<div class=\"unsafe\">")
                    .append(Charts.escape(environment.unsafeBanner()))
                    .append("</div>\n");
        }
        sb.append("<h1>ShardQ benchmark: delay</h1>\n<p class=\"summary\">")
                .append(Charts.escape(String.format(
                        Locale.ROOT,
                        "%,d messages due over %d s, %d producers, %d consumers; %s",
                        scenario.messages(),
                        scenario.spread().toSeconds(),
                        scenario.producers(),
                        scenario.consumers(),
                        balance())))
                .append("</p>\n<div class=\"charts\">\n");
        List<DelayResult.Second> tl = result.timeline();
        List<String> categories =
                tl.stream().map(s -> Integer.toString(s.second())).toList();
        List<Charts.Series> lateness = List.of(
                new Charts.Series(
                        "p50",
                        "#1f6fd1",
                        tl.stream().mapToDouble(s -> s.p50Micros() / 1000.0).toArray()),
                new Charts.Series(
                        "p99",
                        "#d95f02",
                        tl.stream().mapToDouble(s -> s.p99Micros() / 1000.0).toArray()),
                new Charts.Series(
                        "max",
                        "#6b7280",
                        tl.stream().mapToDouble(s -> s.maxMicros() / 1000.0).toArray()));
        sb.append(Charts.render(
                "Lateness by second of delivery time",
                "second of the spread",
                "lateness, ms",
                categories,
                "s",
                lateness,
                v -> v == 0 ? "0" : Numbers.millis(v)));
        sb.append(Charts.render(
                "Deliveries by second of delivery time",
                "second of the spread",
                "messages",
                categories,
                "s",
                List.of(new Charts.Series(
                        "delivered",
                        "#2ca02c",
                        tl.stream().mapToDouble(s -> s.delivered()).toArray())),
                Charts::compact));
        sb.append("</div>\n<h2>Figures</h2>\n<table>\n");
        for (Figure f : figures()) {
            sb.append("<tr><th class=\"l\">")
                    .append(Charts.escape(f.label()))
                    .append("</th><td class=\"l\">")
                    .append(Charts.escape(f.shown()))
                    .append("</td></tr>\n");
        }
        sb.append("</table>\n");
        return sb.append(HtmlReport.end(environment.facts(), scenario.facts())).toString();
    }
}
