package io.shardq.perf;

import java.util.List;
import java.util.function.Function;

/**
 * Everything a run produced, and the columns every machine-readable form shares: one row per
 * system and threads value, settings repeated on each row so a CSV line stands on its own.
 */
record RunReport(Environment environment, Scenario scenario, Comparison run) implements BenchmarkReport {

    /** One result with the context its columns need. */
    record Row(RunReport report, StepResult result) {}

    static final List<ResultColumn<Row>> COLUMNS = List.of(
            col("threads", r -> r.result().threads()),
            col("system", r -> r.result().system()),
            col("seconds", r -> r.result().seconds()),
            col("enqueued", r -> r.result().enqueued()),
            col("dequeued", r -> r.result().consumes() ? r.result().dequeued() : null),
            col("enqueue_per_s", r -> r.result().enqueueRate()),
            col("dequeue_per_s", r -> r.result().dequeueRate()),
            col("enqueue_vs_ceiling", r -> r.report().run().enqueueVsCeiling(r.result())),
            col("dequeue_vs_naive", r -> r.report().run().dequeueVsNaive(r.result())),
            col("enqueue_vs_sync", r -> r.report().run().enqueueVsSync(r.result())),
            col("msg_per_s", r -> r.result().messageRate()),
            col("msg_vs_ceiling2", r -> r.report().run().messagesVsCeiling2(r.result())),
            col("msg_vs_ceiling", r -> r.report().run().messagesVsCeiling(r.result())),
            col("backlog", r -> orNull(r.result().backlog())),
            col("latency_count", r -> r.result().latency().count()),
            col("p50_ms", r -> latencyMs(r, LatencyStats::p50)),
            col("p90_ms", r -> latencyMs(r, LatencyStats::p90)),
            col("p99_ms", r -> latencyMs(r, LatencyStats::p99)),
            col("p999_ms", r -> latencyMs(r, LatencyStats::p999)),
            col("max_ms", r -> latencyMs(r, LatencyStats::max)),
            col("wal_bytes_per_msg", r -> r.result().walBytesPerMessage()),
            col("sql_reads_per_msg", r -> r.result().sqlReadsPerMessage()),
            col("table_bytes", r -> orNull(r.result().tableBytes())),
            col("dead_tuples", r -> orNull(r.result().deadTuples())),
            col("jvm_cpu_s", r -> r.result().jvmCpuSeconds()),
            col("pg_cpu_s", r -> r.result().pgCpuSeconds()),
            col("commits", r -> orNull(r.result().commits())),
            col("commits_per_msg", r -> r.result().commitsPerMessage()),
            col("jvm_cpu_us_per_msg", r -> r.result().jvmCpuMicrosPerMessage()),
            col("pg_cpu_us_per_msg", r -> r.result().pgCpuMicrosPerMessage()),
            col("errors", r -> r.result().errors()),
            col("first_error", r -> r.result().firstError()),
            col("payload_bytes", r -> r.report().scenario().base().payloadBytes()),
            col("batch", r -> r.report().scenario().base().batchSize()),
            col("shards", r -> r.report().scenario().base().shards()),
            col("persistent", r -> r.report().scenario().base().persistent()),
            col("durable", r -> r.report().environment().durable()));

    List<Row> rows() {
        return run.results().stream().map(r -> new Row(this, r)).toList();
    }

    @Override
    public String text() {
        return TextReport.render(environment, scenario, run);
    }

    @Override
    public String json() {
        return JsonReport.render(this);
    }

    @Override
    public String csv() {
        return CsvReport.render(this);
    }

    @Override
    public String html() {
        return HtmlReport.render(this);
    }

    private static ResultColumn<Row> col(String name, Function<Row, Object> value) {
        return new ResultColumn<>(name, value);
    }

    private static Object latencyMs(Row r, java.util.function.ToLongFunction<LatencyStats> which) {
        LatencyStats l = r.result().latency();
        return l.millis(which.applyAsLong(l));
    }

    private static Object orNull(long v) {
        return v < 0 ? null : v;
    }
}
