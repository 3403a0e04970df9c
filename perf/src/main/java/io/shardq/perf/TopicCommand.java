package io.shardq.perf;

import io.shardq.broker.BrokerConfig;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import javax.sql.DataSource;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code perf topic}: issue 10's benchmark. For each publisher count P, in one run on one server:
 * the INSERT ceiling, the queue end to end (P producers, P consumers) and the topic (P publishers,
 * S durable subscriptions), so deliveries per second, WAL per delivery and the publish cost are
 * ratios of figures measured side by side.
 *
 * <pre>{@code
 * ./shardq perf topic --publishers 1,4 --duration 15 --warmup 5
 * ./shardq perf topic --subscriptions 1000 --rate 10 --publishers 1
 * }</pre>
 */
@Command(
        name = "topic",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = "P publishers and S durable subscriptions on a topic, beside the INSERT ceiling and the"
                + " queue end to end (P producers, P consumers) at the same P, in the same run. Prints the"
                + " settings first, a progress line while running, then deliveries/s and its ratio to the"
                + " queue, WAL per delivery, the publish cost, each subscription's backlog and issue 10's"
                + " targets.")
final class TopicCommand implements Callable<Integer> {

    @Option(
            names = "--publishers",
            split = ",",
            paramLabel = "N",
            splitSynopsisLabel = ",",
            defaultValue = "4",
            description = "publisher threads (the queue: as many producers and consumers); a list sweeps"
                    + " (default: ${DEFAULT-VALUE})")
    List<Integer> publishers;

    @Option(
            names = "--subscriptions",
            paramLabel = "N",
            defaultValue = "10",
            description = "durable subscriptions of the topic (default: ${DEFAULT-VALUE})")
    int subscriptions;

    @Option(
            names = "--consumer-threads",
            paramLabel = "N",
            description = "threads consuming the subscriptions (default: one per subscription up to 64, else 4"
                    + " threads polling many each)")
    Integer consumerThreads;

    @Option(
            names = "--rate",
            paramLabel = "MSG/S",
            defaultValue = "0",
            description = "messages per second published in all by the queue's and the topic's producers;"
                    + " 0: as fast as they can (default: ${DEFAULT-VALUE})")
    double rate;

    @Option(
            names = "--receive-batch",
            paramLabel = "N",
            description = "messages a subscription's consumer commits at once (default: --batch)")
    Integer receiveBatch;

    @Option(
            names = "--systems",
            split = ",",
            paramLabel = "NAME",
            splitSynopsisLabel = ",",
            defaultValue = "ceiling,queue,topic",
            description = "systems to run at each P, in this order (default: ${DEFAULT-VALUE})")
    List<String> systems;

    @CommandLine.Mixin
    RunOptions.Steady steady;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter stdout = spec.commandLine().getOut();
        TopicScenario scenario = scenario();
        return PerfDatabase.run(
                Collections.max(scenario.publishers()),
                steady.unsafe::apply,
                stdout,
                steady.output,
                (ds, env) -> run(ds, BrokerConfig::builder, env, scenario, Progress.forTerminal(stdout), stdout),
                TopicCommand::exitCode);
    }

    /** Prints the settings, runs, prints the report and returns it. */
    static TopicReport run(
            DataSource ds,
            java.util.function.Supplier<BrokerConfig.Builder> brokerConfig,
            Environment env,
            TopicScenario scenario,
            Progress progress,
            PrintWriter stdout)
            throws Exception {
        stdout.println(TextReport.header(env, "topic", scenario.facts()));
        stdout.flush();
        TopicRunner runner = new TopicRunner(ds, brokerConfig, MicroClock.system(), progress);
        TopicComparison run = new TopicComparison(runner.run(scenario));
        TopicReport report = new TopicReport(env, scenario, run);
        stdout.println();
        stdout.print(report.text());
        stdout.flush();
        return report;
    }

    /** 1 when a call failed or a topic step's deliveries do not balance its publishes. */
    static int exitCode(TopicReport report) {
        for (TopicStep s : report.run().steps()) {
            if (s.result().errors() > 0) {
                return 1;
            }
            if (s.totalPublished() >= 0 && s.totalPublished() * s.backlogs().size() != s.totalDelivered()) {
                return 1;
            }
        }
        return 0;
    }

    TopicScenario scenario() {
        List<String> chosen = new ArrayList<>();
        for (String raw : systems) {
            String name = raw.trim();
            if (!TopicScenario.ALL.contains(name)) {
                throw new CommandLine.ParameterException(
                        spec.commandLine(),
                        "--systems " + name + " is unknown: expected some of " + String.join(", ", TopicScenario.ALL));
            }
            if (!chosen.contains(name)) {
                chosen.add(name);
            }
        }
        try {
            int threads =
                    consumerThreads != null ? consumerThreads : TopicScenario.defaultConsumerThreads(subscriptions);
            Settings base = new Settings(
                    publishers.get(0),
                    steady.messages.payload,
                    steady.messages.batch,
                    steady.messages.shards,
                    true,
                    steady.unsafe.on);
            return new TopicScenario(
                    publishers,
                    subscriptions,
                    threads,
                    receiveBatch != null ? receiveBatch : steady.messages.batch,
                    rate,
                    chosen,
                    steady.steps.warmup(),
                    steady.steps.duration(),
                    base,
                    LoadAverage.now());
        } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }
}
