package io.shardq.cli;

import io.shardq.broker.Admin;
import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.catalog.Names;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code queue start} and {@code queue stop}: the same options, a different switch. */
abstract class QueueSwitchCommand implements Callable<Integer> {
    @Mixin
    CommandContext cli;

    @Parameters(paramLabel = "NAME", description = QueueCommand.NAME_HELP)
    String name;

    @Option(names = "--enqueue", description = "only sending (enqueue)")
    boolean enqueue;

    @Option(names = "--dequeue", description = "only receiving (dequeue)")
    boolean dequeue;

    /** The command's name, for messages. */
    abstract String verb();

    /** Flips the chosen switches. */
    abstract DestinationInfo apply(Admin admin, String name, boolean enqueue, boolean dequeue);

    @Override
    public Integer call() {
        Names.checkDestination(name);
        boolean both = !enqueue && !dequeue;
        try (AdminSession broker = cli.connection.adminSession()) {
            QueueCommand.require(broker.admin(), name);
            DestinationInfo d = apply(broker.admin(), name, enqueue || both, dequeue || both);
            cli.spec.commandLine().getOut().println(state(d));
            return 0;
        }
    }

    /** "queue orders: enqueue on, dequeue off" */
    static String state(DestinationInfo d) {
        return "queue " + d.name() + ": enqueue " + Format.onOff(d.enqueueEnabled()) + ", dequeue "
                + Format.onOff(d.dequeueEnabled());
    }
}
