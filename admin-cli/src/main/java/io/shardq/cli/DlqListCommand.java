package io.shardq.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.shardq.broker.Broker;
import io.shardq.broker.browse.BrowseCursor;
import io.shardq.broker.browse.BrowsedMessage;
import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.catalog.Names;
import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.selector.Selector;
import io.shardq.broker.shard.BrokerSession;
import io.shardq.tools.TextTable;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "list",
        description = "Show the dead letters of a queue, oldest first, with why they died, without consuming them.")
final class DlqListCommand implements Callable<Integer> {
    @Mixin
    CommandContext cli;

    @Parameters(paramLabel = "NAME", description = "the queue whose dead letters to show (not the .DLQ itself)")
    String name;

    @Option(names = "--limit", paramLabel = "N", description = "show at most N (default: ${DEFAULT-VALUE})")
    int limit = 20;

    @Option(
            names = "--scan",
            paramLabel = "N",
            description = "how many messages of a shared dead-letter queue to look at (default: ${DEFAULT-VALUE})")
    int scan = 10_000;

    @Mixin
    JsonOption output;

    @Override
    public Integer call() {
        Names.checkDestination(name);
        if (limit < 1) {
            throw new CommandLine.ParameterException(cli.spec.commandLine(), "--limit must be 1 or more");
        }
        PrintWriter out = cli.spec.commandLine().getOut();
        try (Broker broker = cli.connection.startBroker("dlq list")) {
            DestinationInfo q = QueueCommand.require(broker.admin(), name);
            Optional<DestinationInfo> dlq = DlqCommand.deadLetterQueue(broker.admin(), q);
            // a dead-letter queue may be shared: show the letters of this queue only
            Selector mine = DlqCommand.lettersOf(name);
            List<BrowsedMessage> letters = new ArrayList<>();
            long seen = 0;
            if (dlq.isPresent()) {
                BrowseCursor.Options options = BrowseCursor.Options.DEFAULTS.withMaxExamined(Math.max(limit, scan));
                try (BrowseCursor cursor = broker.browse(dlq.get().name(), mine, options)) {
                    while (letters.size() < limit && cursor.hasNext()) {
                        letters.add(cursor.next());
                    }
                    seen = cursor.examined();
                }
            }
            if (output.json) {
                ArrayNode a = Json.array();
                for (BrowsedMessage b : letters) {
                    ObjectNode o = a.addObject();
                    o.put("deadLetterQueue", q.deadLetterQueue());
                    o.put("shard", b.shard());
                    o.put("seq", b.seq());
                    o.put("enqueuedAt", b.enqueuedAt());
                    o.put("originalDestination", text(b.message(), BrokerSession.ORIGINAL_DESTINATION));
                    o.put("reason", text(b.message(), BrokerSession.DEAD_LETTER_REASON));
                    o.set("message", MessageJson.toJson(b.message()));
                }
                Json.print(out, a);
                return 0;
            }
            if (dlq.isEmpty()) {
                out.println("no dead letters: " + name + "'s dead-letter queue " + q.deadLetterQueue()
                        + " does not exist yet (the first dead letter creates it)");
                return 0;
            }
            long waiting = broker.admin().queues().backlog(dlq.get().name());
            if (letters.isEmpty()) {
                out.println("no dead letters of " + name + " in " + dlq.get().name()
                        + (seen < waiting ? " among the first " + Format.count(seen) : ""));
                return 0;
            }
            TextTable t = Format.table("DEAD SINCE", "MESSAGE ID", "FROM", "BODY", "REASON");
            for (BrowsedMessage b : letters) {
                BrokerMessage m = b.message();
                t.row(
                        Format.instant(b.enqueuedAt()),
                        m.messageId(),
                        text(m, BrokerSession.ORIGINAL_DESTINATION),
                        QueueBrowseCommand.preview(m),
                        text(m, BrokerSession.DEAD_LETTER_REASON));
            }
            t.print(out);
            out.println("(" + letters.size() + " shown; " + Format.messages(waiting) + " in "
                    + dlq.get().name() + "; move them back with: shardq dlq requeue " + name + ")");
            return 0;
        }
    }

    private static String text(BrokerMessage m, String property) {
        Object v = m.properties().get(property);
        return v == null ? null : v.toString();
    }
}
