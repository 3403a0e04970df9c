package io.shardq.perf;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import javax.sql.DataSource;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code perf cache-read}: issue 11's read benchmarks. Seed 001: random reads of route prices at
 * {@code --entries}, latency per read for each of {@code --threads}: a near-cache hit (when the
 * broker has a near cache), a miss served from PostgreSQL ({@code KvCache#get}) and the direct
 * primary-key SELECT on a plain table holding the same data. Seed 000: reads per second against
 * the number of entries ({@code --sizes}), drawn in results.html.
 *
 * <pre>{@code
 * ./shardq perf cache-read                                       # 100,000 entries at 1 and 8 threads; sizes 1K..1M
 * ./shardq perf cache-read --sizes 100000 --out /tmp/perf-read   # seed 001 only
 * }</pre>
 */
@Command(
        name = "cache-read",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = "Loads route prices into a durable key/value cache and a plain table, then reads random"
                + " keys: latency per read at --entries for each of --threads (near-cache hit when available,"
                + " miss served from PostgreSQL, direct primary-key SELECT), and reads/s at each of --sizes."
                + " Prints the settings first, then the tables and issue 11's targets. Exits 1 when a load"
                + " stored other than the entries requested or a read found nothing.")
final class CacheReadCommand implements Callable<Integer> {

    @Option(
            names = "--threads",
            split = ",",
            paramLabel = "N",
            splitSynopsisLabel = ",",
            defaultValue = "1,8",
            description = "reader threads for the latencies at --entries (default: ${DEFAULT-VALUE})")
    List<Integer> threads;

    @Option(
            names = "--entries",
            paramLabel = "N",
            defaultValue = "100000",
            description = "entries loaded when the latencies are measured (default: ${DEFAULT-VALUE})")
    int entries;

    @Option(
            names = "--sizes",
            split = ",",
            paramLabel = "N",
            splitSynopsisLabel = ",",
            defaultValue = "1000,10000,100000,1000000",
            description = "entries at which reads/s are measured, for the curve; 0 alone: none"
                    + " (default: ${DEFAULT-VALUE})")
    List<Integer> sizes;

    @Option(
            names = "--scale-threads",
            paramLabel = "N",
            defaultValue = "1",
            description = "reader threads at each of --sizes (default: ${DEFAULT-VALUE})")
    int scaleThreads;

    @Option(
            names = "--value-bytes",
            paramLabel = "BYTES",
            defaultValue = "200",
            description = "size of each value (default: ${DEFAULT-VALUE})")
    int valueBytes;

    @CommandLine.Mixin
    RunOptions.Steps steps = new RunOptions.Steps(2, 5);

    @CommandLine.Mixin
    RunOptions.Output output;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter stdout = spec.commandLine().getOut();
        CacheReadScenario scenario = scenario(List.of());
        int maxThreads = Math.max(Collections.max(scenario.threads()), scenario.scaleThreads());
        return PerfDatabase.run(
                maxThreads,
                ds -> ds,
                stdout,
                output,
                (ds, env) -> run(ds, BrokerConfig::builder, env, this::scenario, Progress.forTerminal(stdout), stdout),
                CacheReadCommand::exitCode);
    }

    /**
     * Starts a broker, builds the scenario for the systems available (the near cache only when the
     * broker has one), prints the settings, runs, prints the report and returns it.
     */
    static CacheReadReport run(
            DataSource ds,
            Supplier<BrokerConfig.Builder> brokerConfig,
            Environment env,
            java.util.function.Function<List<String>, CacheReadScenario> scenarioFor,
            Progress progress,
            PrintWriter stdout)
            throws Exception {
        CacheReadScenario probe = scenarioFor.apply(List.of());
        int maxThreads = Math.max(Collections.max(probe.threads()), probe.scaleThreads());
        // two instances on one database: the miss path's without a near cache, the near cache's
        // with room for every entry of the largest size (about 300 bytes each with its key)
        long largest = Math.max(
                probe.entries(),
                probe.sizes().stream().mapToLong(Integer::longValue).max().orElse(0));
        BrokerConfig config = brokerConfig
                .get()
                .set(BrokerProperty.POOL_SIZE, maxThreads + 4)
                .set(BrokerProperty.KV_NEAR_MAX_BYTES, 0)
                .build();
        BrokerConfig nearConfig = brokerConfig
                .get()
                .set(BrokerProperty.POOL_SIZE, maxThreads + 4)
                .set(BrokerProperty.KV_NEAR_MAX_BYTES, Math.min(Integer.MAX_VALUE, Math.max(64L << 20, largest * 1024)))
                .build();
        try (Broker broker = Broker.start(config);
                Broker nearBroker = Broker.start(nearConfig)) {
            List<ReadSystem> systems = new ArrayList<>();
            systems.add(new KvReadSystem(broker)); // first: it makes and loads the cache
            systems.add(new NearCache(nearBroker));
            systems.add(new SelectReadSystem(ds));
            CacheReadScenario scenario =
                    scenarioFor.apply(systems.stream().map(ReadSystem::name).toList());
            ServerProbe server = new ServerProbe(ds);
            return run(
                    env,
                    scenario,
                    systems,
                    null,
                    () -> {
                        server.vacuumAnalyzeAll();
                        server.checkpoint();
                    },
                    progress,
                    stdout);
        }
    }

    /** As above with the systems given (closed at the end); {@code nearCacheNote} null when measured. */
    static CacheReadReport run(
            Environment env,
            CacheReadScenario scenario,
            List<ReadSystem> systems,
            String nearCacheNote,
            Progress progress,
            PrintWriter stdout)
            throws Exception {
        return run(env, scenario, systems, nearCacheNote, () -> {}, progress, stdout);
    }

    /** As above, with {@code settle} run after each load (see {@link CacheReadRunner}). */
    static CacheReadReport run(
            Environment env,
            CacheReadScenario scenario,
            List<ReadSystem> systems,
            String nearCacheNote,
            Runnable settle,
            Progress progress,
            PrintWriter stdout)
            throws Exception {
        stdout.println(TextReport.header(env, "cache-read", scenario.facts()));
        for (ReadSystem s : systems) {
            stdout.printf("  %-19s %s%n", s.name(), s.describe());
        }
        if (nearCacheNote != null) {
            stdout.println("  near-cache hit      " + nearCacheNote);
        }
        stdout.flush();
        CacheReadRunner runner = new CacheReadRunner(progress, settle);
        List<ReadStep> steps;
        try {
            steps = runner.run(scenario, systems);
        } finally {
            for (ReadSystem s : systems) {
                s.close();
            }
        }
        CacheReadReport report = new CacheReadReport(env, scenario, steps, runner.loads, nearCacheNote);
        stdout.println();
        stdout.print(report.text());
        stdout.flush();
        return report;
    }

    /** 1 when a load stored other than the entries requested, or a read found nothing or failed. */
    static int exitCode(CacheReadReport report) {
        return report.balanced() ? 0 : 1;
    }

    CacheReadScenario scenario(List<String> systems) {
        try {
            List<Integer> sweep = sizes.size() == 1 && sizes.get(0) == 0 ? List.of() : sizes;
            return new CacheReadScenario(
                    threads,
                    entries,
                    sweep,
                    scaleThreads,
                    valueBytes,
                    steps.warmup(),
                    steps.duration(),
                    systems,
                    LoadAverage.now());
        } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }
}
