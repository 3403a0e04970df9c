package io.shardq.perf;

import io.shardq.tools.TextTable;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * The report of {@code perf topic}: text (settings first, then throughput, cost, issue 10's
 * targets and the backlog of each subscription), and results.json / results.csv / results.html
 * with one row per system and publisher count (the JSON also lists each subscription's backlog).
 */
record TopicReport(Environment environment, TopicScenario scenario, TopicComparison run) implements BenchmarkReport {

    List<ResultColumn<TopicStep>> columns() {
        return List.of(
                col("publishers", TopicStep::publishers),
                col("system", TopicStep::system),
                col("seconds", s -> s.result().seconds()),
                col("published", s -> s.result().enqueued()),
                col("delivered", s -> s.result().consumes() ? s.result().dequeued() : null),
                col("publish_per_s", s -> s.result().enqueueRate()),
                col("delivery_per_s", s -> TopicComparison.deliveryRate(s.result())),
                col("deliveries_vs_queue", run::deliveriesVsQueue),
                col("publish_vs_ceiling", run::publishesVsCeiling),
                col("wal_bytes_per_delivery", s -> TopicComparison.walPerDelivery(s.result())),
                col("wal_bytes_per_publish", s -> s.result().walBytesPerMessage()),
                col("wal_vs_queue", run::walVsQueue),
                col("backlog_start", s -> orNull(s.backlogSum(false))),
                col("backlog_end", s -> orNull(s.backlogSum(true))),
                col("subscriptions_kept_up", s -> s.backlogs().isEmpty() ? null : s.keptUp()),
                col(
                        "subscriptions",
                        s -> s.backlogs().isEmpty() ? null : s.backlogs().size()),
                col("p50_ms", s -> ms(s.result().latency(), s.result().latency().p50())),
                col("p99_ms", s -> ms(s.result().latency(), s.result().latency().p99())),
                col(
                        "publish_commit_p50_ms",
                        s -> ms(s.publishCommits(), s.publishCommits().p50())),
                col(
                        "publish_commit_p99_ms",
                        s -> ms(s.publishCommits(), s.publishCommits().p99())),
                col("publish_cost_vs_queue", run::publishCostVsQueue),
                col("stored_bytes_per_row", s -> s.storedRows().bytesPerRow()),
                col("bitmap_bytes", s -> s.storedRows().bitmapBytes()),
                col("sql_reads_per_delivery", s -> s.result().sqlReadsPerMessage()),
                col("dead_tuples", s -> orNull(s.result().deadTuples())),
                col("jvm_cpu_s", s -> s.result().jvmCpuSeconds()),
                col("pg_cpu_s", s -> s.result().pgCpuSeconds()),
                col("total_published", s -> orNull(s.totalPublished())),
                col("total_delivered", s -> orNull(s.totalDelivered())),
                col("errors", s -> s.result().errors()),
                col("first_error", s -> s.result().firstError()),
                col("load_average_at_end", TopicStep::loadAtEnd),
                col("payload_bytes", s -> scenario.base().payloadBytes()),
                col("batch", s -> scenario.base().batchSize()),
                col("shards", s -> scenario.base().shards()),
                col("rate_per_s", s -> scenario.rate()),
                col("durable", s -> environment.durable()));
    }

    @Override
    public String text() {
        StringBuilder sb = new StringBuilder(TextReport.header(environment, "topic", scenario.facts())).append('\n');
        TextTable speed = TextTable.numeric(
                "publishers",
                "<system",
                "publishes/s",
                "deliveries/s",
                "vs queue",
                "vs ceiling",
                "backlog start",
                "backlog end",
                "kept up",
                "p50 ms",
                "p99 ms",
                "<load at end");
        TextTable cost = TextTable.numeric(
                "publishers",
                "<system",
                "WAL B/delivery",
                "vs queue",
                "WAL B/publish",
                "publish commit p50 ms",
                "p99 ms",
                "B/row",
                "bitmap B",
                "reads/delivery",
                "JVM cpu s",
                "PG cpu s",
                "dead tuples",
                "errors");
        for (TopicStep s : run.steps()) {
            StepResult r = s.result();
            LatencyStats l = r.latency();
            LatencyStats p = s.publishCommits();
            speed.row(
                    Integer.toString(s.publishers()),
                    s.system(),
                    Numbers.rate(r.enqueueRate()),
                    Numbers.rate(TopicComparison.deliveryRate(r)),
                    Numbers.ratio(run.deliveriesVsQueue(s)),
                    Numbers.ratio(run.publishesVsCeiling(s)),
                    Numbers.count(s.backlogSum(false)),
                    Numbers.count(s.backlogSum(true)),
                    s.backlogs().isEmpty()
                            ? Numbers.NONE
                            : s.keptUp() + "/" + s.backlogs().size(),
                    Numbers.millis(l.millis(l.p50())),
                    Numbers.millis(l.millis(l.p99())),
                    s.loadAtEnd());
            cost.row(
                    Integer.toString(s.publishers()),
                    s.system(),
                    Numbers.decimal(r.consumes() ? TopicComparison.walPerDelivery(r) : r.walBytesPerMessage(), 0),
                    Numbers.ratio(run.walVsQueue(s)),
                    Numbers.decimal(r.walBytesPerMessage(), 0),
                    Numbers.millis(p.millis(p.p50())),
                    Numbers.millis(p.millis(p.p99())),
                    Numbers.decimal(s.storedRows().bytesPerRow(), 0),
                    Numbers.decimal(s.storedRows().bitmapBytes(), 0),
                    Numbers.decimal(r.sqlReadsPerMessage(), 3),
                    Numbers.decimal(r.jvmCpuSeconds(), 1),
                    Numbers.decimal(r.pgCpuSeconds(), 1),
                    Numbers.count(r.deadTuples()),
                    Numbers.count(r.errors()));
        }
        sb.append("Throughput and end-to-end latency, measured window\n")
                .append(speed.render())
                .append('\n')
                .append("Cost in the window\n")
                .append(cost.render())
                .append('\n')
                .append("Issue 10's targets (ratios from this run)\n");
        run.verdicts(scenario.rate() > 0).forEach(v -> sb.append("  ").append(v).append('\n'));
        for (TopicStep s : run.steps()) {
            if (s.totalPublished() >= 0) {
                long owed = s.totalPublished() * s.backlogs().size();
                sb.append(String.format(
                        Locale.ROOT,
                        "  x%d: whole step: %,d published x %d subscriptions = %,d; delivered %,d%s%n",
                        s.publishers(),
                        s.totalPublished(),
                        s.backlogs().size(),
                        owed,
                        s.totalDelivered(),
                        owed == s.totalDelivered()
                                ? ""
                                : String.format(
                                        Locale.ROOT,
                                        "  (NOT EQUAL: %,d not delivered when the consumers stopped; the"
                                                + " subscriptions' lag then: %s)",
                                        owed - s.totalDelivered(),
                                        Numbers.count(s.result().backlog()))));
            }
        }
        backlogs(sb);
        for (TopicStep s : run.steps()) {
            if (s.result().firstError() != null) {
                sb.append(String.format(
                        Locale.ROOT,
                        "%n%s x%d: %,d failed calls; first: %s",
                        s.system(),
                        s.publishers(),
                        s.result().errors(),
                        s.result().firstError()));
            }
        }
        sb.append('\n').append(NOTES);
        return sb.toString();
    }

    /** Each subscription's backlog for a few subscriptions; a summary for many. */
    private void backlogs(StringBuilder sb) {
        for (TopicStep s : run.steps()) {
            if (!s.system().equals(TopicScenario.TOPIC) || s.backlogs().isEmpty()) {
                continue;
            }
            sb.append(String.format(
                    Locale.ROOT,
                    "%nBacklog per subscription, topic x%d (start -> end of the window)%n",
                    s.publishers()));
            if (s.backlogs().size() <= 20) {
                for (SubscriptionBacklog b : s.backlogs()) {
                    sb.append(String.format(
                            Locale.ROOT,
                            "  %-8s %,10d -> %,10d  %s%n",
                            b.name(),
                            b.atStart(),
                            b.atEnd(),
                            b.keptUp(s.result().enqueueRate(), s.slack()) ? "kept up" : "FELL BEHIND"));
                }
            } else {
                long maxEnd = s.backlogs().stream()
                        .mapToLong(SubscriptionBacklog::atEnd)
                        .max()
                        .orElse(-1);
                long maxGrowth = s.backlogs().stream()
                        .mapToLong(b -> b.atEnd() - b.atStart())
                        .max()
                        .orElse(0);
                sb.append(String.format(
                        Locale.ROOT,
                        "  %d subscriptions: kept up %d; largest backlog at the end %,d; largest growth %,d%n",
                        s.backlogs().size(),
                        s.keptUp(),
                        maxEnd,
                        maxGrowth));
            }
        }
    }

    private static final String NOTES =
            """

            publishes/s    messages committed by the producers (ceiling: rows INSERTed)
            deliveries/s   messages committed by consumers: the queue's dequeues, the topic's over all subscriptions
            vs queue       deliveries/s / the queue's msg/s at the same publishers (issue 10: >= 8x); WAL: ratio of WAL per delivery (<= 0.2x)
            vs ceiling     publishes/s / the INSERT ceiling's rows/s at the same publishers
            backlog        messages not consumed yet when the window started and ended (topic: sum of every subscription's lag)
            kept up        subscriptions whose backlog grew by no more than one second of publishing (or one commit
                           per publisher) over the window
            latency        payload stamped before the batch is sent -> the consumer's commit returned
            WAL B/delivery WAL of the whole server in the window / messages delivered (ceiling: per row); when
                           subscriptions fall behind, fewer deliveries share the WAL: see WAL B/publish
            WAL B/publish  the same WAL / messages published (a topic's, divided by its subscriptions, is what
                           a delivery costs once they keep up)
            publish commit a producer's batch as the application sees it: its sends and commit()
            B/row, bitmap  average pg_column_size of the destination's rows and of their subscriber bitmap, at the window's end
            """;

    @Override
    public String html() {
        return TopicHtmlReport.render(this);
    }

    @Override
    public String csv() {
        return CsvReport.render(columns(), run.steps());
    }

    @Override
    public String json() {
        com.fasterxml.jackson.databind.node.ObjectNode root = JsonReport.root();
        com.fasterxml.jackson.databind.node.ObjectNode s = JsonReport.scenario(root, environment, "topic");
        JsonReport.put(s, "publishers", scenario.publishers());
        JsonReport.put(s, "subscriptions", scenario.subscriptions());
        JsonReport.put(s, "consumer_threads", scenario.consumerThreads());
        JsonReport.put(s, "rate_per_s", scenario.rate());
        JsonReport.put(s, "payload_bytes", scenario.base().payloadBytes());
        JsonReport.put(s, "batch", scenario.base().batchSize());
        JsonReport.put(s, "shards", scenario.base().shards());
        JsonReport.put(s, "persistent", scenario.base().persistent());
        JsonReport.put(s, "warmup_s", scenario.warmup().toMillis() / 1000.0);
        JsonReport.put(s, "duration_s", scenario.duration().toMillis() / 1000.0);
        JsonReport.put(s, "load_average_at_start", scenario.loadAtStart());
        com.fasterxml.jackson.databind.node.ArrayNode results = root.putArray("results");
        List<ResultColumn<TopicStep>> cols = columns();
        for (TopicStep step : run.steps()) {
            com.fasterxml.jackson.databind.node.ObjectNode o = results.addObject();
            for (ResultColumn<TopicStep> c : cols) {
                JsonReport.put(o, c.name(), c.value().apply(step));
            }
            com.fasterxml.jackson.databind.node.ArrayNode backlogs = o.putArray("backlogs");
            for (SubscriptionBacklog x : step.backlogs()) {
                com.fasterxml.jackson.databind.node.ObjectNode b =
                        backlogs.addObject().put("name", x.name());
                JsonReport.put(b, "start", orNull(x.atStart()));
                JsonReport.put(b, "end", orNull(x.atEnd()));
                b.put("kept_up", x.keptUp(step.result().enqueueRate(), step.slack()));
            }
        }
        JsonReport.put(root, "targets", run.verdicts(scenario.rate() > 0));
        return JsonReport.write(root);
    }

    private static ResultColumn<TopicStep> col(String name, Function<TopicStep, Object> value) {
        return new ResultColumn<>(name, value);
    }

    private static Object ms(LatencyStats l, long micros) {
        return l.millis(micros);
    }

    private static Object orNull(long v) {
        return v < 0 ? null : v;
    }
}
