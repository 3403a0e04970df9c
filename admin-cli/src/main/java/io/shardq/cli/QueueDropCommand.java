package io.shardq.cli;

import io.shardq.broker.Admin;
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
        name = "drop",
        description = {
            "Drop a queue and its tables.",
            "Refuses a queue that still holds messages unless --force. Its dead-letter queue is a queue of its own and is kept."
        })
final class QueueDropCommand implements Callable<Integer> {
    @Mixin
    CommandContext cli;

    @Parameters(paramLabel = "NAME", description = QueueCommand.NAME_HELP)
    String name;

    @Option(names = "--force", description = "drop it even if messages are waiting (they are lost)")
    boolean force;

    @Override
    public Integer call() {
        Names.checkDestination(name);
        try (AdminSession broker = cli.connection.adminSession()) {
            Admin admin = broker.admin();
            DestinationInfo d = QueueCommand.require(admin, name);
            long backlog = broker.admin().queues().backlog(d.name());
            if (backlog > 0 && !force) {
                // the engine refuses too (in the same statement as the drop); this says it in CLI terms
                throw new ShardQException(
                        ErrorKind.ILLEGAL_STATE,
                        "queue " + name + " is not empty: " + Format.messages(backlog) + " waiting; drain it first"
                                + " (shardq queue drain " + name + " --to FILE) or drop it anyway with --force");
            }
            admin.queues().drop(name, force);
            String dlq = d.deadLetterQueue();
            boolean dlqExists = admin.list().stream().anyMatch(x -> x.name().equals(dlq));
            cli.spec
                    .commandLine()
                    .getOut()
                    .println("dropped queue " + name
                            + (backlog > 0 ? " and the " + Format.messages(backlog) + " it held" : "")
                            + (dlqExists ? " (its dead-letter queue " + dlq + " is kept)" : ""));
            return 0;
        }
    }
}
