package io.shardq.cli;

import io.shardq.broker.Admin;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.TopicInfo;
import io.shardq.broker.catalog.Names;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "create",
        description = {
            "Create a topic.",
            "A message published to it is stored once and kept until every subscription has passed it. Add subscriptions with 'shardq subscription add', or let JMS consumers create them."
        })
final class TopicCreateCommand implements Callable<Integer> {
    @Mixin
    CommandContext cli;

    @Parameters(paramLabel = "NAME", description = TopicCommand.NAME_HELP)
    String name;

    @Option(
            names = "--shards",
            paramLabel = "N",
            description = "shards, 1 to 256: ordered logs that publishers and consumers use in parallel"
                    + " (default: $SHARDQ_DEFAULT_SHARDS or 4)")
    Integer shards;

    @Option(
            names = "--slice-size",
            paramLabel = "N",
            description = "messages per slice (one partition; emptied by TRUNCATE once every subscription"
                    + " has passed it), 16 to 100000000 (default: 20000)")
    Integer sliceSize;

    @Option(
            names = "--max-attempts",
            paramLabel = "N",
            description = "deliveries of a message to a subscription before it goes to the dead-letter queue"
                    + " (default: 5)")
    Integer maxAttempts;

    @Option(
            names = "--if-not-exists",
            description = "succeed without a change when the topic exists already (its settings are kept)")
    boolean ifNotExists;

    @Override
    public Integer call() {
        Names.checkDestination(name);
        QueueCommand.checkBounds(cli.spec, shards, sliceSize, maxAttempts);
        try (AdminSession broker = cli.connection.adminSession()) {
            Admin admin = broker.admin();
            QueueOptions o = QueueOptions.DEFAULTS.withShards(
                    shards != null ? shards : broker.config().getInt(BrokerProperty.DEFAULT_SHARDS));
            if (sliceSize != null) {
                o = o.withSliceSize(sliceSize);
            }
            if (maxAttempts != null) {
                o = o.withMaxAttempts(maxAttempts);
            }
            boolean existed =
                    ifNotExists && admin.list().stream().anyMatch(d -> d.name().equals(name) && d.isTopic());
            if (ifNotExists) {
                admin.topics().createOrGet(name, o);
            } else {
                admin.topics().create(name, o);
            }
            TopicInfo t = admin.topics().get(name);
            cli.spec
                    .commandLine()
                    .getOut()
                    .println((existed ? "topic " + name + " exists already: " : "created topic " + name + ": ")
                            + TopicCommand.settings(t));
            return 0;
        }
    }
}
