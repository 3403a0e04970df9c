package io.shardq.perf;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import javax.sql.DataSource;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code perf cache-putall}: issue 11's write benchmark, seed 003's shape. Each run writes every
 * entry into an empty durable cache with {@code putAll}, unbound ({@code shardq}: each call its own
 * transaction, group-committed with other threads') and inside transacted sessions ({@code
 * shardq-tx}: a session per thread, one session commit per batch), and the same entries into a
 * plain table with a hand-written multi-row upsert, so ShardQ's times are ratios to a reference
 * measured beside them.
 *
 * <pre>{@code
 * ./shardq perf cache-putall                                   # 20 threads, 100,000 entries, batches of 20, 3 runs
 * ./shardq perf cache-putall --threads 4 --entries 20000 --runs 1 --out /tmp/perf-putall
 * }</pre>
 */
@Command(
        name = "cache-putall",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = "T threads write N entries into an empty durable key/value cache with putAll batches"
                + " (maxBatchSize = the batch), unbound (shardq) and each batch committed by a transacted session"
                + " (shardq-tx), and into a plain table with a multi-row upsert (the reference), in the same run."
                + " Prints the settings first, each run, the medians, ShardQ's times over the upsert's, the"
                + " sessions' over the unbound time, and the targets. Exits 1 when a run stored other than the"
                + " entries requested.")
final class CachePutAllCommand implements Callable<Integer> {

    @Option(
            names = "--threads",
            paramLabel = "N",
            defaultValue = "20",
            description = "writer threads (default: ${DEFAULT-VALUE})")
    int threads;

    @Option(
            names = "--entries",
            paramLabel = "N",
            defaultValue = "100000",
            description = "entries written per run and system (default: ${DEFAULT-VALUE})")
    int entries;

    @Option(
            names = "--batch",
            paramLabel = "N",
            defaultValue = "20",
            description = "entries per putAll, and the cache view's maxBatchSize (default: ${DEFAULT-VALUE})")
    int batch;

    @Option(
            names = "--value-bytes",
            paramLabel = "BYTES",
            defaultValue = "200",
            description = "size of each value (default: ${DEFAULT-VALUE})")
    int valueBytes;

    @Option(
            names = "--runs",
            paramLabel = "N",
            defaultValue = "3",
            description = "runs, each reported, and their median (default: ${DEFAULT-VALUE})")
    int runs;

    @Option(
            names = "--warmup-runs",
            paramLabel = "N",
            defaultValue = "1",
            description = "unreported writes of each system before the runs (default: ${DEFAULT-VALUE})")
    int warmupRuns;

    @CommandLine.Mixin
    RunOptions.Output output;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter stdout = spec.commandLine().getOut();
        CachePutAllScenario scenario = scenario();
        return PerfDatabase.run(
                scenario.threads(),
                ds -> ds,
                stdout,
                output,
                (ds, env) -> run(ds, BrokerConfig::builder, env, scenario, Progress.forTerminal(stdout), stdout),
                CachePutAllCommand::exitCode);
    }

    /** Prints the settings, runs, prints the report and returns it. */
    static CachePutAllReport run(
            DataSource ds,
            Supplier<BrokerConfig.Builder> brokerConfig,
            Environment env,
            CachePutAllScenario scenario,
            Progress progress,
            PrintWriter stdout)
            throws Exception {
        stdout.println(TextReport.header(env, "cache-putall", scenario.facts()));
        stdout.flush();
        BrokerConfig config = brokerConfig
                .get()
                .set(BrokerProperty.POOL_SIZE, scenario.threads() + 4)
                .build();
        try (Broker broker = Broker.start(config)) {
            return run(
                    ds,
                    env,
                    scenario,
                    List.of(
                            new KvPutAllSystem(broker, scenario.batch()),
                            new KvSessionPutAllSystem(broker, scenario.batch())),
                    progress,
                    stdout);
        }
    }

    /** As above with the ShardQ systems given (tests wrap them); the upsert runs after them. */
    static CachePutAllReport run(
            DataSource ds,
            Environment env,
            CachePutAllScenario scenario,
            List<PutAllSystem> shardq,
            Progress progress,
            PrintWriter stdout)
            throws Exception {
        UpsertPutAllSystem upsert = new UpsertPutAllSystem(ds);
        List<PutAllSystem> systems = new java.util.ArrayList<>(shardq);
        systems.add(upsert);
        List<PutAllRun> runs;
        try {
            runs = new CachePutAllRunner(new ServerProbe(ds), progress).run(scenario, systems);
        } finally {
            for (PutAllSystem s : systems) {
                s.close();
            }
        }
        CachePutAllReport report = new CachePutAllReport(env, scenario, runs);
        stdout.println();
        stdout.print(report.text());
        stdout.flush();
        return report;
    }

    /** 1 when a batch failed or a run stored other than the entries requested. */
    static int exitCode(CachePutAllReport report) {
        return report.balanced() ? 0 : 1;
    }

    CachePutAllScenario scenario() {
        try {
            return new CachePutAllScenario(threads, entries, batch, valueBytes, runs, warmupRuns, LoadAverage.now());
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }
}
