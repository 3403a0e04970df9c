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
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
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
            "Only the letters that came from NAME (JMS_ShardQ_OriginalDestination) are moved, so a shared dead-letter queue keeps the others. They lose their dead-letter properties and start a fresh delivery count. Each batch is received from the dead-letter queue and sent in one transaction. Ctrl-C stops after the current batch."
        })
final class DlqRequeueCommand implements Callable<Integer> {
    @Mixin
    CommandContext cli;

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

    @Override
    public Integer call() throws Exception {
        Names.checkDestination(name);
        if (batch < 1 || max < 0 || waitSeconds < 0) {
            throw new CommandLine.ParameterException(
                    cli.spec.commandLine(), "--batch must be 1 or more, --max and --wait 0 or more");
        }
        PrintWriter out = cli.spec.commandLine().getOut();
        PrintWriter err = cli.spec.commandLine().getErr();
        try (GracefulStop stop = GracefulStop.install();
                Broker broker = cli.connection.startBroker("dlq requeue")) {
            Requeued r;
            Progress progress = Progress.forTerminal(err, "requeuing dead letters of " + name, 0);
            try {
                r = requeue(broker, name, batch, max, waitSeconds * 1000L, stop, progress, err);
            } finally {
                progress.finish();
            }
            out.println(r.message());
            out.flush();
            return r.end() == BatchMover.End.STOPPED ? 130 : 0;
        }
    }

    /** What a requeue did: how it ended (null: no dead-letter queue yet) and the line saying so. */
    record Requeued(BatchMover.End end, long moved, String message) {}

    /**
     * Moves the dead letters of {@code name} back to it: {@code dlq requeue} and the console's
     * requeue action. Throws when dead letters wait that could not be received for {@code
     * waitMillis} (other instances hold their shards' leases).
     */
    static Requeued requeue(
            Broker broker,
            String name,
            int batch,
            long max,
            long waitMillis,
            GracefulStop stop,
            Progress progress,
            PrintWriter err)
            throws java.io.IOException {
        Admin admin = broker.admin();
        DestinationInfo q = QueueCommand.require(admin, name);
        Optional<DestinationInfo> dlq = DlqCommand.deadLetterQueue(admin, q);
        if (dlq.isEmpty()) {
            return new Requeued(
                    null,
                    0,
                    "no dead letters to requeue: " + name + "'s dead-letter queue " + q.deadLetterQueue()
                            + " does not exist yet");
        }
        String from = dlq.get().name();
        // a shared dead-letter queue keeps the letters of other queues where they are
        BatchMover.Result r = new BatchMover(
                        broker, from, DlqCommand.lettersOf(name), batch, max, waitMillis, stop, progress, err)
                .run((session, letters) -> {
                    for (BrokerMessage m : letters) {
                        if (m.streamedBody() == null) {
                            session.send(name, revived(m));
                        } else { // streamed again from the dead letter's own chunks
                            session.send(
                                    name,
                                    revived(m),
                                    broker.openBody(m.streamedBody(), "dead letter " + m.messageId()));
                        }
                    }
                });
        String moved = "requeued " + Format.messages(r.moved()) + " from " + from + " to " + name;
        String left = r.remaining() == 0 ? from + " is empty" : Format.remain(r.remaining()) + " in " + from;
        String message =
                switch (r.end()) {
                    case EMPTY -> moved + "; " + left + (r.remaining() == 0 ? "" : " (dead letters of other queues)");
                    case MAX -> moved + "; " + left;
                    case STOPPED -> "stopped after a complete batch: " + moved + "; " + left;
                    case STALLED ->
                        throw new ShardQException(
                                ErrorKind.ILLEGAL_STATE,
                                moved + ", but " + left + " and some could not be looked at for "
                                        + waitMillis / 1000 + " s: other instances hold the dequeue leases of their"
                                        + " shards");
                };
        return new Requeued(r.end(), r.moved(), message);
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
