package io.shardq.cli;

import io.shardq.broker.Broker;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.catalog.Names;
import io.shardq.broker.selector.Selector;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "drain",
        description = {
            "Consume a queue's messages, writing each as one JSON line.",
            "Messages are taken in transactions of --batch; each batch is written and fsynced before it commits, so an interrupted drain loses nothing and at worst writes its last batch twice. Ctrl-C stops after the current batch. With --selector only matching messages are taken; the others stay in the queue, in order. 'queue load' reads the file back."
        })
final class QueueDrainCommand implements Callable<Integer> {
    @Mixin
    CommandContext cli;

    @Parameters(paramLabel = "NAME", description = QueueCommand.NAME_HELP)
    String name;

    @Option(
            names = "--to",
            paramLabel = "FILE",
            description = "write to this new file (default: stdout; progress and the summary then go to stderr)")
    Path to;

    @Option(names = "--append", description = "with --to: add to the end of an existing file")
    boolean append;

    @Option(names = "--max", paramLabel = "N", description = "stop after N messages (default: all)")
    long max;

    @Option(names = "--batch", paramLabel = "N", description = "messages per transaction (default: ${DEFAULT-VALUE})")
    int batch = 100;

    @Option(
            names = "--wait",
            paramLabel = "SECONDS",
            description = "give up when messages wait but none could be received for this long, e.g. because"
                    + " running consumers hold the shards (default: ${DEFAULT-VALUE})")
    int waitSeconds = 30;

    @Option(
            names = "--selector",
            paramLabel = "EXPR",
            description = "take only the messages matching this JMS selector, e.g. \"region = 'eu'\"; the others"
                    + " stay in the queue, in their order, with their ids")
    String selector;

    @Override
    public Integer call() throws IOException {
        Names.checkDestination(name);
        Selector filter = Selector.compile(selector);
        if (batch < 1 || max < 0 || waitSeconds < 0) {
            throw new CommandLine.ParameterException(
                    cli.spec.commandLine(), "--batch must be 1 or more, --max and --wait 0 or more");
        }
        if (append && to == null) {
            throw new CommandLine.ParameterException(cli.spec.commandLine(), "--append needs --to FILE");
        }
        if (to != null && !append && Files.exists(to)) { // checked again when the file is created
            throw new ShardQException(
                    ErrorKind.INVALID_ARGUMENT,
                    to + " exists already: give a new file, or add --append to write at its end");
        }
        PrintWriter out = cli.spec.commandLine().getOut();
        PrintWriter err = cli.spec.commandLine().getErr();
        try (GracefulStop stop = GracefulStop.install();
                Broker broker = cli.connection.startBroker("queue drain");
                DrainOutput output = to == null ? DrainOutput.stdout(out) : DrainOutput.file(to, append)) {
            DestinationInfo d = QueueCommand.require(broker.admin(), name);
            if (!d.dequeueEnabled()) {
                throw new ShardQException(
                        ErrorKind.ILLEGAL_STATE,
                        "dequeue is stopped on queue " + name + " (start it: shardq queue start " + name
                                + " --dequeue)");
            }
            long waiting = broker.admin().queues().backlog(d.name());
            long expected = filter != null ? 0 : max > 0 ? Math.min(max, waiting) : waiting; // 0: unknown
            Progress progress = Progress.forTerminal(err, "draining " + name, expected);
            BatchMover mover =
                    new BatchMover(broker, name, filter, batch, max, waitSeconds * 1000L, stop, progress, err);
            BatchMover.Result r;
            DrainHandler handler = new DrainHandler(output);
            try {
                r = mover.run(handler);
            } catch (ShardQException e) {
                throw new ShardQException(
                        e.kind(),
                        e.getMessage() + " (drained " + Format.messages(progress.done()) + " to " + output.where()
                                + " before this)",
                        e);
            } finally {
                progress.finish();
            }
            // stdout carries the messages when there is no --to: the summary goes to stderr then
            PrintWriter summary = to == null ? err : out;
            String moved = "drained " + Format.messages(r.moved())
                    + (filter == null ? "" : " matching " + filter.text())
                    + " from queue " + name + " to " + output.where();
            String speed =
                    " in " + Format.duration(progress.elapsedMillis()) + " (" + Format.rate(progress.rate()) + ")";
            switch (r.end()) {
                case EMPTY ->
                    summary.println(moved
                            + speed
                            + (r.remaining() == 0
                                    ? "; the queue is empty"
                                    : "; no other message matches (" + Format.remain(r.remaining()) + ")"));
                case MAX -> summary.println(moved + speed + "; " + Format.remain(r.remaining()));
                case STOPPED ->
                    summary.println("stopped after a complete batch: " + moved + "; " + Format.remain(r.remaining()));
                case STALLED ->
                    throw new ShardQException(
                            ErrorKind.ILLEGAL_STATE,
                            moved + ", but " + Format.remain(r.remaining()) + " and some could not be "
                                    + (filter == null ? "received" : "looked at") + " for " + waitSeconds
                                    + " s: other instances hold the dequeue leases of their shards (stop their"
                                    + " consumers, or wait for a dead instance's leases to expire)");
            }
            if (handler.printedButNotReceivedAgain() > 0) {
                err.println("shardq: note: " + Format.messages(handler.printedButNotReceivedAgain())
                        + " printed in a batch that rolled back were not received here again: another consumer"
                        + " may have received them too");
            }
            summary.flush();
            err.flush();
            return r.end() == BatchMover.End.STOPPED ? 130 : 0;
        }
    }
}
