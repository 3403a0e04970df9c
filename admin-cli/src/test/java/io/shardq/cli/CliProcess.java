package io.shardq.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The CLI in a JVM of its own (to be killed), on the test class path, like broker's MigrateMain.spawn. */
final class CliProcess {
    private CliProcess() {}

    /**
     * Short lease TTL and heartbeat so a killed CLI's shards are free again within ~2 s; no
     * migration check at start (the test database is migrated already).
     */
    static Process start(Path output, List<String> args) throws IOException {
        return start(output, args, false);
    }

    /**
     * As {@link #start(Path, List)}; with {@code interruptible}, SIGINT reaches the CLI as Ctrl-C in
     * a terminal would even when this JVM was started with SIGINT ignored: a shell without job
     * control ignores SIGINT in what it starts in the background (a build run as {@code cmd &}, some
     * CI runners), the ignored disposition is inherited, and a JVM never installs its Ctrl-C handler
     * for an ignored signal. The child then starts through perl (essential on Debian), which resets
     * SIGINT to its default before it executes Java; without perl it starts as it is.
     */
    static Process start(Path output, List<String> args, boolean interruptible) throws IOException {
        List<String> cmd = new ArrayList<>();
        Path perl = Path.of("/usr/bin/perl");
        if (interruptible && java.nio.file.Files.isExecutable(perl)) {
            cmd.addAll(List.of(perl.toString(), "-e", "$SIG{INT} = 'DEFAULT'; exec { $ARGV[0] } @ARGV or die $!"));
        }
        cmd.addAll(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                "-Dshardq.lease.ttl-ms=2000",
                "-Dshardq.instance.heartbeat-ms=500",
                "-Dshardq.migrate-on-start=false",
                ShardqCommand.class.getName()));
        cmd.addAll(args);
        return new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
    }
}
