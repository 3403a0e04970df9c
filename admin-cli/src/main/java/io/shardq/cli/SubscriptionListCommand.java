package io.shardq.cli;

import io.shardq.broker.SubscriptionStats;
import io.shardq.broker.catalog.Names;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

@Command(
        name = "list",
        description = {
            "List a topic's subscriptions: kind, selector, consumers, lag, oldest unconsumed message, who holds retirement and what the expiry policy took.",
            "LAG counts the messages published after its cursor (an upper bound: it skips those its selector left out). RETIREMENT 'held': a slice every other subscription has passed waits for this one."
        })
final class SubscriptionListCommand implements Callable<Integer> {
    @Mixin
    CommandContext cli;

    @Parameters(paramLabel = "TOPIC", description = TopicCommand.NAME_HELP)
    String topic;

    @Mixin
    JsonOption output;

    @Override
    public Integer call() {
        Names.checkDestination(topic);
        PrintWriter out = cli.spec.commandLine().getOut();
        try (AdminSession broker = cli.connection.adminSession()) {
            TopicCommand.require(broker.admin(), topic);
            List<SubscriptionStats> subs = broker.admin().topics().subscriptions(topic);
            if (output.json) {
                com.fasterxml.jackson.databind.node.ObjectNode o = Json.object();
                o.put("topic", topic);
                o.set("subscriptions", SubscriptionCommand.json(subs));
                Json.print(out, o);
            } else if (subs.isEmpty()) {
                out.println("topic " + topic + " has no subscriptions yet (add one: shardq subscription add " + topic
                        + " NAME)");
            } else {
                SubscriptionCommand.table(subs).print(out);
                List<SubscriptionStats> holding =
                        subs.stream().filter(SubscriptionStats::holdsRetirement).toList();
                if (!holding.isEmpty()) {
                    out.println();
                    holding.forEach(h -> out.println(SubscriptionCommand.retirementHeld(h)));
                }
            }
            return 0;
        }
    }
}
