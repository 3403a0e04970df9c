package io.shardq.cli;

import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.catalog.Names;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
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
    CommandContext cli;

    @Parameters(paramLabel = "NAME", description = QueueCommand.NAME_HELP)
    String name;

    @Mixin
    AlterOptions storage;

    @Mixin
    DeliveryPolicyOptions policy;

    @Override
    public Integer call() {
        if (!storage.given() && !policy.given()) {
            throw new CommandLine.ParameterException(
                    cli.spec.commandLine(),
                    "nothing to change: give " + AlterOptions.NAMES + ", " + DeliveryPolicyOptions.NAMES);
        }
        policy.check(cli.spec.commandLine());
        Names.checkDestination(name);
        storage.check(cli.spec);
        try (AdminSession broker = cli.connection.adminSession()) {
            DestinationInfo before = QueueCommand.require(broker.admin(), name);
            DestinationInfo d = before;
            if (storage.given()) {
                d = broker.admin()
                        .queues()
                        .alter(name, storage.shards, storage.sliceSize, storage.maxAttempts, storage.deadLetterQueue);
            }
            d = policy.apply(broker.admin(), name, d);
            cli.spec
                    .commandLine()
                    .getOut()
                    .println((d.equals(before)
                                    ? "queue " + d.name() + " unchanged: "
                                    : "altered queue " + d.name() + ": ")
                            + QueueCommand.settings(d));
            return 0;
        }
    }
}
