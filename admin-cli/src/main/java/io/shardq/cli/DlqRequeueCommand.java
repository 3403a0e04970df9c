package io.shardq.cli;

import io.shardq.broker.Admin;
import io.shardq.broker.Broker;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.catalog.Names;
import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.shard.BrokerSession;
import java.io.PrintWriter;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "requeue",
        description = {
            "Move dead letters back to the queue they came from.",
            "That is JMS_ShardQ_OriginalDestination, else NAME. They lose their dead-letter properties and start a fresh delivery count. Each batch is received from the dead-letter queue and sent in one transaction. Ctrl-C stops after the current batch."
        })
final class DlqRequeueCommand implements Callable<Integer> {
    @Mixin
    HelpOption help;

    @Parameters(paramLabel = "NAME", description = "the queue whose dead letters to requeue (not the .DLQ itself)")
    String name;

    @Option(names = "--max", paramLabel = "N", description = "stop after N messages (default: all)")
    long max;

    @Option(names = "--batch", paramLabel = "N", description = "messages per transaction (default: ${DEFAULT-VALUE})")
    int batch = 100;

    @Option(
            names = "--wait",
            paramLabel = "SECONDS",
            description = "give up when dead letters wait but none could be received for this long"
                    + " (default: ${DEFAULT-VALUE})")
    int waitSeconds = 30;

    @Mixin
    ConnectionOptions connection;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        Names.checkDestination(name);
        if (batch < 1 || max < 0 || waitSeconds < 0) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "--batch must be 1 or more, --max and --wait 0 or more");
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try (GracefulStop stop = GracefulStop.install();
                Broker broker = connection.startBroker("dlq requeue")) {
            Admin admin = broker.admin();
            DestinationInfo q = QueueCommand.require(admin, name);
            Optional<DestinationInfo> dlq = DlqCommand.deadLetterQueue(admin, q);
            if (dlq.isEmpty()) {
                out.println("no dead letters to requeue: " + name + "'s dead-letter queue " + q.deadLetterQueue()
                        + " does not exist yet");
                return 0;
            }
            String from = dlq.get().name();
            long waiting = admin.backlog(from);
            Map<String, Long> perTarget = new TreeMap<>();
            Set<String> checked = new HashSet<>();
            Progress progress = Progress.forTerminal(
                    err, "requeuing dead letters of " + name, max > 0 ? Math.min(max, waiting) : waiting);
            BatchMover.Result r;
            try {
                r = new BatchMover(broker, from, batch, max, waitSeconds * 1000L, stop, progress, err)
                        .run((session, letters) -> {
                            for (BrokerMessage m : letters) {
                                String target =
                                        m.properties().get(BrokerSession.ORIGINAL_DESTINATION) instanceof String s
                                                ? s
                                                : name;
                                if (checked.add(target)) {
                                    QueueCommand.require(admin, target); // gone? stop before sending
                                }
                                session.send(target, revived(m));
                                perTarget.merge(target, 1L, Long::sum);
                            }
                        });
            } finally {
                progress.finish();
            }
            StringBuilder where = new StringBuilder();
            perTarget.forEach((t, n) -> where.append(where.isEmpty() ? ": " : ", ")
                    .append(Format.count(n))
                    .append(" to ")
                    .append(t));
            String moved = "requeued " + Format.messages(r.moved()) + " from " + from + where;
            switch (r.end()) {
                case EMPTY -> out.println(moved + "; " + from + " is empty");
                case MAX -> out.println(moved + "; " + Format.remain(r.remaining()) + " in " + from);
                case STOPPED ->
                    out.println("stopped after a complete batch: " + moved + "; " + Format.remain(r.remaining())
                            + " in " + from);
                case STALLED ->
                    throw new ShardQException(
                            ErrorKind.ILLEGAL_STATE,
                            moved + ", but " + Format.remain(r.remaining()) + " in " + from
                                    + " that could not be received for " + waitSeconds + " s: other instances hold"
                                    + " the dequeue leases of their shards");
            }
            out.flush();
            return r.end() == BatchMover.End.STOPPED ? 130 : 0;
        }
    }

    /** The message as it was before it died: no dead-letter properties. */
    static BrokerMessage revived(BrokerMessage m) {
        Map<String, Object> props = new LinkedHashMap<>(m.properties());
        props.remove(BrokerSession.DEAD_LETTER_REASON);
        props.remove(BrokerSession.ORIGINAL_DESTINATION);
        return new BrokerMessage(
                m.messageId(),
                m.bodyType(),
                m.timestamp(),
                m.correlationId(),
                m.type(),
                m.replyTo(),
                m.priority(),
                m.expiration(),
                m.deliverAt(),
                m.persistent(),
                props,
                m.body());
    }
}
