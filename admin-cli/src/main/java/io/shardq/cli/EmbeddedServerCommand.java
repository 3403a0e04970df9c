package io.shardq.cli;

import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.store.EmbeddedServer;
import java.io.PrintWriter;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Properties;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * The keeper of the embedded PostgreSQL (hidden: the first CLI command that needs the server
 * starts it, {@code shardq stop} ends it). See {@link EmbeddedKeeper}. It holds the server as a
 * ShardQ JVM does, writes its pid to {@code <data dir>.keeper}, and returns (releasing the
 * server, which then stops unless another ShardQ JVM uses it) after the idle time with no client
 * other than itself, on SIGTERM, or when the server goes away.
 */
@Command(
        name = "embedded-server",
        hidden = true,
        description = "Keep the embedded PostgreSQL running between commands.")
final class EmbeddedServerCommand implements Callable<Integer> {
    @Mixin
    HelpOption help;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** How often the keeper looks for other clients. */
    static final long CHECK_MILLIS = 2_000;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        // started by a command in a terminal, the keeper is in that terminal's process group: Ctrl-C
        // on a later command there, or closing the terminal, must not stop the server (SIGTERM does)
        for (String name : new String[] {"INT", "HUP"}) {
            sun.misc.Signal.handle(new sun.misc.Signal(name), sig -> {});
        }
        BrokerConfig config = BrokerConfig.fromEnvironment();
        Duration idle = EmbeddedKeeper.idle(System.getenv(EmbeddedKeeper.IDLE_ENV));
        Path dir = EmbeddedKeeper.dataDir(config);
        Files.createDirectories(dir.getParent());
        try (FileChannel channel = FileChannel.open(
                        EmbeddedKeeper.lockFile(dir), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                FileLock lock = channel.tryLock()) {
            if (lock == null) {
                out.println(Instant.now() + " another keeper runs for " + dir + "; this one leaves");
                return 0;
            }
            EmbeddedServer server = EmbeddedServer.acquire(
                    dir,
                    config.getInt(BrokerProperty.EMBEDDED_PORT),
                    config.getBoolean(BrokerProperty.EMBEDDED_DURABLE));
            try {
                EmbeddedKeeper.writeKeeperFile(dir, server.port());
                out.println(Instant.now() + " keeping the embedded PostgreSQL on port " + server.port() + " (data "
                        + dir + ", pid " + ProcessHandle.current().pid() + "); it stops after "
                        + (idle.isZero()
                                ? "shardq stop"
                                : Durations.format(idle.toMillis()) + " with no client, or on shardq stop"));
                keep(server, idle, out);
            } finally {
                Files.deleteIfExists(EmbeddedKeeper.keeperFile(dir));
                server.release();
                out.println(Instant.now() + " keeper done");
            }
        }
        return 0;
    }

    /**
     * Returns after {@code idle} with no client but this JVM's presence connection, or when the
     * server is gone. Each look opens a connection of its own and closes it, so that on SIGTERM
     * (shardq stop) none of the keeper's is left to keep the server from stopping.
     */
    private static void keep(EmbeddedServer server, Duration idle, PrintWriter out) throws InterruptedException {
        Properties props = new Properties();
        props.setProperty("user", "postgres");
        props.setProperty("ApplicationName", "shardq-embedded-keeper");
        long lastBusy = System.nanoTime();
        while (true) {
            int others;
            try (Connection c = DriverManager.getConnection(server.jdbcUrl(), props);
                    Statement s = c.createStatement();
                    // every client backend but this one and this JVM's presence connection
                    ResultSet rs = s.executeQuery("select count(*) - 1 from pg_stat_activity"
                            + " where backend_type = 'client backend' and pid <> pg_backend_pid()")) {
                rs.next();
                others = rs.getInt(1);
            } catch (SQLException e) {
                out.println(Instant.now() + " the embedded PostgreSQL went away: " + e.getMessage());
                return;
            }
            if (others > 0) {
                lastBusy = System.nanoTime();
            } else if (!idle.isZero() && System.nanoTime() - lastBusy >= idle.toNanos()) {
                out.println(Instant.now() + " no client for " + Durations.format(idle.toMillis()) + ": stopping");
                return;
            }
            Thread.sleep(CHECK_MILLIS);
        }
    }
}
