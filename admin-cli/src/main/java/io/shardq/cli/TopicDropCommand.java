package io.shardq.cli;

import io.shardq.broker.Admin;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.TopicInfo;
import io.shardq.broker.catalog.Names;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "drop",
        description = {
            "Drop a topic, its subscriptions and its tables.",
            "Refuses a topic holding messages that a subscription has not consumed yet unless --force. Its dead-letter queue is a queue of its own and is kept."
        })
final class TopicDropCommand implements Callable<Integer> {
    @Mixin
    CommandContext cli;

    @Parameters(paramLabel = "NAME", description = TopicCommand.NAME_HELP)
    String name;

    @Option(names = "--force", description = "drop it even if subscriptions have messages to consume (they are lost)")
    boolean force;

    @Override
    public Integer call() {
        Names.checkDestination(name);
        try (AdminSession broker = cli.connection.adminSession()) {
            Admin admin = broker.admin();
            TopicInfo t = TopicCommand.require(admin, name);
            long retained = t.retained();
            if (retained > 0 && !force) {
                // the engine refuses too (in the same statement as the drop); this says it in CLI terms
                throw new ShardQException(
                        ErrorKind.ILLEGAL_STATE,
                        "topic " + name + " is not empty: " + Format.messages(retained)
                                + " not yet consumed by every subscription (shardq topic stats " + name
                                + " shows which); drop it anyway with --force");
            }
            admin.topics().drop(name, force);
            String dlq = t.destination().deadLetterQueue();
            boolean dlqExists = admin.list().stream().anyMatch(x -> x.name().equals(dlq));
            cli.spec
                    .commandLine()
                    .getOut()
                    .println("dropped topic " + name
                            + (t.subscriptions() == 0
                                    ? ""
                                    : retained > 0
                                            ? ", its " + subscriptions(t.subscriptions()) + " and the "
                                                    + Format.messages(retained) + " they had not consumed"
                                            : " and its " + subscriptions(t.subscriptions()))
                            + (dlqExists ? " (its dead-letter queue " + dlq + " is kept)" : ""));
            return 0;
        }
    }

    static String subscriptions(long n) {
        return Format.count(n) + (n == 1 ? " subscription" : " subscriptions");
    }
}
