package io.shardq.cli;

import io.shardq.broker.Admin;
import io.shardq.broker.catalog.Names;
import io.shardq.broker.selector.Selector;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "add",
        description = {
            "Add a durable subscription to a topic (like Oracle's ADD_SUBSCRIBER).",
            "It keeps every message published from now on (matching --selector) until a consumer takes it, whether or not a consumer is attached. JMS consumers attach with createSharedDurableConsumer(topic, NAME) on a connection without a client id."
        })
final class SubscriptionAddCommand implements Callable<Integer> {
    @Mixin
    CommandContext cli;

    @Parameters(index = "0", paramLabel = "TOPIC", description = TopicCommand.NAME_HELP)
    String topic;

    @Parameters(index = "1", paramLabel = "NAME", description = SubscriptionCommand.NAME_HELP)
    String name;

    @Option(
            names = "--selector",
            paramLabel = "EXPR",
            description = "JMS message selector, e.g. \"region = 'EU' AND amount > 100\": only matching messages"
                    + " are kept for it (evaluated once, when a message is published)")
    String selector;

    @Override
    public Integer call() {
        Names.checkDestination(topic);
        boolean filtered = selector != null && !selector.isBlank();
        if (filtered) {
            Selector.compile(selector); // before starting an instance: a typo is the common mistake
        }
        try (AdminSession broker = cli.connection.adminSession()) {
            Admin admin = broker.admin();
            TopicCommand.require(admin, topic);
            admin.topics().addSubscriber(topic, name, selector);
            cli.spec
                    .commandLine()
                    .getOut()
                    .println("added subscription " + name + " to topic " + topic + ": it keeps "
                            + (filtered ? "the messages matching " + selector.strip() : "every message")
                            + " published from now on");
            return 0;
        }
    }
}
