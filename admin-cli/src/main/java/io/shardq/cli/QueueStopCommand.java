package io.shardq.cli;

import io.shardq.broker.Admin;
import io.shardq.broker.catalog.DestinationInfo;
import picocli.CommandLine.Command;

@Command(
        name = "stop",
        description = {
            "Stop sending to a queue or receiving from it.",
            "--enqueue stops producers (they get an error), --dequeue stops consumers (they wait); neither flag means both. Messages stay where they are; undo with 'queue start'."
        })
final class QueueStopCommand extends QueueSwitchCommand {
    @Override
    String verb() {
        return "stop";
    }

    @Override
    DestinationInfo apply(Admin admin, String name, boolean enqueue, boolean dequeue) {
        return admin.queues().stop(name, enqueue, dequeue);
    }
}
