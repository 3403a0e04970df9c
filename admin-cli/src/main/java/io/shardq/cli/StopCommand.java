package io.shardq.cli;

import io.shardq.broker.BrokerConfig;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

@Command(
        name = "stop",
        description = {
            "Stop the embedded PostgreSQL that the CLI keeps running between commands.",
            "The first command that needs the embedded server starts it and leaves it running; it stops by itself after "
                    + "$SHARDQ_EMBEDDED_IDLE (default 15m) with no client, or now with this command. It keeps running while "
                    + "another ShardQ process uses it, and stops when the last one ends."
        })
final class StopCommand implements java.util.concurrent.Callable<Integer> {
    @Mixin
    HelpOption help;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        BrokerConfig config = BrokerConfig.fromEnvironment();
        if (!config.embedded()) {
            throw new ShardQException(
                    ErrorKind.CONFIGURATION,
                    "shardq stop stops the embedded PostgreSQL, and SHARDQ_JDBC_URL names another server: nothing to stop");
        }
        Path dir = EmbeddedKeeper.dataDir(config);
        Optional<ProcessHandle> keeper = EmbeddedKeeper.running(dir);
        if (keeper.isEmpty()) {
            out.println("the embedded PostgreSQL (data " + dir + ") is not kept running by the CLI: nothing to stop");
            return 0;
        }
        keeper.get().destroy(); // SIGTERM: the keeper releases the server, which stops if no other ShardQ JVM uses it
        try {
            keeper.get().onExit().get(90, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new ShardQException(
                    ErrorKind.ILLEGAL_STATE,
                    "the keeper of the embedded PostgreSQL (pid " + keeper.get().pid()
                            + ") did not stop within 90 s (log " + EmbeddedKeeper.logFile(dir) + ")");
        }
        if (postmasterAlive(dir)) {
            out.println(
                    "the embedded PostgreSQL (data " + dir + ") keeps running: other clients use it; it stops when the"
                            + " last ShardQ process using it ends");
        } else {
            out.println("stopped the embedded PostgreSQL (data " + dir + ")");
        }
        return 0;
    }

    static boolean postmasterAlive(Path dir) {
        try {
            java.util.List<String> lines = java.nio.file.Files.readAllLines(dir.resolve("postmaster.pid"));
            return ProcessHandle.of(Long.parseLong(lines.get(0).strip()))
                    .map(ProcessHandle::isAlive)
                    .orElse(false);
        } catch (java.io.IOException | RuntimeException e) {
            return false;
        }
    }
}
