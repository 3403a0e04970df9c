package io.shardq.cli;

import io.shardq.broker.BrokerProperty;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.catalog.Names;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "create", description = "Create a queue.")
final class QueueCreateCommand implements Callable<Integer> {
    @Mixin
    CommandContext cli;

    @Parameters(paramLabel = "NAME", description = QueueCommand.NAME_HELP)
    String name;

    @Option(
            names = "--shards",
            paramLabel = "N",
            description = "shards, 1 to 256: ordered logs that producers and consumers use in parallel"
                    + " (default: $SHARDQ_DEFAULT_SHARDS or 4)")
    Integer shards;

    @Option(
            names = "--slice-size",
            paramLabel = "N",
            description = "messages per slice (one partition; emptied by TRUNCATE once consumed),"
                    + " 16 to 100000000 (default: 20000)")
    Integer sliceSize;

    @Option(
            names = "--max-attempts",
            paramLabel = "N",
            description = "deliveries of a message before it goes to the dead-letter queue (default: 5)")
    Integer maxAttempts;

    @Override
    public Integer call() {
        Names.checkDestination(name);
        QueueCommand.checkBounds(cli.spec, shards, sliceSize, maxAttempts);
        try (AdminSession broker = cli.connection.adminSession()) {
            QueueOptions o = QueueOptions.DEFAULTS.withShards(
                    shards != null ? shards : broker.config().getInt(BrokerProperty.DEFAULT_SHARDS));
            if (sliceSize != null) {
                o = o.withSliceSize(sliceSize);
            }
            if (maxAttempts != null) {
                o = o.withMaxAttempts(maxAttempts);
            }
            DestinationInfo d = broker.admin().queues().create(name, o);
            cli.spec.commandLine().getOut().println("created queue " + d.name() + ": " + QueueCommand.settings(d));
            return 0;
        }
    }
}
