package io.shardq.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.shardq.broker.SubscriptionStats;
import io.shardq.broker.TopicInfo;
import io.shardq.broker.TopicStats;
import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.catalog.Names;
import io.shardq.tools.TextTable;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

@Command(
        name = "stats",
        description = {
            "Show what a topic holds, which subscription holds back retirement, its shards and subscriptions.",
            "A slice is retired once every subscription has passed it: per shard the slowest cursor, whose it is and the messages retained behind the head; per subscription its lag, the age of its oldest unconsumed message and whether it holds retirement."
        })
final class TopicStatsCommand implements Callable<Integer> {
    @Mixin
    CommandContext cli;

    @Parameters(paramLabel = "NAME", description = TopicCommand.NAME_HELP)
    String name;

    @Mixin
    JsonOption output;

    @Override
    public Integer call() {
        Names.checkDestination(name);
        PrintWriter out = cli.spec.commandLine().getOut();
        try (AdminSession broker = cli.connection.adminSession()) {
            TopicCommand.require(broker.admin(), name);
            TopicStats s = broker.admin().topics().stats(name);
            if (output.json) {
                Json.print(out, json(s));
            } else {
                print(out, s);
            }
            return 0;
        }
    }

    private static void print(PrintWriter out, TopicStats s) {
        TopicInfo t = s.topic();
        out.println("topic " + t.name());
        out.println("  settings         " + TopicCommand.settings(t));
        out.println("  published        " + Format.messages(s.published()) + " stored since the topic was created");
        out.println("  retained         " + Format.messages(t.retained()) + " not yet passed by every subscription");
        out.println("  oldest retained  "
                + (s.oldestRetainedMillis() == null ? "-" : Format.duration(s.oldestRetainedMillis()) + " old"));
        out.println("  slices           " + s.slicesInUse() + " in use, " + s.slicesFree() + " free");
        out.println("  table size       " + Format.bytes(s.tableBytes()) + ", " + Format.count(s.deadTuples())
                + " dead tuples");
        out.println("  subscriptions    " + Format.count(s.subscriptions().size()));
        List<SubscriptionStats> holding = s.holdingRetirement();
        out.println("  retirement       "
                + (holding.isEmpty()
                        ? "not held: every slice all subscriptions have passed can be retired"
                        : "held by " + TopicDropCommand.subscriptions(holding.size())));
        if (!holding.isEmpty()) {
            out.println();
            for (SubscriptionStats h : holding) {
                out.println(SubscriptionCommand.retirementHeld(h));
            }
            if (t.maxLag() == null && t.maxAgeSeconds() == null) {
                String which = holding.size() == 1 ? holding.get(0).name() : "NAME";
                out.println("(consume it, remove it with shardq subscription remove " + t.name() + " " + which
                        + ", or let its backlog expire: shardq topic alter " + t.name()
                        + " --max-lag N or --max-age DURATION)");
            }
        }
        out.println();
        TextTable shards =
                Format.table("SHARD", "NEXT SEQ", "SLOWEST CURSOR", "SLOWEST SUBSCRIPTION", "RETAINED", "SLICES");
        for (TopicStats.Shard sh : s.shards()) {
            shards.row(
                    sh.shardNo(),
                    sh.nextSeq(),
                    sh.slowestPosition(),
                    sh.slowestSubscription() == null || sh.retained() == 0
                            ? null // every subscription is at the head: nobody is behind
                            : TopicCommand.subscription(sh.slowestSubscription(), sh.slowestClientId())
                                    + (sh.slowestCount() > 1 ? " (+" + (sh.slowestCount() - 1) + " more)" : ""),
                    sh.retained(),
                    sh.slicesInUse());
        }
        shards.print(out);
        if (!s.subscriptions().isEmpty()) {
            out.println();
            SubscriptionCommand.table(s.subscriptions()).print(out);
        }
    }

    /** A topic's settings and policy, as {@code topic list --json} shows each topic. */
    static ObjectNode json(TopicInfo t) {
        DestinationInfo d = t.destination();
        ObjectNode o = Json.object();
        o.put("name", d.name());
        o.put("shards", d.shardCount());
        o.put("sliceSize", d.sliceSize());
        o.put("maxAttempts", d.maxAttempts());
        o.put("deadLetterQueue", d.deadLetterQueue());
        o.put("enqueueEnabled", d.enqueueEnabled());
        o.put("dequeueEnabled", d.dequeueEnabled());
        if (t.maxLag() == null) {
            o.putNull("maxLag");
        } else {
            o.put("maxLag", t.maxLag());
        }
        if (t.maxAgeSeconds() == null) {
            o.putNull("maxAgeSeconds");
        } else {
            o.put("maxAgeSeconds", t.maxAgeSeconds());
        }
        o.put("subscriptions", t.subscriptions());
        o.put("retained", t.retained());
        return o;
    }

    /** {@code topic stats --json} (and the console's {@code /api/topics/NAME}). */
    static ObjectNode json(TopicStats s) {
        // as queue stats: "shardCount", and "shards" and "subscriptions" are the lists
        ObjectNode o = Json.object();
        o.put("name", s.topic().name());
        o.put("shardCount", s.topic().destination().shardCount());
        ObjectNode settings = json(s.topic());
        settings.remove(List.of("name", "shards", "subscriptions"));
        o.setAll(settings);
        o.put("published", s.published());
        if (s.oldestRetainedMillis() == null) {
            o.putNull("oldestRetainedAgeMillis");
        } else {
            o.put("oldestRetainedAgeMillis", s.oldestRetainedMillis());
        }
        o.put("slicesInUse", s.slicesInUse());
        o.put("slicesFree", s.slicesFree());
        o.put("tableBytes", s.tableBytes());
        o.put("deadTuples", s.deadTuples());
        ArrayNode held = o.putArray("retirementHeldBy");
        for (SubscriptionStats h : s.holdingRetirement()) {
            ObjectNode x = held.addObject();
            x.put("name", h.name());
            x.put("clientId", h.clientId());
            x.put("lag", h.lag());
            if (h.oldestAgeMillis() == null) {
                x.putNull("oldestAgeMillis");
            } else {
                x.put("oldestAgeMillis", h.oldestAgeMillis());
            }
        }
        ArrayNode shards = o.putArray("shards");
        for (TopicStats.Shard sh : s.shards()) {
            ObjectNode x = shards.addObject();
            x.put("shard", sh.shardNo());
            x.put("nextSeq", sh.nextSeq());
            if (sh.slowestPosition() == null) {
                x.putNull("slowestCursor");
            } else {
                x.put("slowestCursor", sh.slowestPosition());
            }
            x.put("slowestSubscription", sh.slowestSubscription());
            x.put("slowestClientId", sh.slowestClientId());
            x.put("subscriptionsAtSlowest", sh.slowestCount());
            x.put("retained", sh.retained());
            if (sh.oldestRetainedMillis() == null) {
                x.putNull("oldestRetainedAgeMillis");
            } else {
                x.put("oldestRetainedAgeMillis", sh.oldestRetainedMillis());
            }
            x.put("slicesInUse", sh.slicesInUse());
            x.put("slicesFree", sh.slicesFree());
            x.put("tableBytes", sh.tableBytes());
            if (sh.ownerInstance() == 0) {
                x.putNull("ownerInstance");
            } else {
                x.put("ownerInstance", sh.ownerInstance());
            }
        }
        o.set("subscriptions", SubscriptionCommand.json(s.subscriptions()));
        return o;
    }
}
