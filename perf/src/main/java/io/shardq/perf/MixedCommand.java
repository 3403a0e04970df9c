package io.shardq.perf;

import io.shardq.broker.BrokerConfig;
import io.shardq.broker.store.Database;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import javax.sql.DataSource;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code perf mixed}: concurrent users run a weighted mix of transaction templates on ShardQ, in
 * stages of growing user counts, after the TPoX benchmark's mixed workload.
 */
@Command(
        name = "mixed",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = "For each user count of --stages, that many users each pick a transaction template by weight"
                + " from the workload, run it in one transacted JMS session (messages and the application's own SQL"
                + " commit together) and pick again at once, with no think time. Prints the settings first, a"
                + " progress line while running, then throughput per stage and per template with latency"
                + " percentiles, and checks the application rows against the committed transactions.")
final class MixedCommand implements Callable<Integer> {

    @Option(
            names = "--workload",
            paramLabel = "FILE",
            description = "workload file: settings and templates NAME WEIGHT STEP[, STEP...] (default: the built-in"
                    + " send10-update 40, receive10-insert 40, browse 10, send1 10; see docs/performance.md)")
    Path workload;

    @Option(
            names = "--stages",
            split = ",",
            paramLabel = "N",
            splitSynopsisLabel = ",",
            defaultValue = "4,8,16,32",
            description = "concurrent users of each stage, run in this order (default: ${DEFAULT-VALUE})")
    List<Integer> stages;

    @Option(
            names = "--stage-seconds",
            paramLabel = "SECONDS",
            defaultValue = "20",
            description = "measured time per stage (default: ${DEFAULT-VALUE})")
    int stageSeconds;

    @Option(
            names = "--warmup",
            paramLabel = "SECONDS",
            defaultValue = "5",
            description = "warm-up per stage, not measured (default: ${DEFAULT-VALUE})")
    int warmup;

    @CommandLine.Mixin
    RunOptions.Unsafe unsafe;

    @CommandLine.Mixin
    RunOptions.Output output;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter stdout = spec.commandLine().getOut();
        MixedScenario scenario = scenario();
        try (Database db = Database.open(BrokerConfig.fromEnvironment(), "perf")) {
            DataSource ds = unsafe.apply(db.dataSource());
            Environment env = PerfDatabase.environment(db, ds);
            stdout.println(MixedTextReport.header(env, scenario)); // the UNSAFE banner, if any, comes first
            stdout.flush();
            List<StageResult> results = new ArrayList<>();
            ApplicationCheck check = null;
            String failure = null;
            try (MixedRunner runner =
                    new MixedRunner(ds, BrokerConfig::builder, scenario, MixedProgress.forTerminal(stdout))) {
                runner.setUp();
                for (int users : scenario.stages()) {
                    results.add(runner.runStage(users));
                }
                check = runner.check();
            } catch (Exception e) {
                if (Thread.currentThread().isInterrupted() || results.isEmpty()) {
                    throw e;
                }
                failure = "the run stopped after " + results.size() + " stage(s): " + Runner.describe(e);
            }
            MixedReport report = new MixedReport(env, scenario, results, check);
            stdout.println();
            stdout.print(report.text());
            if (failure != null) {
                stdout.println(failure);
            }
            output.write(report, stdout);
            stdout.flush();
            boolean failed = results.stream().anyMatch(s -> s.all().counts().failed() > 0);
            return failure != null || failed || check == null || !check.consistent() ? 1 : 0;
        }
    }

    /** The scenario from the options and the workload file; a bad value names itself. */
    MixedScenario scenario() {
        Workload w;
        try {
            w = workload == null ? Workload.defaults() : Workload.load(workload);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        try {
            return new MixedScenario(
                    w, stages, Duration.ofSeconds(warmup), Duration.ofSeconds(stageSeconds), unsafe.on);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }
}
