package io.shardq.cli;

import io.shardq.broker.Admin;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.catalog.Names;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code shardq queue ...}: the queue commands. Run alone, it lists them. */
@Command(
        name = "queue",
        description = "Create, change, inspect, empty and move the messages of queues.",
        subcommands = {
            QueueCreateCommand.class,
            QueueAlterCommand.class,
            QueueDropCommand.class,
            QueueStartCommand.class,
            QueueStopCommand.class,
            QueueListCommand.class,
            QueueStatsCommand.class,
            QueueBrowseCommand.class,
            QueuePurgeCommand.class,
            QueueDrainCommand.class,
            QueueLoadCommand.class
        })
final class QueueCommand implements Runnable {
    @Mixin
    HelpOption help;

    static final String NAME_HELP =
            "queue name: 1 to 64 characters from [A-Za-z0-9_.-], starting with a letter or digit";

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /**
     * The bounds {@code shardq.create_queue} enforces, checked before anything starts, so that
     * {@code --shards 0} is refused at once (the same words as the database's refusal).
     */
    static void checkBounds(
            CommandLine.Model.CommandSpec spec, Integer shards, Integer sliceSize, Integer maxAttempts) {
        if (shards != null && (shards < 1 || shards > 256)) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "--shards " + shards + " is invalid: expected 1 to 256");
        }
        if (sliceSize != null && (sliceSize < 16 || sliceSize > 100_000_000)) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "--slice-size " + sliceSize + " is invalid: expected 16 to 100000000 messages");
        }
        if (maxAttempts != null && maxAttempts < 1) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "--max-attempts " + maxAttempts + " is invalid: expected 1 or more");
        }
    }

    /** The queue called {@code name}: a clear error when the name is malformed, unknown or a topic. */
    static DestinationInfo require(Admin admin, String name) {
        DestinationInfo d;
        try {
            d = admin.require(Names.checkDestination(name));
        } catch (ShardQException e) {
            if (e.kind() != ErrorKind.UNKNOWN_DESTINATION) {
                throw e;
            }
            throw new ShardQException(
                    ErrorKind.UNKNOWN_DESTINATION,
                    "queue \"" + name + "\" does not exist (shardq queue list shows the queues)",
                    e);
        }
        if (!d.isQueue()) {
            throw new ShardQException(
                    ErrorKind.INVALID_ARGUMENT, "\"" + name + "\" is a " + d.kind() + ", not a queue");
        }
        return d;
    }

    /** "4 shards, slices of 20,000 messages, 5 delivery attempts, dead letters to q.DLQ, enqueue on, dequeue on" */
    /** While the destination shrinks: which shards drain, and to how many it goes. */
    static String draining(DestinationInfo d) {
        if (!d.shrinking()) {
            return "";
        }
        int from = d.activeShards();
        int last = d.shardCount() - 1;
        return " (shrinking to " + from + ": "
                + (from == last ? "shard " + from + " is" : "shards " + from + " to " + last + " are") + " draining)";
    }

    static String settings(DestinationInfo d) {
        return d.shardCount() + (d.shardCount() == 1 ? " shard" : " shards") + draining(d) + ", slices of "
                + Format.messages(d.sliceSize()) + ", " + d.maxAttempts() + " delivery attempt"
                + (d.maxAttempts() == 1 ? "" : "s") + ", dead letters to " + d.deadLetterQueue()
                + DeliveryPolicyOptions.describe(d)
                + ", enqueue " + Format.onOff(d.enqueueEnabled()) + ", dequeue " + Format.onOff(d.dequeueEnabled());
    }
}
