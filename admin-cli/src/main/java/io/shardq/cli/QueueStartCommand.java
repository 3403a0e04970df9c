package io.shardq.cli;

import io.shardq.broker.Admin;
import io.shardq.broker.catalog.DestinationInfo;
import picocli.CommandLine.Command;

@Command(
        name = "start",
        description = {
            "Let producers send to a queue and consumers receive from it again.",
            "--enqueue starts sending, --dequeue receiving; neither flag means both."
        })
final class QueueStartCommand extends QueueSwitchCommand {
    @Override
    String verb() {
        return "start";
    }

    @Override
    DestinationInfo apply(Admin admin, String name, boolean enqueue, boolean dequeue) {
        return admin.queues().start(name, enqueue, dequeue);
    }
}
