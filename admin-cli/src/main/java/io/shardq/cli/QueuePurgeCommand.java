package io.shardq.cli;

import io.shardq.broker.Broker;
import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.catalog.Names;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

@Command(
        name = "purge",
        description = {
            "Discard every waiting message of a queue and say how many there were.",
            "One transaction: consumer cursors jump to the end and the slices are truncated."
        })
final class QueuePurgeCommand implements Callable<Integer> {
    @Mixin
    HelpOption help;

    @Parameters(paramLabel = "NAME", description = QueueCommand.NAME_HELP)
    String name;

    @Mixin
    ConnectionOptions connection;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        Names.checkDestination(name);
        try (Broker broker = connection.startBroker("queue purge")) {
            DestinationInfo d = QueueCommand.require(broker.admin(), name);
            long waiting = broker.admin().backlog(name);
            // one statement: progress can only be its elapsed time
            Progress progress = Progress.forTerminal(
                            spec.commandLine().getErr(), "purging " + Format.messages(waiting) + " from " + name, 0)
                    .tick();
            long purged;
            try {
                purged = broker.admin().purge(name);
            } finally {
                progress.finish();
            }
            spec.commandLine()
                    .getOut()
                    .println("purged queue " + name + ": " + Format.messages(purged) + " discarded in "
                            + Format.duration(progress.elapsedMillis()));
            return 0;
        }
    }
}
