package io.shardq.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import io.shardq.broker.Admin;
import io.shardq.broker.CacheInfo;
import io.shardq.broker.CacheStats;
import io.shardq.tools.TextTable;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

@Command(
        name = "list",
        description = {
            "List the key/value caches with their settings, live entries and size.",
            "ENTRIES and DATA are exact (a scan of each cache's live entries); DISK is the tables with their indexes."
        })
final class CacheListCommand implements Callable<Integer> {
    @Mixin
    CommandContext cli;

    @Mixin
    JsonOption output;

    @Override
    public Integer call() {
        PrintWriter out = cli.spec.commandLine().getOut();
        try (AdminSession broker = cli.connection.adminSession()) {
            Admin admin = broker.admin();
            TextTable table = Format.table(
                    "CACHE",
                    "STORAGE",
                    "DEFAULT TTL",
                    "MAX TTL",
                    "MAX ENTRIES",
                    "MAX BYTES",
                    "ENTRIES",
                    "DATA",
                    "DISK");
            ArrayNode json = Json.array();
            for (CacheInfo c : admin.caches().list()) {
                CacheStats s = admin.caches().stats(c.name());
                table.row(
                        c.name(),
                        c.durable() ? "durable" : "unlogged",
                        c.defaultTtlMillis() == null ? "never" : Durations.format(c.defaultTtlMillis()),
                        Durations.format(c.maxTtlMillis()),
                        c.maxEntries(),
                        c.maxBytes() == null ? null : Format.bytes(c.maxBytes()),
                        s.entries(),
                        Format.bytes(s.bytes()),
                        Format.bytes(c.bytes()));
                json.add(CacheCommand.json(c, s));
            }
            if (output.json) {
                Json.print(out, json);
            } else if (table.isEmpty()) {
                out.println("no caches yet (create one: shardq cache create NAME)");
            } else {
                table.print(out);
            }
            return 0;
        }
    }
}
