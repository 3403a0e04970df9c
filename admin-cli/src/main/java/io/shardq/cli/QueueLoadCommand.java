package io.shardq.cli;

import io.shardq.broker.Broker;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.catalog.Names;
import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.shard.BrokerSession;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "load",
        description = {
            "Send the messages of a JSON-lines file to a queue.",
            "The file is as 'queue drain' writes it; ids, headers and typed properties are kept. The whole file is checked before anything is sent, then it goes in transactions of --batch. Ctrl-C stops after the current batch and says how to resume."
        })
final class QueueLoadCommand implements Callable<Integer> {
    @Mixin
    CommandContext cli;

    @Parameters(paramLabel = "NAME", description = QueueCommand.NAME_HELP)
    String name;

    @Option(names = "--from", required = true, paramLabel = "FILE", description = "JSON-lines file to read")
    Path from;

    @Option(names = "--batch", paramLabel = "N", description = "messages per transaction (default: ${DEFAULT-VALUE})")
    int batch = 100;

    @Option(
            names = "--skip",
            paramLabel = "N",
            description = "leave out the first N messages of the file (to resume an interrupted load)")
    long skip;

    @Option(
            names = "--spread",
            description = "spread the batches over all the queue's shards, round robin (each batch is one"
                    + " transaction on the next shard), so consumers can take them in parallel; order is then"
                    + " kept within a batch only. Without it the file goes to one shard in file order, as one"
                    + " JMS producer session would send it")
    boolean spread;

    @Override
    public Integer call() throws IOException {
        Names.checkDestination(name);
        if (batch < 1 || skip < 0) {
            throw new CommandLine.ParameterException(
                    cli.spec.commandLine(), "--batch must be 1 or more, --skip 0 or more");
        }
        PrintWriter out = cli.spec.commandLine().getOut();
        PrintWriter err = cli.spec.commandLine().getErr();
        JsonLines.Check check = JsonLines.check(from);
        if (check.ignoredLastLine()) {
            err.println("shardq: note: ignored the incomplete last line of " + from + " (written by an interrupted"
                    + " drain, whose last batch was not committed and so is still in its queue)");
        }
        long total = Math.max(0, check.messages() - skip);
        try (GracefulStop stop = GracefulStop.install();
                Broker broker = cli.connection.startBroker("queue load");
                BufferedReader in = Files.newBufferedReader(from, StandardCharsets.UTF_8)) {
            DestinationInfo d = QueueCommand.require(broker.admin(), name);
            if (!d.enqueueEnabled()) {
                throw new ShardQException(
                        ErrorKind.ILLEGAL_STATE,
                        "enqueue is stopped on queue " + name + " (start it: shardq queue start " + name
                                + " --enqueue)");
            }
            Progress progress = Progress.forTerminal(err, "loading " + name, total);
            long loaded = 0;
            long madePersistent = 0;
            boolean stopped = false;
            BrokerSession session = broker.openSession(BrokerSession.Mode.TRANSACTED);
            if (spread) {
                session.spreadShards(); // each transaction (batch) goes to the next shard
            }
            try {
                JsonLines lines = new JsonLines(in, from, check.messages());
                lines.skip(skip);
                int inBatch = 0;
                while (true) {
                    if (inBatch == 0 && stop.requested()) {
                        stopped = true;
                        break;
                    }
                    BrokerMessage m = lines.next();
                    if (m == null) {
                        break;
                    }
                    if (!m.persistent()) {
                        m = persistent(m);
                        madePersistent++;
                    }
                    session.send(name, m);
                    if (++inBatch == batch) {
                        session.commit();
                        loaded += inBatch;
                        progress.advance(inBatch);
                        inBatch = 0;
                    }
                }
                if (inBatch > 0) {
                    session.commit();
                    loaded += inBatch;
                    progress.advance(inBatch);
                }
            } catch (ShardQException e) {
                throw new ShardQException(
                        e.kind(),
                        e.getMessage() + " (" + Format.messages(loaded) + " loaded before this; resume with --skip "
                                + (skip + loaded) + ")",
                        e);
            } finally {
                session.close();
                progress.finish();
            }
            if (madePersistent > 0) {
                err.println(
                        "shardq: note: " + Format.messages(madePersistent) + " marked non-persistent "
                                + (madePersistent == 1 ? "was" : "were")
                                + " stored persistently: non-persistent messages live in one process's memory, and this one exits");
            }
            if (stopped) {
                out.println("stopped after a complete batch: loaded " + Format.count(loaded) + " of "
                        + Format.messages(total) + " from " + from + " into queue " + name
                        + "; to load the rest: shardq queue load " + name + " --from " + from + " --skip "
                        + (skip + loaded));
                out.flush();
                return 130;
            }
            out.println("loaded " + Format.messages(loaded) + " from " + from + " into queue " + name + " in "
                    + Format.duration(progress.elapsedMillis()) + " (" + Format.rate(progress.rate()) + ")"
                    + (skip > 0 ? ", after skipping " + Format.count(skip) : ""));
            return 0;
        }
    }

    private static BrokerMessage persistent(BrokerMessage m) {
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
                true,
                m.properties(),
                m.body());
    }
}
