package io.shardq.cli;

import io.shardq.broker.Admin;
import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.catalog.Names;
import io.shardq.broker.selector.Selector;
import io.shardq.broker.shard.BrokerSession;
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

    /**
     * Selects the dead letters that came from {@code queue} (or from nowhere known): a dead-letter
     * queue may be shared by several queues. Queue names are validated, so quoting is safe.
     */
    static Selector lettersOf(String queue) {
        return Selector.compile(BrokerSession.ORIGINAL_DESTINATION + " = '" + Names.checkDestination(queue) + "' OR "
                + BrokerSession.ORIGINAL_DESTINATION + " IS NULL");
    }

    /** The dead-letter queue of {@code queue}, if it exists yet (the first dead letter creates it). */
    static Optional<DestinationInfo> deadLetterQueue(Admin admin, DestinationInfo queue) {
        String dlq = queue.deadLetterQueue();
        return admin.list().stream().filter(d -> d.name().equals(dlq)).findFirst();
    }
}
