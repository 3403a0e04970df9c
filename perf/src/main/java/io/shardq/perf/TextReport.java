package io.shardq.perf;

import io.shardq.tools.TextTable;
import java.util.List;
import java.util.Locale;

/**
 * The human report: the settings first (with the UNSAFE banner as the very first line when
 * durability is off), then the results with their ratios, then what the columns mean.
 */
final class TextReport {
    private TextReport() {}

    /** The banner (if any) and the settings, printed before the run starts and atop the report. */
    static String header(Environment env, Scenario scenario) {
        return header(env, "queue", scenario.facts());
    }

    /** The banner (if any), the title and the settings of any scenario: the environment's, then its own. */
    static String header(Environment env, String scenarioName, List<String[]> scenarioFacts) {
        StringBuilder sb = new StringBuilder();
        if (!env.unsafeBanner().isEmpty()) {
            sb.append(env.unsafeBanner()).append('\n');
        }
        sb.append("ShardQ benchmark: ").append(scenarioName).append('\n');
        for (String[] f : concat(env.facts(), scenarioFacts)) {
            sb.append(String.format(Locale.ROOT, "  %-19s %s%n", f[0], f[1]));
        }
        return sb.toString();
    }

    static String render(Environment env, Scenario scenario, Comparison run) {
        StringBuilder sb = new StringBuilder(header(env, scenario)).append('\n');
        boolean async = run.hasAsync();
        TextTable speed = TextTable.numeric(speedHeaders(async));
        TextTable cost = TextTable.numeric(
                "threads",
                "<system",
                "WAL B/msg",
                "reads/msg",
                "JVM cpu s",
                "PG cpu s",
                "table MB",
                "dead tuples",
                "errors");
        for (StepResult r : run.results()) {
            LatencyStats l = r.latency();
            List<String> cells = new java.util.ArrayList<>(List.of(
                    Integer.toString(r.threads()),
                    r.system(),
                    Numbers.rate(r.enqueueRate()),
                    Numbers.rate(r.dequeueRate()),
                    Numbers.ratio(run.enqueueVsCeiling(r)),
                    Numbers.ratio(run.dequeueVsNaive(r))));
            if (async) {
                cells.add(Numbers.ratio(run.enqueueVsSync(r)));
            }
            cells.addAll(List.of(
                    Numbers.count(r.backlog()),
                    Numbers.millis(l.millis(l.p50())),
                    Numbers.millis(l.millis(l.p90())),
                    Numbers.millis(l.millis(l.p99())),
                    Numbers.millis(l.millis(l.p999()))));
            speed.row(cells.toArray(String[]::new));
            cost.row(
                    Integer.toString(r.threads()),
                    r.system(),
                    Numbers.decimal(r.walBytesPerMessage(), 0),
                    Numbers.decimal(r.sqlReadsPerMessage(), 3),
                    Numbers.decimal(r.jvmCpuSeconds(), 1),
                    pgSeconds(r),
                    Numbers.megabytes(r.tableBytes()),
                    Numbers.count(r.deadTuples()),
                    Numbers.count(r.errors()));
        }
        sb.append("Throughput and end-to-end latency, measured window\n")
                .append(speed.render())
                .append('\n')
                .append("Cost in the window, and the tables at the end\n")
                .append(cost.render())
                .append('\n')
                .append("Per message against the ceilings: deliveries end to end (a queue) or inserts (a ceiling)\n")
                .append(perMessage(run).render());
        TextTable inner =
                TextTable.numeric("threads", "<system", "<step", "count", "p50 ms", "p90 ms", "p99 ms", "max ms");
        boolean anyInner = false;
        for (StepResult r : run.results()) {
            for (InnerStep s : r.inner()) {
                anyInner = true;
                inner.row(
                        Integer.toString(r.threads()),
                        r.system(),
                        s.name(),
                        Numbers.count(s.count()),
                        Numbers.millis(s.p50() / 1000.0),
                        Numbers.millis(s.p90() / 1000.0),
                        Numbers.millis(s.p99() / 1000.0),
                        Numbers.millis(s.max() / 1000.0));
            }
        }
        if (anyInner) {
            sb.append('\n')
                    .append("Inside the system: where the time goes, measured window (as the system times itself)\n")
                    .append(inner.render());
        }
        for (StepResult r : run.results()) {
            if (r.firstError() != null) {
                sb.append(String.format(
                        Locale.ROOT,
                        "%n%s x%d: %,d failed calls; first: %s",
                        r.system(),
                        r.threads(),
                        r.errors(),
                        r.firstError()));
            }
        }
        sb.append('\n').append(NOTES);
        if (async) {
            sb.append(ASYNC_NOTES);
        }
        return sb.toString();
    }

    /**
     * Issue 25's table: each system's messages per second against both ceilings, and what a
     * message costs in commits and CPU.
     */
    static TextTable perMessage(Comparison run) {
        TextTable t = TextTable.numeric(
                "threads",
                "<system",
                "msg/s",
                "/ceiling2",
                "/ceiling",
                "commits/msg",
                "JVM us/msg",
                "PG us/msg",
                "p50 ms",
                "p99 ms");
        for (StepResult r : run.results()) {
            LatencyStats l = r.latency();
            t.row(
                    Integer.toString(r.threads()),
                    r.system(),
                    Numbers.rate(r.messageRate()),
                    Numbers.ratio(run.messagesVsCeiling2(r)),
                    Numbers.ratio(run.messagesVsCeiling(r)),
                    Numbers.decimal(r.commitsPerMessage(), 3),
                    Numbers.decimal(r.jvmCpuMicrosPerMessage(), 1),
                    pgMicros(r),
                    Numbers.millis(l.millis(l.p50())),
                    Numbers.millis(l.millis(l.p99())));
        }
        return t;
    }

    /**
     * The PostgreSQL CPU per message; "n/a" for a step that ran while the server's processes could
     * not be read (a server on another machine), "-" for one that did not run.
     */
    static String pgMicros(StepResult r) {
        return serverNotLocal(r) ? Numbers.NOT_LOCAL : Numbers.decimal(r.pgCpuMicrosPerMessage(), 1);
    }

    /** The PostgreSQL CPU seconds of a step, "n/a" as {@link #pgMicros}. */
    static String pgSeconds(StepResult r) {
        return serverNotLocal(r) ? Numbers.NOT_LOCAL : Numbers.decimal(r.pgCpuSeconds(), 1);
    }

    /** The step ran, and the server's processes could not be read. */
    private static boolean serverNotLocal(StepResult r) {
        return Double.isNaN(r.pgCpuSeconds()) && r.seconds() > 0;
    }

    /** The speed table's headers; async/sync only when the run measured the asynchronous ShardQ. */
    private static String[] speedHeaders(boolean async) {
        List<String> h = new java.util.ArrayList<>(
                List.of("threads", "<system", "enqueue/s", "dequeue/s", "enq/ceiling", "deq/naive"));
        if (async) {
            h.add("async/sync");
        }
        h.addAll(List.of("backlog", "p50 ms", "p90 ms", "p99 ms", "p99.9 ms"));
        return h.toArray(String[]::new);
    }

    private static final String ASYNC_NOTES =
            """
            async/sync   shardq-async's enqueue rate / shardq's (synchronous) at the same threads, same run
            shardq-async enqueue/s counts sends accepted; at most the in-flight bound per producer had not
                         completed at either end of the window. Its latency starts before the batch's sends too
            """;

    private static final String NOTES =
            """

            enq/ceiling  enqueue rate / the ceiling's (plain multi-row INSERT) at the same threads
            deq/naive    dequeue rate / the naive SKIP LOCKED queue's at the same threads
            latency      payload stamped before sendBatch -> receiveBatch returned after its commit
            WAL B/msg    WAL of the whole server in the window / messages enqueued (dequeues included)
            reads/msg    statements reading queue rows / messages dequeued, empty polls included
            cpu s        CPU seconds in the window: the JVM (harness included), the PostgreSQL processes
                         (this database's backends of the harness's and ShardQ's pools, and the server's
                         background processes; n/a when the server is not on this machine)
            msg/s        deliveries per second end to end for a queue, inserts per second for a ceiling
            /ceiling2    msg/s / ceiling2's inserts/s at the same threads (each producer on its own
                         connection: multi-row INSERT, then COMMIT, per batch: two round trips)
            /ceiling     msg/s / ceiling's inserts/s at the same threads (one autocommit INSERT per batch)
            commits/msg  transactions committed in the database in the window (pg_stat_database
                         xact_commit, every client's, read-only ones included) / msg
            us/msg       CPU microseconds in the window / msg: this JVM's, the PostgreSQL processes'
            backlog      rows left after the workers stopped (ceiling: every row it inserted)
            send commit       ShardQ: a producer session's commit until its messages are visible
            visible to taken  ShardQ: visible in the instance until a consumer session takes it
            consumer commit   ShardQ: a consumer session's commit (cursor move or dequeue log)
            """;

    private static List<String[]> concat(List<String[]> a, List<String[]> b) {
        return java.util.stream.Stream.concat(a.stream(), b.stream()).toList();
    }
}
