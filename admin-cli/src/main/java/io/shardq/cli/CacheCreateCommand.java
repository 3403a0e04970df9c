package io.shardq.cli;

import io.shardq.broker.Admin;
import io.shardq.broker.CacheInfo;
import io.shardq.broker.CacheOptions;
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
        name = "create",
        description = {
            "Create a key/value cache (shardq.create_cache).",
            "Its entries live in a table of their own, partitioned by expiry time so expired entries are dropped a partition at a time. Durable by default; --unlogged makes writes cheaper, but PostgreSQL empties the cache after a crash or an unclean restart and does not replicate it."
        })
final class CacheCreateCommand implements Callable<Integer> {
    @Mixin
    CommandContext cli;

    @Parameters(paramLabel = "NAME", description = CacheCommand.NAME_HELP)
    String name;

    @Option(names = "--unlogged", description = "UNLOGGED tables: faster writes, emptied after a crash, not replicated")
    boolean unlogged;

    @Option(
            names = "--default-ttl",
            paramLabel = "DURATION",
            converter = Durations.Converter.class,
            description = "TTL of an entry put without one (10m, 12h, 1d; seconds without a unit);"
                    + " default: such entries never expire")
    Duration defaultTtl;

    @Option(
            names = "--max-ttl",
            paramLabel = "DURATION",
            converter = Durations.Converter.class,
            description = "the longest TTL an entry may have, fixed at creation (it sets the width of the expiry"
                    + " partitions: max(1 min, max TTL / 16)); default: --default-ttl, else 1d")
    Duration maxTtl;

    @Option(
            names = "--max-entries",
            paramLabel = "N",
            description = "soft bound: beyond it the maintenance leader evicts the least recently used entries;"
                    + " default: none")
    Long maxEntries;

    @Option(
            names = "--max-bytes",
            paramLabel = "SIZE",
            converter = Sizes.Converter.class,
            description = "soft bound on the stored key and value bytes (64MB, 2GB: powers of 1024), enforced"
                    + " the same way; default: none")
    Long maxBytes;

    @Mixin
    CacheSizeLimits sizes;

    @Option(
            names = "--if-not-exists",
            description = "succeed without a change when the cache exists already (its settings are kept)")
    boolean ifNotExists;

    @Mixin
    JsonOption output;

    @Override
    public Integer call() {
        Names.checkCache(name);
        CacheOptions o = options();
        PrintWriter out = cli.spec.commandLine().getOut();
        try (AdminSession broker = cli.connection.adminSession()) {
            Admin admin = broker.admin();
            boolean existed = ifNotExists
                    && admin.caches().list().stream().anyMatch(c -> c.name().equals(name));
            CacheInfo c = ifNotExists
                    ? admin.caches().createOrGet(name, o)
                    : admin.caches().create(name, o);
            if (output.json) {
                Json.print(
                        out,
                        CacheCommand.json(c, broker.admin().caches().stats(name))
                                .put("created", !existed));
            } else {
                out.println((existed ? "cache " + name + " exists already: " : "created cache " + name + ": ")
                        + CacheCommand.settings(c));
            }
            return 0;
        }
    }

    private CacheOptions options() {
        CacheOptions o = CacheOptions.DEFAULTS.withDurable(!unlogged);
        if (defaultTtl != null) {
            o = o.withDefaultTtl(positive("--default-ttl", defaultTtl));
        }
        if (maxTtl != null) {
            o = o.withMaxTtl(positive("--max-ttl", maxTtl));
        }
        if (defaultTtl != null && maxTtl != null && defaultTtl.compareTo(maxTtl) > 0) {
            throw usage("--default-ttl " + Durations.format(defaultTtl.toMillis()) + " is above --max-ttl "
                    + Durations.format(maxTtl.toMillis()) + ": an entry may never live longer than the max TTL");
        }
        if (maxEntries != null) {
            o = o.withMaxEntries(atLeastOne("--max-entries", maxEntries, "entries (leave it out for no bound)"));
        }
        if (maxBytes != null) {
            o = o.withMaxBytes(atLeastOne("--max-bytes", maxBytes, "bytes (leave it out for no bound)"));
        }
        Integer keyLimit = sizes.keyLimit(cli.spec);
        if (keyLimit != null) {
            o = o.withMaxKeyBytes(keyLimit);
        }
        Integer valueLimit = sizes.valueLimit(cli.spec);
        if (valueLimit != null) {
            o = o.withMaxValueBytes(valueLimit);
        }
        return o;
    }

    private Duration positive(String option, Duration d) {
        if (d.isZero()) {
            throw usage(option + " 0 is invalid: expected a duration of at least 1 ms");
        }
        return d;
    }

    private long atLeastOne(String option, long n, String what) {
        if (n < 1) {
            throw usage(option + " " + n + " is invalid: expected 1 or more " + what);
        }
        return n;
    }

    private CommandLine.ParameterException usage(String message) {
        return new CommandLine.ParameterException(cli.spec.commandLine(), message);
    }
}
