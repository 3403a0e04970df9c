package io.shardq.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import io.shardq.broker.Broker;
import io.shardq.broker.TopicInfo;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

@Command(
        name = "list",
        description = "List the topics with their settings, expiry policy, subscriptions and retained messages.")
final class TopicListCommand implements Callable<Integer> {
    @Mixin
    HelpOption help;

    @Mixin
    JsonOption output;

    @Mixin
    ConnectionOptions connection;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        try (Broker broker = connection.startBroker("topic list")) {
            List<TopicInfo> topics = broker.admin().topics();
            Table table = new Table(
                    "TOPIC",
                    "SHARDS",
                    "SLICE SIZE",
                    "MAX ATTEMPTS",
                    "DEAD LETTERS TO",
                    "MAX LAG",
                    "MAX AGE",
                    "SUBSCRIPTIONS",
                    "RETAINED");
            ArrayNode json = Json.array();
            for (TopicInfo t : topics) {
                table.row(
                        t.name(),
                        t.destination().shardCount(),
                        t.destination().sliceSize(),
                        t.destination().maxAttempts(),
                        t.destination().deadLetterQueue(),
                        t.maxLag(),
                        t.maxAgeSeconds() == null ? null : TopicCommand.age(t.maxAgeSeconds()),
                        t.subscriptions(),
                        t.retained());
                json.add(TopicStatsCommand.json(t));
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
}
