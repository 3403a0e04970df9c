package io.shardq.cli;

import io.shardq.broker.Admin;
import io.shardq.broker.CacheInfo;
import io.shardq.broker.catalog.Names;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "alter",
        description = {
            "Change a cache's default TTL, bounds and key and value size limits (shardq.alter_cache).",
            "The max TTL and durability are fixed at creation. Entries already stored keep their expiry; a lower size limit refuses new writes only. Running instances pick changes up within 10 s."
        })
final class CacheAlterCommand implements Callable<Integer> {
    @Mixin
    CommandContext cli;

    @Parameters(paramLabel = "NAME", description = CacheCommand.NAME_HELP)
    String name;

    @Option(
            names = "--default-ttl",
            paramLabel = "DURATION",
            converter = Durations.Converter.class,
            description = "TTL of entries put without one from now on, at most the cache's max TTL;"
                    + " 0: such entries never expire")
    Duration defaultTtl;

    @Option(names = "--max-entries", paramLabel = "N", description = "soft bound on the entries; 0 removes it")
    Long maxEntries;

    @Option(
            names = "--max-bytes",
            paramLabel = "SIZE",
            converter = Sizes.Converter.class,
            description = "soft bound on the key and value bytes (64MB: powers of 1024); 0 removes it")
    Long maxBytes;

    @Mixin
    CacheSizeLimits sizes;

    /** Not alterable: there so that trying says why, instead of "unknown option". */
    @Option(names = "--max-ttl", hidden = true, paramLabel = "DURATION")
    String maxTtl;

    @Option(
            names = {"--unlogged", "--durable"},
            hidden = true)
    boolean durability;

    @Mixin
    JsonOption output;

    @Override
    public Integer call() {
        if (maxTtl != null || durability) {
            throw usage((maxTtl != null ? "--max-ttl" : "durability") + " cannot be changed: it is fixed when the"
                    + " cache is created (drop and create the cache to change it)");
        }
        if (defaultTtl == null && maxEntries == null && maxBytes == null && !sizes.given()) {
            throw usage("nothing to change: give --default-ttl, --max-entries, --max-bytes, --max-key-bytes or"
                    + " --max-value-bytes");
        }
        if (maxEntries != null && maxEntries < 0) {
            throw usage("--max-entries " + maxEntries + " is invalid: expected 0 (no bound) or more entries");
        }
        Integer keyLimit = sizes.keyLimit(cli.spec);
        Integer valueLimit = sizes.valueLimit(cli.spec);
        Names.checkCache(name);
        PrintWriter out = cli.spec.commandLine().getOut();
        try (AdminSession broker = cli.connection.adminSession()) {
            Admin admin = broker.admin();
            CacheInfo before = CacheCommand.require(admin, name);
            if (defaultTtl != null && defaultTtl.toMillis() > before.maxTtlMillis()) {
                throw usage("--default-ttl " + Durations.format(defaultTtl.toMillis()) + " is above the max TTL of"
                        + " cache " + name + ", " + Durations.format(before.maxTtlMillis())
                        + " (fixed at creation)");
            }
            CacheInfo c = admin.caches().alter(name, defaultTtl, maxEntries, maxBytes, keyLimit, valueLimit);
            boolean unchanged = CacheCommand.settings(c).equals(CacheCommand.settings(before));
            if (output.json) {
                Json.print(out, CacheCommand.json(c, admin.caches().stats(name)).put("changed", !unchanged));
            } else {
                out.println((unchanged ? "cache " + name + " unchanged: " : "altered cache " + name + ": ")
                        + CacheCommand.settings(c));
            }
            return 0;
        }
    }

    private CommandLine.ParameterException usage(String message) {
        return new CommandLine.ParameterException(cli.spec.commandLine(), message);
    }
}
