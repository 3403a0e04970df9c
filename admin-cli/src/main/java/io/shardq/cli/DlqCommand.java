package io.shardq.cli;

import io.shardq.broker.Admin;
import io.shardq.broker.catalog.DestinationInfo;
import java.util.Optional;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code shardq dlq ...}: the dead letters of a queue. Run alone, it lists the commands. */
@Command(
        name = "dlq",
        description = {
            "Look at and requeue dead letters.",
            "Dead letters are messages whose delivery failed a queue's max attempts; they wait in its dead-letter queue, NAME.DLQ unless set with 'queue alter --dead-letter-queue'."
        },
        subcommands = {DlqListCommand.class, DlqRequeueCommand.class})
final class DlqCommand implements Runnable {
    @Mixin
    HelpOption help;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** The dead-letter queue of {@code queue}, if it exists yet (the first dead letter creates it). */
    static Optional<DestinationInfo> deadLetterQueue(Admin admin, DestinationInfo queue) {
        String dlq = queue.deadLetterQueue();
        return admin.list().stream().filter(d -> d.name().equals(dlq)).findFirst();
    }
}
