package io.shardq.broker.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A primary and a streaming standby of a test's own, made from the embedded bundle's binaries
 * alone ({@code initdb}, {@code pg_ctl}, {@code postgres}): the standby is a copy of the primary's
 * data directory taken under the low-level backup API ({@code pg_backup_start}/{@code
 * pg_backup_stop}), with {@code standby.signal}, {@code primary_conninfo} and a physical
 * replication slot that keeps the primary's WAL until the standby has it. A failover is what
 * Patroni and pg_auto_failover do when a primary's host dies: every process of the primary is
 * killed ({@code SIGKILL}) and the standby promoted ({@code pg_promote}). A fresh standby can then
 * be built from the new primary on the dead one's port, so the cluster's JDBC URL ({@link
 * #jdbcUrl}: both hosts, {@code targetServerType=primary}) stays the same across failovers.
 *
 * <p>{@link Replication#SYNCHRONOUS}: {@code synchronous_standby_names = '*'} and {@code
 * synchronous_commit = on} while a standby streams, so a commit returns only once the standby has
 * flushed it; after a promotion the new primary runs without a synchronous standby until {@link
 * #rebuildStandby} gives it one (what Patroni's {@code synchronous_mode} does; its {@code
 * synchronous_mode_strict} would stop commits instead). {@link Replication#ASYNCHRONOUS}: commits
 * return before the standby has them, and a failover loses what had not reached it.
 */
public final class ReplicatedPostgres implements AutoCloseable {
    /** How commits wait for the standby. */
    public enum Replication {
        SYNCHRONOUS,
        ASYNCHRONOUS
    }

    private static final Duration STARTUP =
            Duration.ofSeconds(Integer.getInteger("shardq.test.ha.startup-seconds", 120));
    /** Files of a running data directory that a base backup leaves out (PostgreSQL's docs, "Making a Base Backup Using the Low Level API"). */
    private static final Set<String> SKIPPED_FILES =
            Set.of("postmaster.pid", "postmaster.opts", "backup_label", "tablespace_map", "epg-lock", "standby.signal");
    /** Directories copied empty. */
    private static final Set<String> EMPTIED_DIRS = Set.of(
            "pg_wal",
            "pg_replslot",
            "pg_stat_tmp",
            "pg_dynshmem",
            "pg_notify",
            "pg_serial",
            "pg_snapshots",
            "pg_subtrans");

    private final Path root;
    private final Replication replication;
    private final int[] ports;
    private Node primary;
    private Node standby;
    private int generation;
    /** The standby's WAL receiver while {@link #pauseReplication} holds it stopped, else null. */
    private ProcessHandle pausedReceiver;

    /** One server: its data directory, port and the embedded handle that started it. */
    private static final class Node {
        final Path dir;
        final int port;
        EmbeddedPostgres pg;

        Node(Path dir, int port) {
            this.dir = dir;
            this.port = port;
        }

        String url() {
            return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
        }
    }

    private ReplicatedPostgres(Path root, Replication replication, int[] ports) {
        this.root = root;
        this.replication = replication;
        this.ports = ports;
    }

    /** Starts a primary and a standby streaming from it, each in a temporary directory on a free port. */
    public static ReplicatedPostgres start(String prefix, Replication replication) throws IOException, SQLException {
        ReplicatedPostgres r = new ReplicatedPostgres(
                Files.createTempDirectory(prefix), replication, new int[] {freePort(), freePort()});
        try {
            r.primary = new Node(r.root.resolve("n0-0"), r.ports[0]);
            r.primary.pg = r.embedded(r.primary);
            r.rebuildStandby();
            return r;
        } catch (IOException | SQLException | RuntimeException e) {
            r.close();
            throw e;
        }
    }

    /** Both servers, the primary wherever it is: {@code targetServerType=primary} makes pgjdbc skip the standby. */
    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + ports[0] + ",127.0.0.1:" + ports[1]
                + "/postgres?targetServerType=primary";
    }

    /** The current primary alone (for the test's own checks). */
    public String primaryUrl() {
        return primary.url();
    }

    /** The current standby alone, or null after a failover until {@link #rebuildStandby}. */
    public String standbyUrl() {
        return standby == null ? null : standby.url();
    }

    /**
     * Kills every process of the primary ({@code SIGKILL}, the postmaster first, so no backend
     * outlives it to answer a client) and promotes the standby, waiting until it accepts writes.
     * Afterwards there is no standby until {@link #rebuildStandby}. Returns {@link System#nanoTime()}
     * when the primary was dead, for recovery times.
     */
    public long failover() throws Exception {
        long dead = killPrimary();
        promote();
        return dead;
    }

    /**
     * The first half of a failover: the primary's host dies and nothing is promoted yet (what
     * clients see while a failover manager decides). Returns {@link System#nanoTime()} at its death.
     */
    public long killPrimary() throws Exception {
        if (standby == null) {
            throw new IllegalStateException("no standby to promote later: rebuildStandby() first");
        }
        kill(primary);
        return System.nanoTime();
    }

    /**
     * A standby that falls behind, as one across a slow link does: its WAL receiver is stopped
     * ({@code SIGSTOP}), so what the primary sends waits in the socket's buffers and, once they are
     * full, on the primary. With {@link Replication#ASYNCHRONOUS} the primary's commits go on; with
     * {@link Replication#SYNCHRONOUS} they wait for the standby. {@link #promote} lets the receiver
     * go on first (it writes what reached it), so what a failover loses is what had not reached it.
     */
    public void pauseReplication() throws Exception {
        if (standby == null || pausedReceiver != null) {
            throw new IllegalStateException("no standby, or replication is paused already");
        }
        try (Connection c = connect(standby);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT pid FROM pg_stat_wal_receiver")) {
            if (!rs.next()) {
                throw new SQLException("the standby has no WAL receiver");
            }
            pausedReceiver = ProcessHandle.of(rs.getLong(1)).orElseThrow();
        }
        signal("STOP", List.of(pausedReceiver));
    }

    /** The second half: the standby promoted, waited for until it accepts writes. */
    public void promote() throws Exception {
        if (pausedReceiver != null) {
            signal("CONT", List.of(pausedReceiver));
            pausedReceiver = null;
        }
        Node promoted = standby;
        standby = null;
        try (Connection c = connect(promoted);
                Statement s = c.createStatement()) {
            // not waiting inside pg_promote: a query that runs while the standby replays a
            // backlog can be cancelled by a recovery conflict; awaitWritable polls instead
            s.execute("SELECT pg_promote(false)");
        }
        awaitWritable(promoted);
        if (replication == Replication.SYNCHRONOUS) {
            try (Connection c = connect(promoted);
                    Statement s = c.createStatement()) {
                // no standby yet: commits go on without one until rebuildStandby attaches one
                s.execute("ALTER SYSTEM SET synchronous_standby_names = ''");
                s.execute("SELECT pg_reload_conf()");
            }
        }
        deleteQuietly(primary.dir);
        primary = promoted;
    }

    /**
     * Builds a fresh standby of the primary on the port that is not the primary's (the first
     * standby, or the dead primary's after a failover) and waits until it streams; with {@link
     * Replication#SYNCHRONOUS} also until the primary counts it as its synchronous standby.
     */
    public void rebuildStandby() throws IOException, SQLException {
        if (standby != null) {
            throw new IllegalStateException("a standby is already running");
        }
        int port = primary.port == ports[0] ? ports[1] : ports[0];
        String slot = "standby_" + (++generation);
        Node n = new Node(root.resolve("n" + (port == ports[0] ? 0 : 1) + "-" + generation), port);
        try (Connection c = connect(primary);
                Statement s = c.createStatement()) {
            s.execute("SELECT pg_create_physical_replication_slot('" + slot + "', true)");
            s.execute("SELECT pg_backup_start('shardq-test-" + slot + "', true)");
            copyDataDirectory(primary.dir, n.dir);
            try (ResultSet rs = s.executeQuery("SELECT labelfile, spcmapfile FROM pg_backup_stop(false)")) {
                rs.next();
                Files.writeString(n.dir.resolve("backup_label"), rs.getString(1));
                String map = rs.getString(2);
                if (map != null && !map.isEmpty()) {
                    Files.writeString(n.dir.resolve("tablespace_map"), map);
                }
            }
        }
        Files.setPosixFilePermissions(n.dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        Files.createFile(n.dir.resolve("standby.signal"));
        Files.writeString(
                n.dir.resolve("postgresql.auto.conf"),
                "primary_conninfo = 'host=127.0.0.1 port=" + primary.port + " user=postgres application_name=" + slot
                        + "'\nprimary_slot_name = '" + slot + "'\n",
                java.nio.file.StandardOpenOption.APPEND);
        n.pg = embedded(n);
        standby = n;
        awaitStreaming(slot);
        if (replication == Replication.SYNCHRONOUS) {
            try (Connection c = connect(primary);
                    Statement s = c.createStatement()) {
                s.execute("ALTER SYSTEM SET synchronous_standby_names = '*'");
                s.execute("SELECT pg_reload_conf()");
            }
            awaitSyncState(slot);
        }
    }

    /** Waits until the primary's {@code pg_stat_replication} shows standby {@code name} streaming. */
    private void awaitStreaming(String name) throws SQLException {
        awaitPrimary("SELECT count(*) FROM pg_stat_replication WHERE application_name = '" + name
                + "' AND state = 'streaming'");
    }

    private void awaitSyncState(String name) throws SQLException {
        awaitPrimary("SELECT count(*) FROM pg_stat_replication WHERE application_name = '" + name
                + "' AND sync_state = 'sync'");
    }

    private void awaitPrimary(String countQuery) throws SQLException {
        long deadline = System.nanoTime() + STARTUP.toNanos();
        while (true) {
            try (Connection c = connect(primary);
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery(countQuery)) {
                rs.next();
                if (rs.getInt(1) > 0) {
                    return;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new SQLException("the standby did not reach the state asked by: " + countQuery);
            }
            sleep(100);
        }
    }

    private static void awaitWritable(Node n) throws SQLException {
        long deadline = System.nanoTime() + STARTUP.toNanos();
        while (true) {
            try (Connection c = connect(n);
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT pg_is_in_recovery()")) {
                rs.next();
                if (!rs.getBoolean(1)) {
                    return;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new SQLException("the promoted standby on port " + n.port + " is still in recovery");
            }
            sleep(50);
        }
    }

    /** The primary's data directory, copied while it runs (the backup's WAL repairs torn pages). */
    private static void copyDataDirectory(Path from, Path to) throws IOException {
        Files.walkFileTree(from, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                Files.createDirectories(to.resolve(from.relativize(dir).toString()));
                if (!dir.equals(from)
                        && dir.getParent().equals(from)
                        && EMPTIED_DIRS.contains(dir.getFileName().toString())) {
                    if (dir.getFileName().toString().equals("pg_wal")) {
                        Files.createDirectories(to.resolve("pg_wal").resolve("archive_status"));
                    }
                    return FileVisitResult.SKIP_SUBTREE;
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                if (file.getParent().equals(from)
                        && SKIPPED_FILES.contains(file.getFileName().toString())) {
                    return FileVisitResult.CONTINUE;
                }
                try {
                    Files.copy(file, to.resolve(from.relativize(file).toString()), StandardCopyOption.COPY_ATTRIBUTES);
                } catch (NoSuchFileException gone) {
                    // dropped while copying (a temporary file, a truncated relation's segment): WAL replay agrees
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                if (e instanceof NoSuchFileException) {
                    return FileVisitResult.CONTINUE;
                }
                throw e;
            }
        });
    }

    private EmbeddedPostgres embedded(Node n) throws IOException {
        EmbeddedPostgres.Builder b = EmbeddedPostgres.builder()
                .setDataDirectory(n.dir)
                .setCleanDataDirectory(false)
                .setRegisterShutdownHook(true)
                .setPort(n.port)
                .setPGStartupWait(STARTUP)
                .setOutputRedirector(ProcessBuilder.Redirect.appendTo(logFile(n).toFile()))
                .setErrorRedirector(ProcessBuilder.Redirect.appendTo(logFile(n).toFile()))
                .setServerConfig("fsync", "on")
                .setServerConfig("synchronous_commit", "on")
                .setServerConfig("max_connections", "100")
                .setServerConfig("max_prepared_transactions", "20")
                .setServerConfig("listen_addresses", "127.0.0.1")
                .setServerConfig("wal_level", "replica")
                .setServerConfig("max_wal_senders", "10")
                .setServerConfig("max_replication_slots", "10")
                .setServerConfig("hot_standby", "on")
                .setServerConfig("wal_receiver_status_interval", "1s");
        return b.start();
    }

    /** The server's log (beside its data directory, kept until close). */
    private Path logFile(Node n) {
        return root.resolve(n.dir.getFileName() + ".log");
    }

    /**
     * As a host that dies: every process of the server frozen ({@code SIGSTOP}, the postmaster first
     * so it forks nothing more), then killed ({@code SIGKILL}), so none of them answers a client
     * again, not even with "terminating connection due to unexpected postmaster exit".
     */
    private static void kill(Node n) throws IOException, InterruptedException {
        long pid = Long.parseLong(
                Files.readAllLines(n.dir.resolve("postmaster.pid")).get(0).trim());
        ProcessHandle postmaster = ProcessHandle.of(pid).orElse(null);
        if (postmaster == null) {
            return;
        }
        signal("STOP", List.of(postmaster));
        List<ProcessHandle> children = postmaster.descendants().toList();
        signal("STOP", children);
        postmaster.destroyForcibly();
        children.forEach(ProcessHandle::destroyForcibly);
        postmaster.onExit().orTimeout(30, TimeUnit.SECONDS).join();
        for (ProcessHandle c : children) {
            c.onExit().orTimeout(30, TimeUnit.SECONDS).join();
        }
        try {
            n.pg.close(); // releases zonky's lock; pg_ctl stop finds nothing
        } catch (IOException | RuntimeException ignored) {
            // the server is gone already
        }
    }

    private static void signal(String name, List<ProcessHandle> processes) throws IOException, InterruptedException {
        if (processes.isEmpty()) {
            return;
        }
        List<String> command = new java.util.ArrayList<>(List.of("kill", "-" + name));
        processes.forEach(p -> command.add(Long.toString(p.pid())));
        new ProcessBuilder(command).inheritIO().start().waitFor();
    }

    private static Connection connect(Node n) throws SQLException {
        return DriverManager.getConnection(n.url(), "postgres", "");
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort(); // free once closed, for PostgreSQL to bind
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms); // polling a server's state, bounded by a deadline
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static void deleteQuietly(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException | UncheckedIOException ignored) {
            // a temporary directory; what is left is the OS's to clean
        }
    }

    @Override
    public void close() {
        if (Boolean.getBoolean("shardq.test.ha.keep")) {
            System.out.println("ReplicatedPostgres: kept " + root);
            return;
        }
        for (Node n : new Node[] {standby, primary}) {
            if (n != null && n.pg != null) {
                try {
                    n.pg.close();
                } catch (IOException | RuntimeException ignored) {
                    // stopping what may be dead already
                }
            }
        }
        deleteQuietly(root);
    }
}
