package io.shardq.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.shardq.broker.Admin;
import io.shardq.broker.CacheInfo;
import io.shardq.broker.CacheStats;
import io.shardq.broker.catalog.Names;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

@Command(
        name = "stats",
        description = {
            "Show a cache's settings, live entries, size, evictions and expirations.",
            "Hits, misses and loads are counted in memory by each application instance (KvCache.stats()); the database keeps no cluster-wide count of them, so this command says so instead of printing zeros."
        })
final class CacheStatsCommand implements Callable<Integer> {
    /** Why hits, misses, loads and the hit ratio are not shown. */
    static final String PER_INSTANCE = "hits, misses, loads and the hit ratio are counted in memory by each"
            + " application instance (KvCache.stats()); the database keeps no cluster-wide count, and this"
            + " command's own instance has served no reads";

    @Mixin
    CommandContext cli;

    @Parameters(paramLabel = "NAME", description = CacheCommand.NAME_HELP)
    String name;

    @Mixin
    JsonOption output;

    @Override
    public Integer call() {
        Names.checkCache(name);
        PrintWriter out = cli.spec.commandLine().getOut();
        try (AdminSession broker = cli.connection.adminSession()) {
            Admin admin = broker.admin();
            CacheInfo c = CacheCommand.require(admin, name);
            CacheStats s = admin.caches().stats(name);
            if (output.json) {
                Json.print(out, json(c, s));
                return 0;
            }
            out.println("cache " + name);
            line(out, "settings", CacheCommand.settings(c));
            line(
                    out,
                    "entries",
                    CacheCommand.entries(s.entries()) + " live"
                            + (s.expiredUnreclaimed() > 0
                                    ? ", " + Format.count(s.expiredUnreclaimed())
                                            + " expired (never returned; their storage goes with their partition)"
                                    : ""));
            line(out, "data", Format.bytes(s.bytes()) + " of keys and values");
            line(
                    out,
                    "disk",
                    Format.bytes(c.bytes()) + " in " + Format.count(c.partitions()) + " partitions (expiry buckets of "
                            + Durations.format(c.bucketMillis()) + ")");
            line(out, "evictions", Format.count(s.evictions()) + " entries evicted for the bounds since creation");
            line(out, "expirations", Format.count(s.expirations()) + " expired entries reclaimed since creation");
            line(out, "hits/misses", "not shown: " + PER_INSTANCE);
            return 0;
        }
    }

    /** {@code cache stats --json} (and the console's {@code /api/caches/NAME}): no hit counts to give. */
    static ObjectNode json(CacheInfo c, CacheStats s) {
        ObjectNode o = CacheCommand.json(c, s);
        o.putNull("hits");
        o.putNull("misses");
        o.putNull("loads");
        o.putNull("hitRatio");
        o.put("perInstanceCounters", PER_INSTANCE);
        return o;
    }

    private static void line(PrintWriter out, String label, String text) {
        out.println("  " + label + " ".repeat(13 - label.length()) + text);
    }
}
