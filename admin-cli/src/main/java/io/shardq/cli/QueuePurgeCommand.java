package io.shardq.cli;

import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.catalog.Names;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "purge",
        description = {
            "Discard every waiting message of a queue and say how many there were.",
            "One transaction: consumer cursors jump to the end and the slices are truncated.",
            "Refuses a queue holding messages unless --force, as drop does."
        })
final class QueuePurgeCommand implements Callable<Integer> {
    @Mixin
    CommandContext cli;

    @Parameters(paramLabel = "NAME", description = QueueCommand.NAME_HELP)
    String name;

    @Option(
            names = "--force",
            description = "discard the waiting messages (without it, a queue holding messages is refused)")
    boolean force;

    @Override
    public Integer call() {
        Names.checkDestination(name);
        try (AdminSession broker = cli.connection.adminSession()) {
            DestinationInfo d = QueueCommand.require(broker.admin(), name);
            long waiting = broker.admin().queues().backlog(name);
            if (waiting > 0 && !force) {
                throw new ShardQException(
                        ErrorKind.ILLEGAL_STATE,
                        "queue " + name + " holds " + Format.messages(waiting) + "; purge discards them: add --force"
                                + " (or keep them: shardq queue drain " + name + " --to FILE)");
            }
            // one statement: progress can only be its elapsed time
            Progress progress = Progress.forTerminal(
                            cli.spec.commandLine().getErr(), "purging " + Format.messages(waiting) + " from " + name, 0)
                    .tick();
            long purged;
            try {
                purged = broker.admin().queues().purge(name);
            } finally {
                progress.finish();
            }
            cli.spec
                    .commandLine()
                    .getOut()
                    .println("purged queue " + name + ": " + Format.messages(purged) + " discarded in "
                            + Format.duration(progress.elapsedMillis()));
            return 0;
        }
    }
}
