package io.shardq.cli;

import io.shardq.broker.Broker;
import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.catalog.Names;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "start",
        description = {
            "Let producers send to a queue and consumers receive from it again.",
            "--enqueue starts sending, --dequeue receiving; neither flag means both."
        })
final class QueueStartCommand implements Callable<Integer> {
    @Mixin
    HelpOption help;

    @Parameters(paramLabel = "NAME", description = QueueCommand.NAME_HELP)
    String name;

    @Option(names = "--enqueue", description = "start sending")
    boolean enqueue;

    @Option(names = "--dequeue", description = "start receiving")
    boolean dequeue;

    @Mixin
    ConnectionOptions connection;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        Names.checkDestination(name);
        boolean both = !enqueue && !dequeue;
        try (Broker broker = connection.startBroker("queue start")) {
            QueueCommand.require(broker.admin(), name);
            DestinationInfo d = broker.admin().start(name, enqueue || both, dequeue || both);
            spec.commandLine().getOut().println(QueueStopCommand.state(d));
            return 0;
        }
    }
}
