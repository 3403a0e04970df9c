package io.shardq.cli;

import io.shardq.broker.Broker;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code shardq console}: a web console on 127.0.0.1 until Ctrl-C. See {@link ConsoleServer} for
 * the API and its security, {@link ConsoleSampler} for what it reads and how often.
 */
@Command(
        name = "console",
        description = {
            "Serve a web console: destinations, subscriptions, instances, caches, rate charts and a message browser.",
            "Consumers and purges are the database's counts, over every live instance.",
            "Listens on 127.0.0.1 only, unless --bind says otherwise; prints its URL and runs until Ctrl-C. Its JSON"
                    + " API (/api/...) answers in the shapes of the read commands' --json. Purge, stop, start,"
                    + " requeue dead letters and send only with --admin, each action confirmed in the page."
        })
final class ConsoleCommand implements Callable<Integer> {
    @Mixin
    CommandContext cli;

    @Option(
            names = "--port",
            paramLabel = "PORT",
            description = "port to listen on; 0 takes any free port (default: ${DEFAULT-VALUE})")
    int port = 8161;

    @Option(
            names = "--bind",
            paramLabel = "ADDRESS",
            description = "address to listen on (default: ${DEFAULT-VALUE}); any other is reachable from other"
                    + " machines, and the console has no login")
    String bind = "127.0.0.1";

    @Option(
            names = "--admin",
            description = "allow the admin actions: purge, stop and start enqueue/dequeue, requeue dead letters,"
                    + " send a message")
    boolean admin;

    @Option(
            names = "--refresh",
            paramLabel = "TIME",
            description = "how often the console reads the stats, one round for every open page"
                    + " (default: ${DEFAULT-VALUE}; 200ms to 1m)")
    String refresh = "2s";

    @Option(
            names = "--history",
            paramLabel = "TIME",
            description = "how far back the rate charts go, kept in memory (default: ${DEFAULT-VALUE}; at most 1h)")
    String history = "10m";

    @Override
    public Integer call() throws Exception {
        Duration every = Durations.parse(refresh);
        Duration back = Durations.parse(history);
        if (port < 0
                || port > 65535
                || every.toMillis() < 200
                || every.toMinutes() > 1
                || back.compareTo(every) < 0
                || back.toHours() > 1) {
            throw new CommandLine.ParameterException(
                    cli.spec.commandLine(),
                    "--port must be 0 to 65535, --refresh 200ms to 1m, --history from --refresh to 1h");
        }
        InetAddress address = address();
        PrintWriter out = cli.spec.commandLine().getOut();
        PrintWriter err = cli.spec.commandLine().getErr();
        CountDownLatch interrupted = new CountDownLatch(1);
        CountDownLatch closed = new CountDownLatch(1);
        Thread hook = new Thread(
                () -> {
                    interrupted.countDown();
                    try {
                        closed.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "shardq-cli-stop-1");
        Runtime.getRuntime().addShutdownHook(hook);
        try (Broker broker = cli.connection.startBroker("console");
                ConsoleServer server = listen(broker, address, every, back)) {
            if (!address.isLoopbackAddress()) {
                err.println("shardq: warning: the console listens on " + address.getHostAddress()
                        + ": whoever can reach it sees every queue and message"
                        + (admin ? " and can purge them" : "") + "; it has no login");
                err.flush();
            }
            out.println("ShardQ console: " + server.url());
            out.println("admin actions " + (admin ? "on (each asks for confirmation)" : "off (start with --admin)")
                    + "; stats every " + Durations.format(every.toMillis()) + "; Ctrl-C stops it");
            out.flush();
            interrupted.await();
            return 0;
        } finally {
            closed.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running: it returns now that the latch is open
            }
        }
    }

    private ConsoleServer listen(Broker broker, InetAddress address, Duration every, Duration back)
            throws java.io.IOException {
        try {
            return ConsoleServer.start(
                    broker, new InetSocketAddress(address, port), admin, every.toMillis(), back.toMillis());
        } catch (java.net.BindException e) {
            throw new ShardQException(
                    ErrorKind.CONFIGURATION,
                    "cannot listen on " + address.getHostAddress() + ":" + port + ": " + e.getMessage()
                            + " (another console? choose another --port, or 0 for any free one)",
                    e);
        }
    }

    private InetAddress address() {
        try {
            return InetAddress.getByName(bind);
        } catch (UnknownHostException e) {
            throw new CommandLine.ParameterException(
                    cli.spec.commandLine(),
                    "--bind \"" + bind + "\" is not an address of this machine: " + e.getMessage());
        }
    }
}
