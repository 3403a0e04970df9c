package io.shardq.cli;

import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Keeps the embedded PostgreSQL running between CLI commands (issue 24: every command used to
 * start the server and stop it again, 4-25 s a command).
 *
 * <p>The first command that needs the embedded server starts a keeper: a small JVM of its own
 * ({@code shardq embedded-server}, hidden) that acquires the server as any ShardQ JVM does, so
 * that the commands after it only attach (read {@code postmaster.pid}, connect). The keeper
 * stops the server after {@link #DEFAULT_IDLE} (or {@code $SHARDQ_EMBEDDED_IDLE}) with no client
 * but itself, or on {@code shardq stop}; the server stays up while another ShardQ JVM uses it
 * (the embedded server's own "last one out" rule). Its pid is in {@code <data dir>.keeper}, its
 * log in {@code <data dir>.keeper.log}; one keeper per data directory, by a file lock.
 */
final class EmbeddedKeeper {
    /** How long the keeper waits with no other client before it stops the server. */
    static final Duration DEFAULT_IDLE = Duration.ofMinutes(15);
    /** The environment variable that changes {@link #DEFAULT_IDLE} ({@code 30m}, {@code 2h}, {@code 0}: never). */
    static final String IDLE_ENV = "SHARDQ_EMBEDDED_IDLE";
    /** How long a command waits for a keeper to have the server up (a first start initialises the data directory). */
    static final Duration START_TIMEOUT = Duration.ofSeconds(180);

    private EmbeddedKeeper() {}

    static Path dataDir(BrokerConfig config) {
        return config.getPath(BrokerProperty.EMBEDDED_DATA_DIR).normalize();
    }

    static Path keeperFile(Path dataDir) {
        return dataDir.resolveSibling(dataDir.getFileName() + ".keeper");
    }

    static Path lockFile(Path dataDir) {
        return dataDir.resolveSibling(dataDir.getFileName() + ".keeper.lock");
    }

    static Path logFile(Path dataDir) {
        return dataDir.resolveSibling(dataDir.getFileName() + ".keeper.log");
    }

    /** The idle time: {@code $SHARDQ_EMBEDDED_IDLE} or {@link #DEFAULT_IDLE}; a bad value is refused by name. */
    static Duration idle(String fromEnv) {
        if (fromEnv == null || fromEnv.isBlank()) {
            return DEFAULT_IDLE;
        }
        try {
            return Durations.parse(fromEnv.strip());
        } catch (RuntimeException e) {
            throw new ShardQException(
                    ErrorKind.CONFIGURATION,
                    IDLE_ENV + " is \"" + fromEnv + "\": " + Durations.EXPECTED + ", or 0 for never");
        }
    }

    /** The running keeper of {@code dataDir}: its pid from the keeper file, if that process is alive. */
    static Optional<ProcessHandle> running(Path dataDir) {
        Path file = keeperFile(dataDir);
        try {
            if (!Files.exists(file)) {
                return Optional.empty();
            }
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            if (lines.isEmpty()) {
                return Optional.empty();
            }
            long pid = Long.parseLong(lines.get(0).strip());
            return ProcessHandle.of(pid).filter(ProcessHandle::isAlive);
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** Written by the keeper once the server is up: its pid. */
    static void writeKeeperFile(Path dataDir) throws IOException {
        Path file = keeperFile(dataDir);
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, ProcessHandle.current().pid() + "\n", StandardCharsets.UTF_8);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * With the embedded default, makes sure a keeper runs for the configured data directory,
     * starting one and waiting until it has the server up. Nothing to do with a JDBC URL.
     */
    static void ensure(BrokerConfig config) {
        if (!config.embedded()) {
            return;
        }
        Path dir = dataDir(config);
        if (running(dir).isPresent()) {
            return;
        }
        Process child;
        try {
            Files.createDirectories(dir.getParent());
            List<String> cmd = new ArrayList<>();
            cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            // an idle JVM, no optimising compiler; its first start unpacks the server's binaries
            // (an xz archive), which ran out of memory with a 64 MiB heap
            cmd.addAll(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
            System.getProperties().stringPropertyNames().stream()
                    .filter(k -> k.startsWith("shardq.") || k.startsWith("org.slf4j.simpleLogger."))
                    .sorted()
                    .forEach(k -> cmd.add("-D" + k + "=" + System.getProperty(k)));
            cmd.addAll(List.of(
                    "-cp", System.getProperty("java.class.path"), ShardqCommand.class.getName(), "embedded-server"));
            child = new ProcessBuilder(cmd)
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .redirectOutput(
                            ProcessBuilder.Redirect.appendTo(logFile(dir).toFile()))
                    .redirectErrorStream(true)
                    .start();
        } catch (IOException e) {
            throw new ShardQException(
                    ErrorKind.CONNECTION, "cannot start the embedded PostgreSQL's keeper for " + dir + ": " + e);
        }
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (running(dir).isEmpty()) {
            if (!child.isAlive() && child.exitValue() != 0) {
                throw new ShardQException(
                        ErrorKind.CONNECTION,
                        "the embedded PostgreSQL did not start (data " + dir + "): " + lastLine(logFile(dir))
                                + " (log: " + logFile(dir) + "; set SHARDQ_JDBC_URL to use another server)");
            }
            if (System.nanoTime() > deadline) {
                throw new ShardQException(
                        ErrorKind.CONNECTION,
                        "the embedded PostgreSQL did not start within " + START_TIMEOUT.toSeconds() + " s (data " + dir
                                + ", log " + logFile(dir) + ")");
            }
            try {
                child.waitFor(50, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ShardQException(ErrorKind.CONNECTION, "interrupted while the embedded PostgreSQL started");
            }
        }
    }

    private static String lastLine(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            for (int i = lines.size() - 1; i >= 0; i--) {
                if (!lines.get(i).isBlank()) {
                    return lines.get(i).strip();
                }
            }
        } catch (IOException e) {
            // fall through
        }
        return "no message";
    }
}
