package io.shardq.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.shardq.broker.Admin;
import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.tools.TextTable;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

@Command(
        name = "list",
        description = "List the queues with their settings and how many messages wait in each;"
                + " temporary queues (JMS TemporaryQueue) show their owning instance.")
final class QueueListCommand implements Callable<Integer> {
    @Mixin
    CommandContext cli;

    @Mixin
    JsonOption output;

    @Override
    public Integer call() {
        PrintWriter out = cli.spec.commandLine().getOut();
        try (AdminSession broker = cli.connection.adminSession()) {
            List<DestinationInfo> queues = broker.admin().list().stream()
                    .filter(DestinationInfo::isQueue)
                    .toList();
            Map<String, Admin.Temporary> temporary = broker.admin().cluster().temporaryDestinations().stream()
                    .collect(Collectors.toMap(Admin.Temporary::name, t -> t));
            TextTable table = Format.table(
                    "QUEUE",
                    "SHARDS",
                    "SLICE SIZE",
                    "MAX ATTEMPTS",
                    "DEAD LETTERS TO",
                    "ENQUEUE",
                    "DEQUEUE",
                    "TEMPORARY",
                    "WAITING");
            ArrayNode json = Json.array();
            for (DestinationInfo d : queues) {
                long backlog = broker.admin().queues().backlog(d.name());
                Admin.Temporary t = temporary.get(d.name());
                table.row(
                        d.name(),
                        d.shardCount(),
                        d.sliceSize(),
                        d.maxAttempts(),
                        d.deadLetterQueue(),
                        Format.onOff(d.enqueueEnabled()),
                        Format.onOff(d.dequeueEnabled()),
                        t == null ? "-" : "instance " + t.instanceId() + (t.ownerAlive() ? "" : " (dead)"),
                        backlog);
                json.add(json(d, backlog, t));
            }
            if (output.json) {
                Json.print(out, json);
            } else if (table.isEmpty()) {
                out.println("no queues yet (create one: shardq queue create NAME)");
            } else {
                table.print(out);
            }
            return 0;
        }
    }

    /** One queue as {@code queue list --json} shows it (and the console's {@code /api/queues}). */
    static ObjectNode json(DestinationInfo d, long backlog, Admin.Temporary t) {
        ObjectNode o = Json.object();
        o.put("name", d.name());
        o.put("shards", d.shardCount());
        o.put("sliceSize", d.sliceSize());
        o.put("maxAttempts", d.maxAttempts());
        o.put("deadLetterQueue", d.deadLetterQueue());
        o.put("enqueueEnabled", d.enqueueEnabled());
        o.put("dequeueEnabled", d.dequeueEnabled());
        o.put("backlog", backlog);
        o.put("temporary", t != null);
        if (t != null) {
            o.put("ownerInstance", t.instanceId());
            o.put("ownerAlive", t.ownerAlive());
        }
        return o;
    }
}
