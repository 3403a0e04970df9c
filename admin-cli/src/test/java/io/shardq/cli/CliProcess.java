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
        List<String> cmd = new ArrayList<>(List.of(
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
