package io.shardq.perf;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The machine's load average (1, 5 and 15 minutes, from {@code /proc/loadavg}), printed beside the
 * figures: on a shared machine it says how much else was running. "-" where it cannot be read.
 */
final class LoadAverage {
    private LoadAverage() {}

    static String now() {
        return parse(read());
    }

    static String parse(String procLoadavg) {
        if (procLoadavg == null) {
            return Numbers.NONE;
        }
        String[] f = procLoadavg.trim().split("\\s+");
        return f.length < 3 ? Numbers.NONE : f[0] + " " + f[1] + " " + f[2];
    }

    private static String read() {
        try {
            return Files.readString(Path.of("/proc/loadavg"));
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
