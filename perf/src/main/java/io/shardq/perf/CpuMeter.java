package io.shardq.perf;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * CPU time of this JVM ({@code OperatingSystemMXBean}) and, when the server runs on this machine,
 * of its processes ({@code /proc/<pid>/stat}, utime + stime). The server's figure is optional and
 * approximate: a process that ends inside the window is lost, one that starts inside it counts in
 * full. It is only read when the backend serving this pool shows up in {@code /proc} as a
 * PostgreSQL process, so a remote server never borrows the figures of unrelated local processes.
 */
final class CpuMeter {
    /** Linux's USER_HZ, the unit of {@code /proc/<pid>/stat} times, on every mainstream kernel. */
    private static final long NANOS_PER_TICK = 10_000_000L;

    private final ServerProbe probe;
    private final boolean serverLocal;

    private CpuMeter(ServerProbe probe, boolean serverLocal) {
        this.probe = probe;
        this.serverLocal = serverLocal;
    }

    static CpuMeter probe(ServerProbe probe) {
        int pid = probe.backendPid();
        return new CpuMeter(probe, pid > 0 && isPostgres(pid));
    }

    boolean serverCpuAvailable() {
        return serverLocal;
    }

    /** CPU time of this JVM in nanoseconds, or -1 when the platform does not report it. */
    static long jvmNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }

    /** CPU ticks of the server processes now, by pid; empty when not readable. */
    Map<Integer, Long> serverTicks(Iterable<Integer> alsoPids) {
        Map<Integer, Long> ticks = new HashMap<>();
        if (!serverLocal) {
            return ticks;
        }
        List<Integer> pids = probe.serverPids();
        for (Integer pid : pids) {
            readTicks(pid, ticks);
        }
        for (Integer pid : alsoPids) {
            if (!ticks.containsKey(pid)) {
                readTicks(pid, ticks);
            }
        }
        return ticks;
    }

    /** Server CPU nanoseconds between two samples; -1 when the server's CPU is not readable. */
    long serverNanosBetween(Map<Integer, Long> start, Map<Integer, Long> end) {
        if (!serverLocal) {
            return -1;
        }
        long total = 0;
        for (Map.Entry<Integer, Long> e : end.entrySet()) {
            long delta = e.getValue() - start.getOrDefault(e.getKey(), 0L);
            if (delta > 0) {
                total += delta;
            }
        }
        return total * NANOS_PER_TICK;
    }

    private static void readTicks(int pid, Map<Integer, Long> into) {
        if (!isPostgres(pid)) {
            return;
        }
        try {
            String stat = Files.readString(Path.of("/proc", Integer.toString(pid), "stat"));
            // fields after the command name in parentheses: state(3) ... utime(14) stime(15)
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            into.put(pid, Long.parseLong(f[11]) + Long.parseLong(f[12]));
        } catch (IOException | RuntimeException gone) {
            // the process ended, or /proc is not Linux's: that pid is not counted
        }
    }

    private static boolean isPostgres(int pid) {
        try {
            return Files.readString(Path.of("/proc", Integer.toString(pid), "comm"))
                    .startsWith("postgres");
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }
}
