package io.shardq.perf;

import io.shardq.broker.BrokerConfig;
import io.shardq.broker.store.Database;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import javax.sql.DataSource;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code perf queue}: producers and consumers on one queue, for each system and threads value. */
@Command(
        name = "queue",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = "P producer threads send batches and P consumer threads receive them, for each P of"
                + " --threads and each system; the ceilings only enqueue. Prints the settings first, a progress"
                + " line while running, and tables with ratios against the references, commits and CPU per"
                + " message at the end.")
final class QueueCommand implements Callable<Integer> {

    @Option(
            names = "--threads",
            split = ",",
            paramLabel = "N",
            splitSynopsisLabel = ",",
            defaultValue = "4",
            description = "producer threads, and as many consumer threads; a list sweeps (default: ${DEFAULT-VALUE})")
    List<Integer> threads;

    @Option(
            names = "--non-persistent",
            description = "non-persistent delivery; the reference tables are UNLOGGED to match")
    boolean nonPersistent;

    @Option(
            names = "--systems",
            split = ",",
            paramLabel = "NAME",
            splitSynopsisLabel = ",",
            defaultValue = "shardq,ceiling,naive",
            description = "systems to run, in this order: shardq (ShardQ through JMS, transacted sessions);"
                    + " sql (ShardQ from SQL: producers shardq.send_batch and COMMIT per batch, consumers"
                    + " shardq.receive and COMMIT per batch, each on its own connection);"
                    + " sql-send (producers in SQL as in sql, JMS consumers: the SQL send path alone);"
                    + " ceiling (one autocommit multi-row INSERT per batch: one round trip, enqueue only);"
                    + " ceiling2 (each producer on its own connection: multi-row INSERT, then COMMIT, per"
                    + " batch: two round trips, enqueue only; the ratios /ceiling2 are against it); naive"
                    + " (one table, INSERT to enqueue, DELETE ... FOR UPDATE SKIP LOCKED RETURNING to dequeue)"
                    + " (default: ${DEFAULT-VALUE})")
    List<String> systems;

    @Option(
            names = "--async",
            description = "also run " + ShardQSystem.ASYNC_NAME + " right after shardq: the same queue and"
                    + " consumers, producers sending with a CompletionListener instead of committing each batch")
    boolean async;

    @Option(
            names = "--async-in-flight",
            paramLabel = "BATCHES",
            defaultValue = "" + ShardQSystem.DEFAULT_IN_FLIGHT_BATCHES,
            description = "batches each asynchronous producer may have awaiting completion (default: ${DEFAULT-VALUE})")
    int asyncInFlight;

    @Option(
            names = "--instances",
            paramLabel = "N",
            defaultValue = "1",
            description = "ShardQ instances (JVMs) sharing the load of the shardq system: this one and N-1"
                    + " peer JVMs, threads dealt round robin; the references run in this JVM alone"
                    + " (default: ${DEFAULT-VALUE})")
    int instances;

    @CommandLine.Mixin
    RunOptions.Steady steady;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private final SystemRegistry registry;

    QueueCommand() {
        this(SystemRegistry.standard());
    }

    QueueCommand(SystemRegistry registry) {
        this.registry = registry;
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter stdout = spec.commandLine().getOut();
        List<String> notes = new ArrayList<>();
        Scenario scenario = scenario(notes);
        if (scenario.systems().isEmpty()) {
            notes.forEach(stdout::println);
            spec.commandLine().getErr().println("perf: none of the systems asked for is available: " + systems);
            return 2;
        }
        try (Database db = PerfDatabase.open(Collections.max(scenario.threads()))) {
            DataSource ds = steady.unsafe.apply(db.dataSource());
            Environment env = PerfDatabase.environment(db, ds);
            Comparison run = run(ds, env, scenario, notes, Progress.forTerminal(stdout), stdout);
            return run.results().stream().anyMatch(r -> r.errors() > 0) ? 1 : 0;
        }
    }

    /**
     * Prints the settings (the UNSAFE banner, if any, first) and the notes, runs the scenario on
     * the data source, prints the report and, with {@code --out}, writes its files.
     */
    Comparison run(
            DataSource ds,
            Environment env,
            Scenario scenario,
            List<String> notes,
            Progress progress,
            PrintWriter stdout)
            throws Exception {
        stdout.println(TextReport.header(env, scenario));
        notes.forEach(stdout::println);
        stdout.flush();
        Runner runner = new Runner(ds, registry, MicroClock.system(), progress);
        Comparison run = new Comparison(runner.run(scenario));
        RunReport report = new RunReport(env, scenario, run);
        stdout.println();
        stdout.print(report.text());
        steady.output.write(report, stdout);
        stdout.flush();
        return run;
    }

    /** The scenario from the options; systems not available yet are left out, with a note. */
    Scenario scenario(List<String> notes) {
        if (asyncInFlight < 1) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(),
                    "--async-in-flight " + asyncInFlight + " is invalid: expected at least 1 batch");
        }
        if (instances < 1 || instances > 16) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "--instances " + instances + " is invalid: expected 1 to 16");
        }
        if (instances > 1) {
            if (async) {
                throw new CommandLine.ParameterException(
                        spec.commandLine(),
                        "--instances " + instances + " cannot be combined with --async: peer instances send"
                                + " synchronously; run them in separate commands");
            }
            int minThreads = Collections.min(threads);
            if (minThreads < instances) {
                throw new CommandLine.ParameterException(
                        spec.commandLine(),
                        "--threads " + minThreads + " is invalid with --instances " + instances
                                + ": expected at least one producer and one consumer per instance");
            }
            int n = instances;
            registry.register(SystemRegistry.SHARDQ, () -> new ShardQSystem().instances(n));
        }
        if (asyncInFlight != ShardQSystem.DEFAULT_IN_FLIGHT_BATCHES) {
            int inFlight = asyncInFlight;
            registry.register(ShardQSystem.ASYNC_NAME, () -> ShardQSystem.async(BrokerConfig::builder, inFlight));
        }
        List<String> runnable = new ArrayList<>();
        for (String raw : withAsync(systems)) {
            String name = raw.trim();
            if (registry.isRegistered(name)) {
                if (!runnable.contains(name)) {
                    runnable.add(name);
                }
            } else if (registry.isComing(name)) {
                notes.add(name + ": not available yet (no QueueSystem registered under that name in"
                        + " SystemRegistry); running the others");
            } else {
                throw new CommandLine.ParameterException(
                        spec.commandLine(),
                        "--systems " + name + " is unknown: expected one of "
                                + String.join(", ", registry.knownNames()));
            }
        }
        try {
            Settings base = new Settings(
                    threads.get(0),
                    steady.messages.payload,
                    steady.messages.batch,
                    steady.messages.shards,
                    !nonPersistent,
                    steady.unsafe.on);
            return new Scenario(threads, runnable, steady.steps.warmup(), steady.steps.duration(), base, asyncInFlight);
        } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /**
     * The systems asked for, with {@code --async}: {@value ShardQSystem#ASYNC_NAME} right after
     * shardq (both first when shardq was not asked for), so the two modes run back to back at
     * each threads value.
     */
    private List<String> withAsync(List<String> asked) {
        List<String> out = new ArrayList<>(asked.stream().map(String::trim).toList());
        if (!async || out.contains(ShardQSystem.ASYNC_NAME)) {
            return out;
        }
        int sync = out.indexOf(SystemRegistry.SHARDQ);
        if (sync < 0) {
            out.add(0, SystemRegistry.SHARDQ);
            sync = 0;
        }
        out.add(sync + 1, ShardQSystem.ASYNC_NAME);
        return out;
    }
}
