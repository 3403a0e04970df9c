package io.shardq.perf;

import io.shardq.tools.TextTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The report of {@code perf cache-read}: the settings; latency per read at {@code entries} for
 * each thread count (near-cache hit, miss served from PostgreSQL, direct SELECT); reads per second
 * against the number of entries; the loads and their balance; issue 11's targets. results.json,
 * results.csv (one row per step) and results.html (reads/s by size and p50 by threads drawn by the tools' charts (uPlot)).
 *
 * @param nearCacheNote null when the near cache was measured, else why it was not
 */
record CacheReadReport(
        Environment environment,
        CacheReadScenario scenario,
        List<ReadStep> steps,
        List<LoadResult> loads,
        String nearCacheNote)
        implements BenchmarkReport {

    static final String MISS = KvReadSystem.NAME;
    static final String SELECT = SelectReadSystem.NAME;
    static final String NEAR = NearCache.NAME;

    List<ResultColumn<ReadStep>> columns() {
        return List.of(
                new ResultColumn<>("system", ReadStep::system),
                new ResultColumn<>("read_path", r -> readPath(r.system())),
                new ResultColumn<>("entries", ReadStep::entries),
                new ResultColumn<>("threads", ReadStep::threads),
                new ResultColumn<>("seconds", ReadStep::seconds),
                new ResultColumn<>("reads", ReadStep::reads),
                new ResultColumn<>("reads_per_s", ReadStep::readsPerSecond),
                new ResultColumn<>("vs_select", this::vsSelect),
                new ResultColumn<>("p50_us", r -> ReadStep.micros(r.p50Nanos())),
                new ResultColumn<>("p90_us", r -> ReadStep.micros(r.p90Nanos())),
                new ResultColumn<>("p99_us", r -> ReadStep.micros(r.p99Nanos())),
                new ResultColumn<>("p999_us", r -> ReadStep.micros(r.p999Nanos())),
                new ResultColumn<>("max_us", r -> ReadStep.micros(r.maxNanos())),
                new ResultColumn<>("mean_us", r -> r.meanNanos() / 1000.0),
                new ResultColumn<>("missing", ReadStep::missing),
                new ResultColumn<>("served_count", r -> r.served() < 0 ? null : r.served()),
                new ResultColumn<>("errors", ReadStep::errors),
                new ResultColumn<>("first_error", ReadStep::firstError),
                new ResultColumn<>("load_average_at_end", ReadStep::loadAtEnd),
                new ResultColumn<>("value_bytes", r -> scenario.valueBytes()),
                new ResultColumn<>("durable", r -> environment.durable()));
    }

    static String readPath(String system) {
        return switch (system) {
            case NEAR -> "near-cache hit";
            case MISS -> "miss served from PostgreSQL";
            case SELECT -> "direct primary-key SELECT";
            default -> system;
        };
    }

    ReadStep get(String system, int entries, int threads) {
        for (ReadStep s : steps) {
            if (s.system().equals(system) && s.entries() == entries && s.threads() == threads) {
                return s;
            }
        }
        return null;
    }

    /** Reads per second over the direct SELECT's at the same size and threads; NaN for the SELECT. */
    double vsSelect(ReadStep r) {
        ReadStep ref = get(SELECT, r.entries(), r.threads());
        return r.system().equals(SELECT) || ref == null
                ? Double.NaN
                : Rates.ratio(r.readsPerSecond(), ref.readsPerSecond());
    }

    boolean balanced() {
        return loads.stream().allMatch(LoadResult::balanced) && steps.stream().allMatch(ReadStep::ok);
    }

    List<String> verdicts() {
        List<String> out = new ArrayList<>();
        for (int t : scenario.threads()) {
            ReadStep near = get(NEAR, scenario.entries(), t);
            out.add(
                    near == null
                            ? String.format(Locale.ROOT, "x%d: near-cache hit p50 < 1 us: %s", t, nearCacheNote)
                            : verdict(t, "near-cache hit", near, CacheReadScenario.NEAR_HIT_P50_TARGET_MICROS));
            ReadStep miss = get(MISS, scenario.entries(), t);
            out.add(verdict(t, "miss served from PostgreSQL", miss, CacheReadScenario.MISS_P50_TARGET_MICROS));
        }
        if (!scenario.sizes().isEmpty()) {
            scaleVerdicts(out, MISS, "ShardQ's get from PostgreSQL");
            if (get(NEAR, scenario.sizes().get(0), scenario.scaleThreads()) != null) {
                scaleVerdicts(out, NEAR, "ShardQ's get with the near cache");
            }
        }
        out.add(
                balanced()
                        ? "balance: every load stored exactly the entries requested; every read found its entry"
                        : "balance: NOT BALANCED: a load stored other than the entries requested, or a read found nothing"
                                + " or failed");
        return out;
    }

    /** Seed 000: reads/s above the direct SELECT at every size, and the curve's flatness. */
    private void scaleVerdicts(List<String> out, String system, String what) {
        int t = scenario.scaleThreads();
        List<String> below = new ArrayList<>();
        boolean all = true;
        for (int size : scenario.sizes()) {
            ReadStep m = get(system, size, t);
            double r = m == null ? Double.NaN : vsSelect(m);
            all &= !Double.isNaN(r);
            if (!(r > 1)) {
                below.add(String.format(Locale.ROOT, "%,d (%s)", size, Numbers.ratio(r)));
            }
        }
        out.add(String.format(
                Locale.ROOT,
                "%s above the direct SELECT at every size (x%d, reads/s): %s",
                what,
                t,
                !all ? "NOT MEASURED at every size" : below.isEmpty() ? "met" : "NOT MET at " + below));
        ReadStep small = get(system, scenario.sizes().get(0), t);
        ReadStep large = get(system, scenario.sizes().get(scenario.sizes().size() - 1), t);
        if (small != null && large != null && small != large) {
            out.add(String.format(
                    Locale.ROOT,
                    "flat curve: %s, reads/s at %,d entries / at %,d: %s",
                    what,
                    large.entries(),
                    small.entries(),
                    Numbers.ratio(Rates.ratio(large.readsPerSecond(), small.readsPerSecond()))));
        }
    }

    private static String verdict(int threads, String what, ReadStep s, double targetMicros) {
        if (s == null || s.reads() == 0) {
            return String.format(Locale.ROOT, "x%d: %s p50 < %s us: NOT MEASURED", threads, what, fmt(targetMicros));
        }
        double p50 = ReadStep.micros(s.p50Nanos());
        return String.format(
                Locale.ROOT,
                "x%d: %s p50 %s us (p99 %s us), target < %s us: %s",
                threads,
                what,
                Numbers.decimal(p50, 1),
                Numbers.decimal(ReadStep.micros(s.p99Nanos()), 1),
                fmt(targetMicros),
                p50 < targetMicros ? "met" : "NOT MET");
    }

    private static String fmt(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }

    @Override
    public String text() {
        StringBuilder sb =
                new StringBuilder(TextReport.header(environment, "cache-read", scenario.facts())).append('\n');
        TextTable lat = TextTable.numeric(
                "threads",
                "<read path",
                "<system",
                "reads/s",
                "vs select",
                "p50 us",
                "p90 us",
                "p99 us",
                "p99.9 us",
                "missing",
                "errors",
                "<load at end");
        for (int t : scenario.threads()) {
            if (get(NEAR, scenario.entries(), t) == null) {
                lat.row(
                        Integer.toString(t),
                        readPath(NEAR),
                        NEAR,
                        "-",
                        "-",
                        "-",
                        "-",
                        "-",
                        "-",
                        "-",
                        "-",
                        "not available");
            }
            for (ReadStep r : steps) {
                if (r.entries() == scenario.entries() && r.threads() == t) {
                    lat.row(
                            Integer.toString(t),
                            readPath(r.system()),
                            r.system(),
                            Numbers.rate(r.readsPerSecond()),
                            Numbers.ratio(vsSelect(r)),
                            Numbers.decimal(ReadStep.micros(r.p50Nanos()), 1),
                            Numbers.decimal(ReadStep.micros(r.p90Nanos()), 1),
                            Numbers.decimal(ReadStep.micros(r.p99Nanos()), 1),
                            Numbers.decimal(ReadStep.micros(r.p999Nanos()), 1),
                            Numbers.count(r.missing()),
                            Numbers.count(r.errors()),
                            r.loadAtEnd());
                }
            }
        }
        sb.append(String.format(
                        Locale.ROOT, "One read at %,d entries, measured window (seed 001)%n", scenario.entries()))
                .append(lat.render());
        if (nearCacheNote != null) {
            sb.append("  near-cache hit: ").append(nearCacheNote).append('\n');
        }
        if (!scenario.sizes().isEmpty()) {
            TextTable scale =
                    TextTable.numeric("entries", "<system", "reads/s", "vs select", "p50 us", "p99 us", "<load at end");
            for (int size : scenario.sizes()) {
                for (ReadStep r : steps) {
                    if (r.entries() == size && r.threads() == scenario.scaleThreads()) {
                        scale.row(
                                Numbers.count(size),
                                r.system(),
                                Numbers.rate(r.readsPerSecond()),
                                Numbers.ratio(vsSelect(r)),
                                Numbers.decimal(ReadStep.micros(r.p50Nanos()), 1),
                                Numbers.decimal(ReadStep.micros(r.p99Nanos()), 1),
                                r.loadAtEnd());
                    }
                }
            }
            sb.append('\n')
                    .append(String.format(
                            Locale.ROOT,
                            "Reads per second against the number of entries, %d thread(s) (seed 000)%n",
                            scenario.scaleThreads()))
                    .append(scale.render());
        }
        TextTable load = TextTable.numeric("<system", "from", "to", "seconds", "entries/s", "stored");
        for (LoadResult l : loads) {
            load.row(
                    l.system(),
                    Numbers.count(l.from()),
                    Numbers.count(l.to()),
                    Numbers.decimal(l.seconds(), 1),
                    Numbers.rate(l.entriesPerSecond()),
                    Numbers.count(l.stored()) + (l.balanced() ? "" : " (NOT " + l.to() + ")"));
        }
        sb.append('\n')
                .append("Loading (batches of ")
                .append(KvReadSystem.LOAD_BATCH)
                .append(", ")
                .append(CacheReadRunner.LOAD_THREADS)
                .append(" threads)\n")
                .append(load.render());
        sb.append('\n').append("Issue 11's targets\n");
        verdicts().forEach(v -> sb.append("  ").append(v).append('\n'));
        for (LoadResult l : loads) {
            if (l.firstError() != null) {
                sb.append(String.format(
                        Locale.ROOT,
                        "%nload %s: %,d failed batches; first: %s",
                        l.system(),
                        l.errors(),
                        l.firstError()));
            }
        }
        for (ReadStep r : steps) {
            if (r.firstError() != null) {
                sb.append(String.format(
                        Locale.ROOT,
                        "%n%s at %,d x%d: %,d failed reads; first: %s",
                        r.system(),
                        r.entries(),
                        r.threads(),
                        r.errors(),
                        r.firstError()));
            }
        }
        sb.append('\n').append(NOTES);
        return sb.toString();
    }

    private static final String NOTES =
            """

            near-cache hit      KvCache#get answered from the instance's memory (near cache on, key read before)
            miss from PG        KvCache#get answered by PostgreSQL (no near cache): a pooled connection, kv_select_one
            direct SELECT       select v from a plain table where k = ?, a pooled connection per read
            latency             System.nanoTime() around the one call; the key is made before it
            reads/s             reads in the window / its length, all threads together
            vs select           reads/s over the direct SELECT's at the same entries and threads
            missing             reads that found nothing although every key read was loaded (must be 0)
            """;

    @Override
    public String html() {
        return CacheReadHtmlReport.render(this);
    }

    @Override
    public String csv() {
        return CsvReport.render(columns(), steps);
    }

    @Override
    public String json() {
        com.fasterxml.jackson.databind.node.ObjectNode root = JsonReport.root();
        com.fasterxml.jackson.databind.node.ObjectNode s = JsonReport.scenario(root, environment, "cache-read");
        JsonReport.put(s, "threads", scenario.threads());
        JsonReport.put(s, "entries", scenario.entries());
        JsonReport.put(s, "sizes", scenario.sizes());
        JsonReport.put(s, "scale_threads", scenario.scaleThreads());
        JsonReport.put(s, "value_bytes", scenario.valueBytes());
        JsonReport.put(s, "warmup_s", scenario.warmup().toMillis() / 1000.0);
        JsonReport.put(s, "duration_s", scenario.duration().toMillis() / 1000.0);
        JsonReport.put(s, "load_average_at_start", scenario.loadAtStart());
        com.fasterxml.jackson.databind.node.ObjectNode near = root.putObject("near_cache");
        JsonReport.put(near, "available", nearCacheNote == null);
        JsonReport.put(near, "note", nearCacheNote);
        root.set("results", JsonReport.rows(steps, columns()));
        com.fasterxml.jackson.databind.node.ArrayNode loadsJson = root.putArray("loads");
        for (LoadResult l : loads) {
            com.fasterxml.jackson.databind.node.ObjectNode o = loadsJson.addObject();
            JsonReport.put(o, "system", l.system());
            JsonReport.put(o, "from", l.from());
            JsonReport.put(o, "to", l.to());
            JsonReport.put(o, "seconds", l.seconds());
            JsonReport.put(o, "entries_per_s", l.entriesPerSecond());
            JsonReport.put(o, "stored", l.stored());
            JsonReport.put(o, "balanced", l.balanced());
            JsonReport.put(o, "errors", l.errors());
        }
        JsonReport.put(root, "balanced", balanced());
        JsonReport.put(root, "targets", verdicts());
        return JsonReport.write(root);
    }
}
