package io.shardq.cli;

import io.shardq.broker.Broker;
import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.catalog.Names;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "alter",
        description = {
            "Change a queue's settings.",
            "Shards can be added, never removed: each shard is an ordered log. Running instances pick changes up within a heartbeat."
        })
final class QueueAlterCommand implements Callable<Integer> {
    @Mixin
    HelpOption help;

    @Parameters(paramLabel = "NAME", description = QueueCommand.NAME_HELP)
    String name;

    @Option(names = "--shards", paramLabel = "N", description = "new shard count, more than now, at most 256")
    Integer shards;

    @Option(
            names = "--slice-size",
            paramLabel = "N",
            description = "messages per slice for new slices, 16 to 100000000")
    Integer sliceSize;

    @Option(
            names = "--max-attempts",
            paramLabel = "N",
            description = "deliveries of a message before it goes to the dead-letter queue")
    Integer maxAttempts;

    @Option(
            names = "--dead-letter-queue",
            paramLabel = "QUEUE",
            description = "where messages go after --max-attempts failed deliveries (default: NAME.DLQ)")
    String deadLetterQueue;

    @Option(
            names = "--expiry-queue",
            paramLabel = "QUEUE",
            description = "where messages found expired at delivery go (default: they are dropped)")
    String expiryQueue;

    @Option(names = "--no-expiry-queue", description = "drop messages found expired at delivery (the default)")
    boolean noExpiryQueue;

    @Option(
            names = "--redelivery-delay",
            paramLabel = "DURATION",
            converter = Durations.Converter.class,
            description = "wait before a message whose delivery failed is delivered again (500ms, 5s, 1m; 0: at once);"
                    + " overrides shardq.redelivery.delay-ms for this queue")
    java.time.Duration redeliveryDelay;

    @Option(
            names = "--redelivery-multiplier",
            paramLabel = "X",
            description = "back-off: the delay after the n-th failed delivery is the delay x X^(n-1), 1 or more")
    Double redeliveryMultiplier;

    @Mixin
    ConnectionOptions connection;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        boolean policy =
                expiryQueue != null || noExpiryQueue || redeliveryDelay != null || redeliveryMultiplier != null;
        if (shards == null && sliceSize == null && maxAttempts == null && deadLetterQueue == null && !policy) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(),
                    "nothing to change: give --shards, --slice-size, --max-attempts, --dead-letter-queue,"
                            + " --expiry-queue, --no-expiry-queue, --redelivery-delay or --redelivery-multiplier");
        }
        if (expiryQueue != null && noExpiryQueue) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "--expiry-queue and --no-expiry-queue contradict each other: give one");
        }
        if (redeliveryDelay != null && redeliveryDelay.toMillis() > Integer.MAX_VALUE) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "--redelivery-delay " + redeliveryDelay + " is too long: at most 24 days");
        }
        Names.checkDestination(name);
        if (deadLetterQueue != null) {
            Names.checkDestination(deadLetterQueue);
        }
        if (expiryQueue != null) {
            Names.checkDestination(expiryQueue);
        }
        try (Broker broker = connection.startBroker("queue alter")) {
            DestinationInfo before = QueueCommand.require(broker.admin(), name);
            DestinationInfo d = before;
            if (shards != null || sliceSize != null || maxAttempts != null || deadLetterQueue != null) {
                d = broker.admin().alterQueue(name, shards, sliceSize, maxAttempts, deadLetterQueue);
            }
            if (policy) {
                d = broker.admin()
                        .setDeliveryPolicy(
                                name,
                                noExpiryQueue ? "" : expiryQueue,
                                redeliveryDelay == null ? null : (int) redeliveryDelay.toMillis(),
                                redeliveryMultiplier);
            }
            spec.commandLine()
                    .getOut()
                    .println((d.equals(before)
                                    ? "queue " + d.name() + " unchanged: "
                                    : "altered queue " + d.name() + ": ")
                            + QueueCommand.settings(d));
            return 0;
        }
    }
}
