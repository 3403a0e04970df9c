package io.shardq.perf;

import io.shardq.tools.Charts;
import io.shardq.tools.TextTable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The report of {@code perf cache-putall}: the settings, each run of each system, the medians,
 * ShardQ's time over the upsert's (per run, and of the medians), issue 11's target and the balance
 * check; results.json, results.csv (one row per run and system) and results.html (time per run as
 * the tools' charts (uPlot)).
 */
record CachePutAllReport(Environment environment, CachePutAllScenario scenario, List<PutAllRun> runs)
        implements BenchmarkReport {

    List<ResultColumn<PutAllRun>> columns() {
        return List.of(
                new ResultColumn<>("run", PutAllRun::run),
                new ResultColumn<>("system", PutAllRun::system),
                new ResultColumn<>("entries", PutAllRun::entries),
                new ResultColumn<>("ms", PutAllRun::millis),
                new ResultColumn<>("entries_per_s", PutAllRun::entriesPerSecond),
                new ResultColumn<>("vs_upsert", r -> ratioInRun(r)),
                new ResultColumn<>("wal_bytes_per_entry", PutAllRun::walBytesPerEntry),
                new ResultColumn<>("stored", PutAllRun::stored),
                new ResultColumn<>("balanced", PutAllRun::balanced),
                new ResultColumn<>("errors", PutAllRun::errors),
                new ResultColumn<>("first_error", PutAllRun::firstError),
                new ResultColumn<>("load_average_at_end", PutAllRun::loadAtEnd),
                new ResultColumn<>("threads", r -> scenario.threads()),
                new ResultColumn<>("batch", r -> scenario.batch()),
                new ResultColumn<>("value_bytes", r -> scenario.valueBytes()),
                new ResultColumn<>("durable", r -> environment.durable()));
    }

    /** The median time of a system over the runs, NaN when it has none. */
    double medianMillis(String system) {
        double[] ms = runs.stream()
                .filter(r -> r.system().equals(system))
                .mapToDouble(PutAllRun::millis)
                .sorted()
                .toArray();
        if (ms.length == 0) {
            return Double.NaN;
        }
        return ms.length % 2 == 1 ? ms[ms.length / 2] : (ms[ms.length / 2 - 1] + ms[ms.length / 2]) / 2;
    }

    /** ShardQ's median time over the upsert's: above 1, ShardQ is slower. */
    double ratio() {
        return Rates.ratio(medianMillis(KvPutAllSystem.NAME), medianMillis(UpsertPutAllSystem.NAME));
    }

    /** Issue 25's target: the putAll shape inside transacted sessions at most this times its unbound time. */
    static final double SESSION_TARGET = 1.3;

    /** ShardQ's median time inside transacted sessions over its unbound median: NaN when either is missing. */
    double sessionRatio() {
        return Rates.ratio(medianMillis(KvSessionPutAllSystem.NAME), medianMillis(KvPutAllSystem.NAME));
    }

    /** A ShardQ run's time over the upsert's in the same run; NaN for the upsert's own rows. */
    double ratioInRun(PutAllRun r) {
        if (r.system().equals(UpsertPutAllSystem.NAME)) {
            return Double.NaN;
        }
        return runs.stream()
                .filter(o -> o.run() == r.run() && o.system().equals(UpsertPutAllSystem.NAME))
                .findFirst()
                .map(o -> Rates.ratio(r.millis(), o.millis()))
                .orElse(Double.NaN);
    }

    boolean balanced() {
        return runs.stream().allMatch(PutAllRun::balanced);
    }

    /** Issue 11's target and the ratio, one line each. */
    List<String> verdicts() {
        double ms = medianMillis(KvPutAllSystem.NAME);
        return List.of(
                String.format(
                        Locale.ROOT,
                        "ShardQ's time (median of %d): %s ms, target at most %,d ms: %s",
                        scenario.runs(),
                        Numbers.decimal(ms, 0),
                        CachePutAllScenario.TARGET_MS,
                        Double.isNaN(ms) ? "NOT MEASURED" : ms <= CachePutAllScenario.TARGET_MS ? "met" : "NOT MET"),
                String.format(
                        Locale.ROOT,
                        "ShardQ / plain multi-row upsert, same run (medians): %s (upsert median %s ms)",
                        Numbers.ratio(ratio()),
                        Numbers.decimal(medianMillis(UpsertPutAllSystem.NAME), 0)),
                sessionVerdict(),
                balanced()
                        ? "balance: every run stored exactly the entries requested, no failed batch"
                        : "balance: NOT BALANCED: a run stored other than the entries requested, or a batch failed");
    }

    private String sessionVerdict() {
        double r = sessionRatio();
        return String.format(
                Locale.ROOT,
                "ShardQ in transacted sessions / unbound (medians): %s (sessions median %s ms), issue 25's target"
                        + " at most %sx: %s",
                Numbers.ratio(r),
                Numbers.decimal(medianMillis(KvSessionPutAllSystem.NAME), 0),
                SESSION_TARGET,
                Double.isNaN(r) ? "NOT MEASURED" : r <= SESSION_TARGET ? "met" : "NOT MET");
    }

    @Override
    public String text() {
        StringBuilder sb =
                new StringBuilder(TextReport.header(environment, "cache-putall", scenario.facts())).append('\n');
        TextTable t = TextTable.numeric(
                "run", "<system", "ms", "entries/s", "vs upsert", "WAL B/entry", "stored", "errors", "<load at end");
        for (PutAllRun r : runs) {
            t.row(
                    Integer.toString(r.run()),
                    r.system(),
                    Numbers.decimal(r.millis(), 0),
                    Numbers.rate(r.entriesPerSecond()),
                    Numbers.ratio(ratioInRun(r)),
                    Numbers.decimal(r.walBytesPerEntry(), 0),
                    Numbers.count(r.stored()) + (r.stored() == r.entries() ? "" : " (NOT " + r.entries() + ")"),
                    Numbers.count(r.errors()),
                    r.loadAtEnd());
        }
        sb.append("Each run: every entry written into an empty store\n")
                .append(t.render())
                .append('\n');
        sb.append("Targets (issue 11, seed 003; issue 25)\n");
        verdicts().forEach(v -> sb.append("  ").append(v).append('\n'));
        for (PutAllRun r : runs) {
            if (r.firstError() != null) {
                sb.append(String.format(
                        Locale.ROOT,
                        "%nrun %d %s: %,d failed batches; first: %s",
                        r.run(),
                        r.system(),
                        r.errors(),
                        r.firstError()));
            }
        }
        sb.append('\n').append(NOTES);
        return sb.toString();
    }

    private static final String NOTES =
            """

            ms           from the threads' start signal to the last putAll returning (entries built beforehand)
            vs upsert    ShardQ's time / the upsert's in the same run (above 1: ShardQ slower)
            shardq       KvCache.putAll unbound: each call its own transaction, group-committed across threads
            shardq-tx    KvCache.putAll on a transacted session's view (cache.in(session)), then session.commit()
            WAL B/entry  WAL of the whole server during the write / entries
            stored       entries present after the run (ShardQ: shardq.cache_stats; upsert: count(*)); must equal entries
            upsert       insert ... select from unnest(keys, values) on conflict (k) do update, autocommit, one per batch
            """;

    @Override
    public String csv() {
        return CsvReport.render(columns(), runs);
    }

    @Override
    public String json() {
        com.fasterxml.jackson.databind.node.ObjectNode root = JsonReport.root();
        com.fasterxml.jackson.databind.node.ObjectNode s = JsonReport.scenario(root, environment, "cache-putall");
        JsonReport.put(s, "threads", scenario.threads());
        JsonReport.put(s, "entries", scenario.entries());
        JsonReport.put(s, "batch", scenario.batch());
        JsonReport.put(s, "value_bytes", scenario.valueBytes());
        JsonReport.put(s, "runs", scenario.runs());
        JsonReport.put(s, "warmup_runs", scenario.warmupRuns());
        JsonReport.put(s, "load_average_at_start", scenario.loadAtStart());
        root.set("results", JsonReport.rows(runs, columns()));
        com.fasterxml.jackson.databind.node.ObjectNode summary = root.putObject("summary");
        JsonReport.put(summary, "shardq_median_ms", medianMillis(KvPutAllSystem.NAME));
        JsonReport.put(summary, "upsert_median_ms", medianMillis(UpsertPutAllSystem.NAME));
        JsonReport.put(summary, "ratio_vs_upsert", ratio());
        JsonReport.put(summary, "sessions_median_ms", medianMillis(KvSessionPutAllSystem.NAME));
        JsonReport.put(summary, "sessions_vs_unbound", sessionRatio());
        JsonReport.put(summary, "target_ms", CachePutAllScenario.TARGET_MS);
        double ms = medianMillis(KvPutAllSystem.NAME);
        JsonReport.put(summary, "target_met", Double.isNaN(ms) ? null : ms <= CachePutAllScenario.TARGET_MS);
        JsonReport.put(summary, "balanced", balanced());
        JsonReport.put(root, "targets", verdicts());
        return JsonReport.write(root);
    }

    @Override
    public String html() {
        StringBuilder sb = new StringBuilder(HtmlReport.head("ShardQ benchmark: cache-putall"));
        if (!environment.unsafeBanner().isEmpty()) {
            sb.append("<div class=\"unsafe\">")
                    .append(Charts.escape(environment.unsafeBanner()))
                    .append("</div>\n");
        }
        sb.append("<h1>ShardQ benchmark: cache-putall</h1>\n<p class=\"summary\">")
                .append(Charts.escape(String.format(
                        Locale.ROOT,
                        "%d threads write %,d entries of %d B in putAll batches of %d; load average at start %s",
                        scenario.threads(),
                        scenario.entries(),
                        scenario.valueBytes(),
                        scenario.batch(),
                        scenario.loadAtStart())))
                .append("</p>\n<div class=\"charts\">\n");
        List<String> categories = new ArrayList<>();
        for (int i = 1; i <= scenario.runs(); i++) {
            categories.add(Integer.toString(i));
        }
        List<Charts.Series> series = List.of(
                new Charts.Series(KvPutAllSystem.NAME, "#1f6fd1", perRun(KvPutAllSystem.NAME)),
                new Charts.Series(KvSessionPutAllSystem.NAME, "#d9730d", perRun(KvSessionPutAllSystem.NAME)),
                new Charts.Series(UpsertPutAllSystem.NAME, "#6b7280", perRun(UpsertPutAllSystem.NAME)));
        sb.append(Charts.render(
                "Time to write every entry", "run", "milliseconds", categories, "run", series, Charts::compact));
        sb.append("</div>\n").append(HtmlReport.list("Targets", verdicts()));
        sb.append(HtmlReport.resultsTable(columns(), runs));
        return sb.append(HtmlReport.end(environment.facts(), scenario.facts())).toString();
    }

    private double[] perRun(String system) {
        double[] out = new double[scenario.runs()];
        Arrays.fill(out, Double.NaN);
        for (PutAllRun r : runs) {
            if (r.system().equals(system) && r.run() >= 1 && r.run() <= out.length) {
                out[r.run() - 1] = r.millis();
            }
        }
        return out;
    }
}
