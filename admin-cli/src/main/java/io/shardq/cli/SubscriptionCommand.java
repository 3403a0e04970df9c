package io.shardq.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.shardq.broker.SubscriptionStats;
import io.shardq.tools.TextTable;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code shardq subscription ...}: a topic's subscriptions. Run alone, it lists the commands. */
@Command(
        name = "subscription",
        description = "Add, remove and list the subscriptions of a topic, with their lag and who holds retirement.",
        subcommands = {SubscriptionAddCommand.class, SubscriptionRemoveCommand.class, SubscriptionListCommand.class})
final class SubscriptionCommand implements Runnable {
    @Mixin
    HelpOption help;

    static final String NAME_HELP = "subscription name: 1 to 255 characters, no control characters";

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** "retirement held by subscription audit: lag 900 messages, oldest 12.3 s old" */
    static String retirementHeld(SubscriptionStats s) {
        return "retirement held by subscription " + TopicCommand.subscription(s.name(), s.clientId()) + ": lag "
                + Format.messages(s.lag()) + ", oldest "
                + (s.oldestAgeMillis() == null ? "-" : Format.duration(s.oldestAgeMillis()) + " old");
    }

    static TextTable table(List<SubscriptionStats> subscriptions) {
        TextTable t = Format.table(
                "SUBSCRIPTION", "CLIENT ID", "KIND", "SELECTOR", "CONSUMERS", "LAG", "OLDEST", "RETIREMENT", "EXPIRED");
        for (SubscriptionStats s : subscriptions) {
            t.row(
                    s.name(),
                    s.clientId(),
                    s.kind() + (s.noLocal() ? ", noLocal" : ""),
                    s.selector(),
                    s.consumers(),
                    s.lag(),
                    s.oldestAgeMillis() == null ? null : Format.duration(s.oldestAgeMillis()),
                    s.holdsRetirement() ? "held" : null,
                    s.expiredSeqs() == 0
                            ? null
                            : Format.count(s.expiredSeqs()) + " at "
                                    + Format.instant(s.expiredAt().toEpochMilli()));
        }
        return t;
    }

    static ArrayNode json(List<SubscriptionStats> subscriptions) {
        ArrayNode a = Json.array();
        for (SubscriptionStats s : subscriptions) {
            ObjectNode o = a.addObject();
            o.put("name", s.name());
            o.put("clientId", s.clientId());
            o.put("kind", s.kind());
            o.put("selector", s.selector());
            o.put("noLocal", s.noLocal());
            o.put("bit", s.bit());
            o.put("consumers", s.consumers());
            o.put("lag", s.lag());
            if (s.oldestAgeMillis() == null) {
                o.putNull("oldestAgeMillis");
            } else {
                o.put("oldestAgeMillis", s.oldestAgeMillis());
            }
            o.put("holdsRetirement", s.holdsRetirement());
            o.put("expired", s.expiredSeqs());
            o.put("expiredAt", s.expiredAt() == null ? null : s.expiredAt().toString());
            o.put("createdAt", s.createdAt().toString());
        }
        return a;
    }
}
