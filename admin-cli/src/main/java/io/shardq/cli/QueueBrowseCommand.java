package io.shardq.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.shardq.broker.Broker;
import io.shardq.broker.browse.BrowseCursor;
import io.shardq.broker.browse.BrowsedMessage;
import io.shardq.broker.catalog.Names;
import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.message.TextBody;
import io.shardq.broker.selector.Selector;
import io.shardq.tools.TextTable;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "browse",
        description = {
            "Show waiting messages without consuming them, oldest first.",
            "With --selector, waiting messages are read in order until --limit of them match or --scan of them were looked at."
        })
final class QueueBrowseCommand implements Callable<Integer> {
    @Mixin
    CommandContext cli;

    @Parameters(paramLabel = "NAME", description = QueueCommand.NAME_HELP)
    String name;

    @Option(names = "--limit", paramLabel = "N", description = "show at most N messages (default: ${DEFAULT-VALUE})")
    int limit = 20;

    @Option(
            names = "--selector",
            paramLabel = "EXPR",
            description = "JMS message selector, e.g. \"JMSPriority > 4 AND region = 'eu'\"")
    String selector;

    @Option(
            names = "--scan",
            paramLabel = "N",
            description = "with --selector: how many waiting messages to look at (default: ${DEFAULT-VALUE})")
    int scan = 10_000;

    @Mixin
    JsonOption output;

    @Override
    public Integer call() {
        Names.checkDestination(name);
        Selector filter = Selector.compile(selector);
        if (limit < 1 || scan < 1) {
            throw new CommandLine.ParameterException(cli.spec.commandLine(), "--limit and --scan must be 1 or more");
        }
        PrintWriter out = cli.spec.commandLine().getOut();
        try (Broker broker = cli.connection.startBroker("queue browse")) {
            QueueCommand.require(broker.admin(), name);
            Browsed b = browse(broker, name, filter, limit, scan);
            if (output.json) {
                Json.print(out, json(b.shown()));
                return 0;
            }
            print(out, b.shown());
            long waiting = broker.admin().queues().backlog(name);
            out.println(summary(b.shown().size(), b.seen(), b.scanEnded(), waiting, filter));
            return 0;
        }
    }

    /** What a browse showed: the messages, how many it looked at, and whether --scan ended it. */
    record Browsed(List<BrowsedMessage> shown, long seen, boolean scanEnded) {}

    /**
     * Up to {@code limit} waiting messages of {@code name} matching {@code filter} (null: all),
     * looking at no more than {@code scan} when filtered: {@code queue browse} and the console's
     * message browser.
     */
    static Browsed browse(Broker broker, String name, Selector filter, int limit, int scan) {
        BrowseCursor.Options options =
                BrowseCursor.Options.DEFAULTS.withMaxExamined(filter == null ? Long.MAX_VALUE : scan);
        List<BrowsedMessage> shown = new ArrayList<>();
        try (BrowseCursor cursor = broker.browse(name, filter, options)) {
            while (shown.size() < limit && cursor.hasNext()) {
                shown.add(cursor.next());
            }
            return new Browsed(shown, cursor.examined(), shown.size() < limit && cursor.stoppedAtMaxExamined());
        }
    }

    private static String summary(int shown, long seen, boolean scanEnded, long waiting, Selector filter) {
        if (filter == null) {
            return "(" + shown + " of " + Format.messages(waiting) + " waiting)";
        }
        return "(" + shown + " shown; looked at " + Format.count(seen) + " of " + Format.messages(waiting) + " waiting"
                + (scanEnded && seen < waiting ? "; raise --scan to look further" : "") + ")";
    }

    static ArrayNode json(List<BrowsedMessage> messages) {
        ArrayNode a = Json.array();
        for (BrowsedMessage b : messages) {
            ObjectNode o = a.addObject();
            o.put("shard", b.shard());
            o.put("seq", b.seq());
            o.put("enqueuedAt", b.enqueuedAt());
            o.set("message", MessageJson.toJson(b.message()));
        }
        return a;
    }

    private static void print(PrintWriter out, List<BrowsedMessage> messages) {
        TextTable t = Format.table("SHARD", "SEQ", "ENQUEUED", "MESSAGE ID", "BODY", "PROPERTIES");
        for (BrowsedMessage b : messages) {
            BrokerMessage m = b.message();
            t.row(
                    b.shard(),
                    b.seq(),
                    Format.instant(b.enqueuedAt()),
                    m.messageId(),
                    preview(m),
                    properties(m.properties()));
        }
        t.print(out);
    }

    /** A short, single-line view of the body: the start of a text, else its type and size. */
    static String preview(BrokerMessage m) {
        if (m.streamedBody() != null) {
            return m.bodyType().name().toLowerCase(java.util.Locale.ROOT) + ", streamed, "
                    + Format.bytes(m.streamedBody().size());
        }
        if (m.bodyType() == BrokerMessage.BodyType.TEXT) {
            String s = TextBody.decode(m.body());
            return s == null ? "null" : "\"" + shorten(s, 40) + "\"";
        }
        return m.bodyType().name().toLowerCase(java.util.Locale.ROOT) + ", " + Format.bytes(m.body().length);
    }

    static String properties(Map<String, Object> properties) {
        StringBuilder b = new StringBuilder();
        for (Map.Entry<String, Object> e : properties.entrySet()) {
            if (!b.isEmpty()) {
                b.append(", ");
            }
            Object v = e.getValue();
            b.append(e.getKey()).append('=').append(v instanceof String ? "'" + v + "'" : v);
        }
        return b.isEmpty() ? "-" : shorten(b.toString(), 60);
    }

    /** Control characters become spaces so a row stays one line. */
    static String shorten(String s, int max) {
        String flat = s.replaceAll("\\p{Cntrl}", " ");
        return flat.length() <= max ? flat : flat.substring(0, max - 1) + "…";
    }
}
