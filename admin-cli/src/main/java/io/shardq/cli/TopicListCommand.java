package io.shardq.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.shardq.broker.Admin;
import io.shardq.broker.TopicInfo;
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
        description = "List the topics with their settings, expiry policy, subscriptions and retained messages.")
final class TopicListCommand implements Callable<Integer> {
    @Mixin
    CommandContext cli;

    @Mixin
    JsonOption output;

    @Override
    public Integer call() {
        PrintWriter out = cli.spec.commandLine().getOut();
        try (AdminSession broker = cli.connection.adminSession()) {
            List<TopicInfo> topics = broker.admin().topics().list();
            // as queue list: a JMS TemporaryTopic is a topic with an owner (its connection's instance)
            Map<String, Admin.Temporary> temporary = broker.admin().cluster().temporaryDestinations().stream()
                    .collect(Collectors.toMap(Admin.Temporary::name, t -> t));
            TextTable table = Format.table(
                    "TOPIC",
                    "SHARDS",
                    "SLICE SIZE",
                    "MAX ATTEMPTS",
                    "DEAD LETTERS TO",
                    "MAX LAG",
                    "MAX AGE",
                    "SUBSCRIPTIONS",
                    "TEMPORARY",
                    "RETAINED");
            ArrayNode json = Json.array();
            for (TopicInfo t : topics) {
                Admin.Temporary tmp = temporary.get(t.name());
                table.row(
                        t.name(),
                        t.destination().shardCount(),
                        t.destination().sliceSize(),
                        t.destination().maxAttempts(),
                        t.destination().deadLetterQueue(),
                        t.maxLag(),
                        t.maxAgeSeconds() == null ? null : TopicCommand.age(t.maxAgeSeconds()),
                        t.subscriptions(),
                        tmp == null ? "-" : "instance " + tmp.instanceId() + (tmp.ownerAlive() ? "" : " (dead)"),
                        t.retained());
                json.add(json(t, tmp));
            }
            if (output.json) {
                Json.print(out, json);
            } else if (table.isEmpty()) {
                out.println("no topics yet (create one: shardq topic create NAME)");
            } else {
                table.print(out);
            }
            return 0;
        }
    }

    /** One topic as {@code topic list --json} shows it (and the console's {@code /api/topics}). */
    static ObjectNode json(TopicInfo t, Admin.Temporary tmp) {
        ObjectNode o = TopicStatsCommand.json(t);
        o.put("temporary", tmp != null);
        if (tmp != null) {
            o.put("ownerInstance", tmp.instanceId());
            o.put("ownerAlive", tmp.ownerAlive());
        }
        return o;
    }
}
