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
        name = "stop",
        description = {
            "Stop sending to a queue or receiving from it.",
            "--enqueue stops producers (they get an error), --dequeue stops consumers (they wait); neither flag means both. Messages stay where they are; undo with 'queue start'."
        })
final class QueueStopCommand implements Callable<Integer> {
    @Mixin
    HelpOption help;

    @Parameters(paramLabel = "NAME", description = QueueCommand.NAME_HELP)
    String name;

    @Option(names = "--enqueue", description = "stop sending")
    boolean enqueue;

    @Option(names = "--dequeue", description = "stop receiving")
    boolean dequeue;

    @Mixin
    ConnectionOptions connection;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        Names.checkDestination(name);
        boolean both = !enqueue && !dequeue;
        try (Broker broker = connection.startBroker("queue stop")) {
            QueueCommand.require(broker.admin(), name);
            DestinationInfo d = broker.admin().stop(name, enqueue || both, dequeue || both);
            spec.commandLine().getOut().println(state(d));
            return 0;
        }
    }

    /** "queue orders: enqueue on, dequeue off" */
    static String state(DestinationInfo d) {
        return "queue " + d.name() + ": enqueue " + Format.onOff(d.enqueueEnabled()) + ", dequeue "
                + Format.onOff(d.dequeueEnabled());
    }
}
