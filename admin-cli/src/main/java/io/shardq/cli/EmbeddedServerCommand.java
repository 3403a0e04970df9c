package io.shardq.cli;

import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.store.Database;
import java.io.PrintWriter;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
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
        // on a later command there, or closing the terminal, must not stop the server
        for (String name : new String[] {"INT", "HUP"}) {
            sun.misc.Signal.handle(new sun.misc.Signal(name), sig -> {});
        }
        // SIGTERM (shardq stop) ends the loop below, which closes the pool and so releases the server;
        // the JVM's shutdown hooks would release it with this pool's connection still open, and a
        // server with a client left is not stopped
        sun.misc.Signal.handle(new sun.misc.Signal("TERM"), sig -> stopRequested = true);
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
            BrokerConfig one =
                    BrokerConfig.builder().set(BrokerProperty.POOL_SIZE, 1).build();
            try (Database db = Database.open(one, KEEPER)) {
                EmbeddedKeeper.writeKeeperFile(dir);
                out.println(Instant.now() + " keeping the embedded PostgreSQL (data " + dir + ", pid "
                        + ProcessHandle.current().pid() + "); it stops after "
                        + (idle.isZero()
                                ? "shardq stop"
                                : Durations.format(idle.toMillis()) + " with no client, or on shardq stop"));
                out.flush();
                keep(db, idle, out);
            } finally {
                Files.deleteIfExists(EmbeddedKeeper.keeperFile(dir));
                out.println(Instant.now() + " keeper done");
                out.flush();
            }
        }
        return 0;
    }

    /** The keeper's pool: its application name, left out when clients are counted. */
    static final String KEEPER = "shardq-embedded-keeper";

    private static volatile boolean stopRequested;

    /**
     * Returns after {@code idle} with no client but this JVM's (its presence connection and its
     * pool's), on SIGTERM, or when the server is gone.
     */
    private static void keep(Database db, Duration idle, PrintWriter out) throws InterruptedException {
        long lastBusy = System.nanoTime();
        while (!stopRequested) {
            int others;
            try (Connection c = db.dataSource().getConnection();
                    PreparedStatement s = c.prepareStatement("select count(*) - 1 from pg_stat_activity"
                            + " where backend_type = 'client backend' and application_name <> ?")) {
                s.setString(1, KEEPER); // minus 1: this JVM's presence connection
                try (ResultSet rs = s.executeQuery()) {
                    rs.next();
                    others = rs.getInt(1);
                }
            } catch (SQLException | RuntimeException e) {
                out.println(Instant.now() + " the embedded PostgreSQL went away: " + e.getMessage());
                return;
            }
            if (others > 0) {
                lastBusy = System.nanoTime();
            } else if (!idle.isZero() && System.nanoTime() - lastBusy >= idle.toNanos()) {
                out.println(Instant.now() + " no client for " + Durations.format(idle.toMillis()) + ": stopping");
                return;
            }
            for (long slept = 0; slept < CHECK_MILLIS && !stopRequested; slept += 100) {
                Thread.sleep(100);
            }
        }
        out.println(Instant.now() + " shardq stop: stopping");
    }
}
