package io.shardq.cli;

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
            "Running instances pick changes up within a heartbeat. More shards take new messages at once. Fewer:"
                    + " the highest shards become draining (no new messages; consumers empty them) and are retired, their"
                    + " storage dropped, once empty; `queue stats` shows them. No message is lost, duplicated or"
                    + " reordered per producer."
        })
final class QueueAlterCommand implements Callable<Integer> {
    @Mixin
    HelpOption help;

    @Parameters(paramLabel = "NAME", description = QueueCommand.NAME_HELP)
    String name;

    @Option(
            names = "--shards",
            paramLabel = "N",
            description = "new shard count, 1 to 256 (fewer: the shards from N up drain, then go)")
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

    @Mixin
    DeliveryPolicyOptions policy;

    @Mixin
    ConnectionOptions connection;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        if (shards == null && sliceSize == null && maxAttempts == null && deadLetterQueue == null && !policy.given()) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(),
                    "nothing to change: give --shards, --slice-size, --max-attempts, --dead-letter-queue, "
                            + DeliveryPolicyOptions.NAMES);
        }
        policy.check(spec.commandLine());
        Names.checkDestination(name);
        QueueCommand.checkBounds(spec, shards, sliceSize, maxAttempts);
        if (deadLetterQueue != null) {
            Names.checkDestination(deadLetterQueue);
        }
        try (AdminSession broker = connection.adminSession()) {
            DestinationInfo before = QueueCommand.require(broker.admin(), name);
            DestinationInfo d = before;
            if (shards != null || sliceSize != null || maxAttempts != null || deadLetterQueue != null) {
                d = broker.admin().alterQueue(name, shards, sliceSize, maxAttempts, deadLetterQueue);
            }
            d = policy.apply(broker.admin(), name, d);
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
