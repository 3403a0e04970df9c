package io.shardq.perf;

import io.shardq.broker.BrokerConfig;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import javax.sql.DataSource;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code perf delay}: delivery delay at scale (issue 12). */
@Command(
        name = "delay",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = "Producers schedule --messages messages with delivery times spread at random over --spread"
                + " seconds, the first due --lead seconds after the start; consumers receive them. Reports the"
                + " lateness after JMSDeliveryTime (p50/p99/max), early deliveries (must be 0), throughput, and the"
                + " SQL statements per delivered message (pg_stat_statements when the server preloads it;"
                + " transactions and rows from pg_stat_database always).")
final class DelayCommand implements Callable<Integer> {

    @Option(
            names = "--messages",
            paramLabel = "N",
            defaultValue = "1000000",
            description = "messages scheduled (default: ${DEFAULT-VALUE})")
    int messages;

    @Option(
            names = "--spread",
            paramLabel = "SECONDS",
            defaultValue = "60",
            description = "delivery times spread over this many seconds (default: ${DEFAULT-VALUE})")
    double spread;

    @Option(
            names = "--lead",
            paramLabel = "SECONDS",
            defaultValue = "60",
            description = "the first delivery time this long after scheduling starts; longer than the scheduling"
                    + " takes, or the report counts messages sent after their time (default: ${DEFAULT-VALUE})")
    double lead;

    @Option(
            names = "--producers",
            paramLabel = "N",
            defaultValue = "4",
            description = "producer threads (default: ${DEFAULT-VALUE})")
    int producers;

    @Option(
            names = "--consumers",
            paramLabel = "N",
            defaultValue = "4",
            description = "consumer threads (default: ${DEFAULT-VALUE})")
    int consumers;

    @CommandLine.Mixin
    RunOptions.Messages message = new RunOptions.Messages(512, 100, 8);

    @Option(
            names = "--drain-timeout",
            paramLabel = "SECONDS",
            defaultValue = "60",
            description = "how long after the last delivery time to wait for the last deliveries"
                    + " (default: ${DEFAULT-VALUE})")
    double drainTimeout;

    @CommandLine.Mixin
    RunOptions.Output output;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter stdout = spec.commandLine().getOut();
        DelayScenario scenario = scenario();
        return PerfDatabase.run(
                producers + consumers,
                ds -> ds,
                stdout,
                output,
                (ds, env) -> run(ds, BrokerConfig::builder, env, scenario, stdout),
                DelayCommand::exitCode);
    }

    /** Prints the settings, runs, prints the report and returns it. */
    static DelayReport run(
            DataSource ds,
            Supplier<BrokerConfig.Builder> brokerConfig,
            Environment env,
            DelayScenario scenario,
            PrintWriter stdout)
            throws Exception {
        stdout.println(TextReport.header(env, "delay", scenario.facts()));
        DelayRunner runner = new DelayRunner(ds, brokerConfig, stdout);
        stdout.println(
                runner.statementsCounted()
                        ? "SQL statements counted with pg_stat_statements"
                        : "SQL statements not counted: pg_stat_statements is not in shared_preload_libraries"
                                + " (transactions and rows from pg_stat_database instead)");
        stdout.flush();
        DelayReport report = new DelayReport(env, scenario, runner.run(scenario));
        stdout.println();
        stdout.print(report.text());
        stdout.flush();
        return report;
    }

    /** 1 when a message was lost, duplicated, early or left scheduled, or a call failed. */
    static int exitCode(DelayReport report) {
        return report.result().balanced() ? 0 : 1;
    }

    DelayScenario scenario() {
        try {
            return new DelayScenario(
                    messages,
                    seconds(spread),
                    seconds(lead),
                    producers,
                    consumers,
                    message.batch,
                    message.payload,
                    message.shards,
                    seconds(drainTimeout),
                    LoadAverage.now());
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    private static Duration seconds(double s) {
        return Duration.ofMillis(Math.round(s * 1000));
    }
}
