package io.shardq.cli;

import io.shardq.broker.Admin;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.SubscriptionStats;
import io.shardq.broker.catalog.Names;
import java.util.Objects;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "remove",
        description = {
            "Remove a subscription from a topic; the messages it had not consumed are no longer kept for it.",
            "Refuses a subscription with an active consumer unless --force. A JMS durable subscription created on a connection with a client id is named by --client-id too."
        })
final class SubscriptionRemoveCommand implements Callable<Integer> {
    @Mixin
    CommandContext cli;

    @Parameters(index = "0", paramLabel = "TOPIC", description = TopicCommand.NAME_HELP)
    String topic;

    @Parameters(index = "1", paramLabel = "NAME", description = SubscriptionCommand.NAME_HELP)
    String name;

    @Option(
            names = "--client-id",
            paramLabel = "ID",
            description = "the client id of a JMS durable subscription (shardq subscription list shows it)")
    String clientId;

    @Option(names = "--force", description = "remove it even while consumers are attached (they then fail)")
    boolean force;

    @Override
    public Integer call() {
        Names.checkDestination(topic);
        try (AdminSession broker = cli.connection.adminSession()) {
            Admin admin = broker.admin();
            TopicCommand.require(admin, topic);
            SubscriptionStats s = admin.topics().subscriptions(topic).stream()
                    .filter(x -> x.name().equals(name) && Objects.equals(x.clientId(), clientId))
                    .findFirst()
                    .orElseThrow(() -> new ShardQException(
                            ErrorKind.UNKNOWN_DESTINATION,
                            "subscription \"" + TopicCommand.subscription(name, clientId) + "\" of topic " + topic
                                    + " does not exist (shardq subscription list " + topic + " shows them)"));
            if (s.consumers() > 0 && !force) {
                // the engine refuses too (in the same statement as the removal); this says it in CLI terms
                throw new ShardQException(
                        ErrorKind.ILLEGAL_STATE,
                        "subscription " + TopicCommand.subscription(name, clientId) + " of topic " + topic + " has "
                                + s.consumers() + (s.consumers() == 1 ? " active consumer" : " active consumers")
                                + ": close " + (s.consumers() == 1 ? "it" : "them")
                                + " first, or remove it anyway with --force (they then fail)");
            }
            admin.topics().removeSubscriber(topic, name, clientId, force);
            cli.spec
                    .commandLine()
                    .getOut()
                    .println("removed subscription " + TopicCommand.subscription(name, clientId) + " from topic "
                            + topic + (s.lag() > 0 ? " (it was " + Format.messages(s.lag()) + " behind)" : ""));
            return 0;
        }
    }
}
