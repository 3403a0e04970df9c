package io.shardq.broker.testing;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A pg_auto_failover formation of a test's own: a monitor and two PostgreSQL nodes (Debian's
 * {@code postgresql-15-auto-failover} and PostgreSQL 15 binaries), each run by {@code pg_autoctl
 * run}. The monitor decides the failover, as in production: {@link #killPrimaryHost} only kills
 * the primary's processes (its keeper and its server, as when its host dies) and waits for the
 * monitor to promote the secondary. As root, every command runs as the {@code postgres} user
 * ({@code runuser}), which pg_autoctl requires.
 */
public final class AutoFailoverCluster implements AutoCloseable {
    static final Path PG_BIN = Path.of("/usr/lib/postgresql/15/bin");
    static final Path PG_AUTOCTL = Path.of("/usr/bin/pg_autoctl");

    private final Path root;
    private final int[] ports; // monitor, node1, node2
    private final List<Process> keepers = new ArrayList<>();

    private AutoFailoverCluster(Path root, int[] ports) {
        this.root = root;
        this.ports = ports;
    }

    /** Why the cluster cannot be made here, or null when it can. */
    public static String absent() {
        if (!Files.isExecutable(PG_AUTOCTL) || !Files.isExecutable(PG_BIN.resolve("pg_ctl"))) {
            return "pg_auto_failover is not installed (Debian: apt-get install postgresql-15-auto-failover):"
                    + " the pg_auto_failover failover test is skipped";
        }
        return null;
    }

    /** Creates and starts the monitor and two nodes, and waits until the second streams from the first. */
    public static AutoFailoverCluster start(String prefix) throws Exception {
        Path root = Files.createTempDirectory(prefix);
        AutoFailoverCluster c = new AutoFailoverCluster(root, new int[] {freePort(), freePort(), freePort()});
        try {
            if (isRoot()) {
                run(List.of("chown", "postgres", root.toString()));
            }
            c.autoctl(
                    "create",
                    "monitor",
                    "--pgdata",
                    root.resolve("monitor").toString(),
                    "--pgport",
                    Integer.toString(c.ports[0]),
                    "--hostname",
                    "127.0.0.1",
                    "--auth",
                    "trust",
                    "--no-ssl");
            c.keepers.add(c.runKeeper("monitor"));
            String monitor = "postgres://autoctl_node@127.0.0.1:" + c.ports[0] + "/pg_auto_failover?sslmode=disable";
            for (int n = 1; n <= 2; n++) {
                c.autoctl(
                        "create",
                        "postgres",
                        "--pgdata",
                        root.resolve("node" + n).toString(),
                        "--pgport",
                        Integer.toString(c.ports[n]),
                        "--hostname",
                        "127.0.0.1",
                        "--name",
                        "node" + n,
                        "--auth",
                        "trust",
                        "--no-ssl",
                        "--monitor",
                        monitor);
                c.keepers.add(c.runKeeper("node" + n));
                if (n == 1) {
                    c.awaitWritable(1, Duration.ofMinutes(2));
                }
            }
            c.awaitStreaming(Duration.ofMinutes(3));
            return c;
        } catch (Exception | Error e) {
            c.close();
            throw e;
        }
    }

    /** Both nodes, the primary wherever it is. */
    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + ports[1] + ",127.0.0.1:" + ports[2]
                + "/postgres?targetServerType=primary";
    }

    /**
     * Kills every process of node 1 (its pg_autoctl keeper and its PostgreSQL, frozen first) and
     * waits, at most {@code limit}, until the monitor has promoted node 2 and it accepts writes.
     * Returns {@link System#nanoTime()} at node 1's death.
     */
    public long killPrimaryHost(Duration limit) throws Exception {
        awaitStreaming(limit); // node 2 may have fallen behind under load: a candidate first
        List<ProcessHandle> victims = new ArrayList<>();
        Process keeper = keepers.get(1);
        victims.add(keeper.toHandle());
        victims.addAll(keeper.toHandle().descendants().toList());
        Path pid = root.resolve("node1").resolve("postmaster.pid");
        if (Files.exists(pid)) {
            long pm = Long.parseLong(Files.readAllLines(pid).get(0).trim());
            ProcessHandle.of(pm).ifPresent(h -> {
                victims.add(h);
                victims.addAll(h.descendants().toList());
            });
        }
        List<String> stop = new ArrayList<>(List.of("kill", "-STOP"));
        victims.forEach(v -> stop.add(Long.toString(v.pid())));
        run(stop);
        victims.forEach(ProcessHandle::destroyForcibly);
        for (ProcessHandle v : victims) {
            v.onExit().orTimeout(30, TimeUnit.SECONDS).join();
        }
        long dead = System.nanoTime();
        awaitWritable(2, limit);
        return dead;
    }

    private void awaitWritable(int node, Duration limit) throws Exception {
        long deadline = System.nanoTime() + limit.toNanos();
        while (true) {
            try (Connection c = DriverManager.getConnection(
                            "jdbc:postgresql://127.0.0.1:" + ports[node] + "/postgres", "postgres", "");
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery(
                            "SELECT NOT pg_is_in_recovery() AND current_setting('default_transaction_read_only') = 'off'")) {
                rs.next();
                if (rs.getBoolean(1)) {
                    return;
                }
            } catch (SQLException notYet) {
                // starting, or restarting as the monitor asks
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("node " + node + " did not accept writes within " + limit
                        + "; the monitor's view:\n" + monitorState());
            }
            Thread.sleep(200); // polling the node's state, bounded by the deadline
        }
    }

    /** {@code pg_autoctl show state} and {@code show events}, for a failure's message. */
    private String monitorState() {
        StringBuilder out = new StringBuilder();
        for (String what : List.of("state", "events")) {
            try {
                List<String> cmd = asPostgres();
                cmd.addAll(List.of(
                        PG_AUTOCTL.toString(),
                        "show",
                        what,
                        "--pgdata",
                        root.resolve("monitor").toString()));
                Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
                out.append(new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
                p.waitFor(30, TimeUnit.SECONDS);
            } catch (IOException | InterruptedException e) {
                out.append("(pg_autoctl show ")
                        .append(what)
                        .append(" failed: ")
                        .append(e)
                        .append(")\n");
            }
        }
        return out.toString();
    }

    /**
     * Until the monitor reports node 1 primary and node 2 secondary, each in the state it was
     * assigned: only then is node 2 a failover candidate (a node still catching up is never
     * promoted; under load one can flap between catchingup and secondary for a while).
     */
    private void awaitStreaming(Duration limit) throws Exception {
        long deadline = System.nanoTime() + limit.toNanos();
        while (true) {
            try (Connection c = DriverManager.getConnection(
                            "jdbc:postgresql://127.0.0.1:" + ports[0] + "/pg_auto_failover", "postgres", "");
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT count(*) FROM pgautofailover.node"
                            + " WHERE reportedstate = goalstate AND ((nodename = 'node1' AND goalstate = 'primary')"
                            + " OR (nodename = 'node2' AND goalstate = 'secondary'))")) {
                rs.next();
                if (rs.getInt(1) == 2) {
                    return;
                }
            } catch (SQLException notYet) {
                // the monitor restarting
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the formation did not settle (node 1 primary, node 2 secondary)"
                        + " within " + limit + "; the monitor's view:\n" + monitorState());
            }
            Thread.sleep(200); // polling the monitor's view, bounded by the deadline
        }
    }

    private void autoctl(String... args) throws Exception {
        List<String> cmd = asPostgres();
        cmd.add(PG_AUTOCTL.toString());
        cmd.addAll(List.of(args));
        Path log = root.resolve("autoctl-" + keepers.size() + "-" + args[1] + ".log");
        Process p = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        if (!p.waitFor(3, TimeUnit.MINUTES) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IllegalStateException(
                    "pg_autoctl " + String.join(" ", args) + " failed: " + String.join("\n", Files.readAllLines(log)));
        }
    }

    private Process runKeeper(String name) throws IOException {
        List<String> cmd = asPostgres();
        cmd.addAll(List.of(
                PG_AUTOCTL.toString(), "run", "--pgdata", root.resolve(name).toString()));
        return new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(root.resolve(name + ".log").toFile())
                .start();
    }

    /** The command prefix: runuser to postgres when root, and PostgreSQL 15's binaries first on the PATH. */
    private static List<String> asPostgres() {
        List<String> cmd = new ArrayList<>();
        if (isRoot()) {
            cmd.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        cmd.addAll(List.of("env", "PATH=" + PG_BIN + ":" + System.getenv("PATH")));
        return cmd;
    }

    private static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    private static void run(List<String> cmd) throws IOException, InterruptedException {
        new ProcessBuilder(cmd).inheritIO().start().waitFor();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Override
    public void close() {
        List<ProcessHandle> all = new ArrayList<>();
        for (Process k : keepers) {
            all.add(k.toHandle());
            all.addAll(k.toHandle().descendants().toList());
        }
        for (String n : List.of("monitor", "node1", "node2")) {
            Path pid = root.resolve(n).resolve("postmaster.pid");
            try {
                if (Files.exists(pid)) {
                    long pm = Long.parseLong(Files.readAllLines(pid).get(0).trim());
                    ProcessHandle.of(pm).ifPresent(h -> {
                        all.add(h);
                        all.addAll(h.descendants().toList());
                    });
                }
            } catch (IOException | RuntimeException ignored) {
                // gone already
            }
        }
        all.forEach(ProcessHandle::destroyForcibly);
        for (ProcessHandle h : all) {
            h.onExit().orTimeout(30, TimeUnit.SECONDS).exceptionally(t -> h).join();
        }
        if (Boolean.getBoolean("shardq.test.ha.keep")) {
            System.out.println("AutoFailoverCluster: kept " + root);
            return;
        }
        try (Stream<Path> files = Files.walk(root)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temporary directory
        }
    }
}
