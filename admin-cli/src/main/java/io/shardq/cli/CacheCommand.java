package io.shardq.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.shardq.broker.Admin;
import io.shardq.broker.Broker;
import io.shardq.broker.CacheInfo;
import io.shardq.broker.CacheStats;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.catalog.Names;
import io.shardq.broker.kv.Codec;
import io.shardq.broker.kv.KvCache;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code shardq cache ...}: the key/value cache commands. Run alone, it lists them. */
@Command(
        name = "cache",
        description = "Create, change, inspect and fill key/value caches: entries with a TTL, shared by every"
                + " instance, stored in PostgreSQL.",
        subcommands = {
            CacheCreateCommand.class,
            CacheAlterCommand.class,
            CacheDropCommand.class,
            CacheListCommand.class,
            CacheStatsCommand.class,
            CacheGetCommand.class,
            CachePutCommand.class,
            CacheRemoveCommand.class,
            CacheClearCommand.class,
            CacheLoadCommand.class
        })
final class CacheCommand implements Runnable {
    @Mixin
    HelpOption help;

    static final String NAME_HELP =
            "cache name: 1 to 64 characters from [A-Za-z0-9_.-], starting with a letter or digit";

    /** What tests read instead of the process's stdin; null: the process's own (none in-process). */
    static volatile InputStream testStdin;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /**
     * Standard input for {@code put ... -} and {@code load -}: the process's own when run from
     * {@code main}; in-process (tests) only what a test gave, never the test JVM's stdin.
     */
    static InputStream stdin() {
        InputStream t = testStdin;
        return t != null ? t : ShardqCommand.processStdout ? System.in : InputStream.nullInputStream();
    }

    /** The cache called {@code name}: a clear error when the name is malformed or unknown. */
    /**
     * The cache's statistics, after checking it exists; a cache holding live entries is refused
     * unless {@code force}, with {@code refusal(entries and bytes)} as the message.
     */
    static CacheStats emptyOrForced(
            Admin admin, String name, boolean force, java.util.function.Function<String, String> refusal) {
        require(admin, name);
        CacheStats s = admin.caches().stats(name);
        if (s.entries() > 0 && !force) {
            throw new ShardQException(
                    ErrorKind.ILLEGAL_STATE,
                    refusal.apply(entries(s.entries()) + " (" + Format.bytes(s.bytes()) + ")"));
        }
        return s;
    }

    static CacheInfo require(Admin admin, String name) {
        Names.checkCache(name);
        try {
            return admin.caches().get(name);
        } catch (ShardQException e) {
            if (e.kind() != ErrorKind.UNKNOWN_CACHE) {
                throw e;
            }
            throw new ShardQException(
                    ErrorKind.UNKNOWN_CACHE,
                    "cache \"" + name + "\" does not exist (shardq cache list shows the caches)",
                    e);
        }
    }

    /** A byte view of the cache: the CLI encodes keys and values itself (UTF-8 or base64). */
    static KvCache<byte[], byte[]> open(Broker broker, String name) {
        require(broker.admin(), name);
        return broker.cache(name, Codec.bytes(), Codec.bytes());
    }

    /**
     * "durable, default TTL 10 min, max TTL 1 d, at most 100,000 entries and 64.0 MiB, keys up to
     * 1.0 KiB, values up to 1.0 MiB"
     */
    static String settings(CacheInfo c) {
        List<String> parts = new ArrayList<>();
        parts.add(c.durable() ? "durable" : "unlogged (emptied after a crash, not replicated)");
        parts.add(
                c.defaultTtlMillis() == null
                        ? "no default TTL (entries put without one never expire)"
                        : "default TTL " + Durations.format(c.defaultTtlMillis()));
        parts.add("max TTL " + Durations.format(c.maxTtlMillis()));
        parts.add(bounds(c));
        parts.add("keys up to " + Format.bytes(c.maxKeyBytes()));
        parts.add("values up to " + Format.bytes(c.maxValueBytes()));
        return String.join(", ", parts);
    }

    /** "unbounded", "at most 100,000 entries", "at most 64.0 MiB", or both joined by "and". */
    static String bounds(CacheInfo c) {
        if (c.maxEntries() == null && c.maxBytes() == null) {
            return "unbounded";
        }
        String entries = c.maxEntries() == null ? null : entries(c.maxEntries());
        String bytes = c.maxBytes() == null ? null : Format.bytes(c.maxBytes());
        return "at most "
                + (entries != null && bytes != null ? entries + " and " + bytes : entries != null ? entries : bytes);
    }

    /** "1 entry", "2 entries" */
    static String entries(long n) {
        return Format.count(n) + (n == 1 ? " entry" : " entries");
    }

    /** A cache's settings and size as {@code list --json} and {@code stats --json} show them. */
    static ObjectNode json(CacheInfo c, CacheStats s) {
        ObjectNode o = Json.object();
        o.put("name", c.name());
        o.put("durable", c.durable());
        o.put("defaultTtlMillis", c.defaultTtlMillis());
        o.put("maxTtlMillis", c.maxTtlMillis());
        o.put("maxEntries", c.maxEntries());
        o.put("maxBytes", c.maxBytes());
        o.put("maxKeyBytes", c.maxKeyBytes());
        o.put("maxValueBytes", c.maxValueBytes());
        o.put("entries", s.entries());
        o.put("bytes", s.bytes());
        o.put("expiredUnreclaimed", s.expiredUnreclaimed());
        o.put("diskBytes", c.bytes());
        o.put("partitions", c.partitions());
        o.put("bucketMillis", c.bucketMillis());
        o.put("evictions", s.evictions());
        o.put("expirations", s.expirations());
        o.put("createdAt", c.createdAt().toString());
        return o;
    }
}
