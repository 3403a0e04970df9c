package io.shardq.perf;

import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The benchmark command line, {@code ./shardq perf} (which builds and runs {@code
 * perf/target/shardq-perf.jar}). {@code queue}, {@code mixed}, {@code topic}, {@code delay}, {@code cache-putall} and {@code cache-read} are the
 * scenarios.
 *
 * <pre>{@code
 * ./shardq perf queue --threads 1,2,4 --duration 20 --out target/perf
 * ./shardq perf queue --async --threads 1,4 --systems shardq,ceiling
 * ./shardq perf delay --messages 1000000 --spread 60 --out target/perf-delay
 * ./shardq perf mixed --stages 4,8,16,32 --stage-seconds 20 --out target/perf-mixed
 * ./shardq perf topic --publishers 1,4 --duration 15 --warmup 5
 * ./shardq perf cache-putall --out target/perf-putall
 * ./shardq perf cache-read --threads 1,8 --sizes 1000,10000,100000,1000000 --out target/perf-read
 * }</pre>
 */
@Command(
        name = "perf",
        mixinStandardHelpOptions = true,
        description = {
            "Measure ShardQ on PostgreSQL: queue against references run in the same process (the",
            "ceiling, a plain multi-row INSERT, and the naive FOR UPDATE SKIP LOCKED queue); mixed",
            "with concurrent users running a weighted mix of transactions; topic with publishers and",
            "durable subscriptions, beside the queue and the ceiling at the same publisher count; delay",
            "with messages scheduled over a minute, their lateness and SQL per delivery;",
            "cache-putall and cache-read on the key/value cache, beside plain SQL on a plain table."
        },
        subcommands = {
            QueueCommand.class,
            MixedCommand.class,
            TopicCommand.class,
            DelayCommand.class,
            CachePutAllCommand.class,
            CacheReadCommand.class,
            CommandLine.HelpCommand.class
        },
        footer = {
            "",
            "Scenarios:",
            "  queue          producers and consumers on one queue; --async adds asynchronous send (available)",
            "  mixed          users running a weighted transaction mix, in stages (available)",
            "  topic          publishers and durable subscriptions on a topic, beside the queue (available)",
            "  delay          messages with a delivery delay, due over a minute: lateness and SQL per delivery (available)",
            "  cache-putall   threads writing putAll batches into a key/value cache, beside a plain upsert (available)",
            "  cache-read     random reads of a key/value cache by size, beside a primary-key SELECT (available)",
            "",
            "With SHARDQ_JDBC_URL unset, the embedded PostgreSQL is started (durable: fsync",
            "and synchronous_commit on)."
        })
public final class PerfCommand implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    public static void main(String[] args) {
        System.exit(execute(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true)));
    }

    /** Runs the command line with the given streams and returns the exit code. */
    public static int execute(String[] args, PrintWriter out, PrintWriter err) {
        CommandLine cli = new CommandLine(new PerfCommand());
        cli.setOut(out);
        cli.setErr(err);
        cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            commandLine.getErr().println("perf: " + Runner.describe(e));
            commandLine.getErr().flush();
            return 2;
        });
        return cli.execute(args);
    }
}
