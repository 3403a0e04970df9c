package io.shardq.perf;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Where a run happened: the facts printed first in every report, so two results are never
 * compared without seeing that one ran with durability off.
 *
 * @param synchronousCommit the value in the run's sessions (off under {@code --unsafe})
 * @param serverSynchronousCommit the server's own value, what a session starts with
 */
record Environment(
        String database,
        boolean embedded,
        String serverVersion,
        String fsync,
        String synchronousCommit,
        String serverSynchronousCommit,
        String fullPageWrites,
        String sharedBuffers,
        int cores,
        String jvm,
        String os) {

    /** fsync on and commits waiting for their WAL flush: a committed message survives a crash. */
    boolean durable() {
        return "on".equals(fsync) && !"off".equals(synchronousCommit);
    }

    /** The loud first line of every report when durability is off, else empty. */
    String unsafeBanner() {
        if (durable()) {
            return "";
        }
        List<String> why = new ArrayList<>();
        if (!"on".equals(fsync)) {
            why.add("fsync=" + fsync);
        }
        if ("off".equals(synchronousCommit)) {
            why.add("synchronous_commit=off");
        }
        return "!!! UNSAFE: durability off (" + String.join(", ", why)
                + "): committed messages can be lost on a crash; do not compare with durable runs !!!";
    }

    /** {@code name  value} lines, in the order they are printed. */
    List<String[]> facts() {
        String syncShown = synchronousCommit.equals(serverSynchronousCommit)
                ? synchronousCommit
                : synchronousCommit + " (this run's sessions; server: " + serverSynchronousCommit + ")";
        return List.of(
                new String[] {"database", database + (embedded ? " (embedded)" : "")},
                new String[] {"postgresql", serverVersion},
                new String[] {"fsync", fsync},
                new String[] {"synchronous_commit", syncShown},
                new String[] {"full_page_writes", fullPageWrites},
                new String[] {"shared_buffers", sharedBuffers},
                new String[] {"cores", Integer.toString(cores)},
                new String[] {"jvm", jvm},
                new String[] {"os", os});
    }

    static String describeJvm() {
        return String.format(
                Locale.ROOT,
                "%s %s (%s), max heap %d MB",
                System.getProperty("java.vm.name"),
                Runtime.version(),
                System.getProperty("java.vendor"),
                Runtime.getRuntime().maxMemory() / (1024 * 1024));
    }

    static String describeOs() {
        return System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch");
    }
}
