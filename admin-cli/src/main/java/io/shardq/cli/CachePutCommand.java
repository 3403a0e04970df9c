package io.shardq.cli;

import io.shardq.broker.Broker;
import io.shardq.broker.CacheInfo;
import io.shardq.broker.catalog.Names;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "put",
        description = {
            "Store a value under a key, replacing any value it had.",
            "The value is the VALUE argument (UTF-8 text, or base64 with --base64), the bytes of --value-file, or standard input when VALUE is '-' (file and stdin are stored byte for byte, also with --base64)."
        })
final class CachePutCommand implements Callable<Integer> {
    @Mixin
    CommandContext cli;

    @Parameters(index = "0", paramLabel = "NAME", description = CacheCommand.NAME_HELP)
    String name;

    @Parameters(index = "1", paramLabel = "KEY", description = "the key: UTF-8 text, or base64 with --base64")
    String key;

    @Parameters(
            index = "2",
            arity = "0..1",
            paramLabel = "VALUE",
            description = "the value; '-' reads it from standard input")
    String value;

    @Option(names = "--value-file", paramLabel = "FILE", description = "read the value from FILE, byte for byte")
    Path valueFile;

    @Option(
            names = "--ttl",
            paramLabel = "DURATION",
            converter = Durations.Converter.class,
            description = "expire the entry after DURATION (90s, 5m, 12h, 1d), at most the cache's max TTL;"
                    + " default: the cache's default TTL")
    Duration ttl;

    @Mixin
    CacheBytes bytes;

    @Mixin
    JsonOption output;

    @Override
    public Integer call() throws IOException {
        if ((value == null) == (valueFile == null)) {
            throw new CommandLine.ParameterException(
                    cli.spec.commandLine(),
                    value == null
                            ? "no value: give VALUE, '-' for standard input, or --value-file FILE"
                            : "give VALUE or --value-file, not both");
        }
        if (ttl != null && ttl.isZero()) {
            throw new CommandLine.ParameterException(
                    cli.spec.commandLine(), "--ttl 0 is invalid: expected a duration of at least 1 ms");
        }
        Names.checkCache(name);
        byte[] k = bytes.encode("key", key);
        byte[] v = valueFile != null
                ? Files.readAllBytes(valueFile)
                : value.equals("-") ? CacheCommand.stdin().readAllBytes() : bytes.encode("value", value);
        PrintWriter out = cli.spec.commandLine().getOut();
        try (Broker broker = cli.connection.startBroker("cache put")) {
            CacheInfo c = CacheCommand.require(broker.admin(), name);
            checkTtl(c, ttl);
            CacheCommand.open(broker, name).put(k, v, ttl);
            Long ttlMillis = ttl != null ? Long.valueOf(ttl.toMillis()) : c.defaultTtlMillis();
            if (output.json) {
                Json.print(
                        out,
                        Json.object()
                                .put("cache", name)
                                .put("key", key)
                                .put("bytes", v.length)
                                .put("ttlMillis", ttlMillis));
            } else {
                out.println("put key \"" + CacheBytes.cut(key) + "\" in cache " + name + ": "
                        + Format.count(v.length) + (v.length == 1 ? " byte, " : " bytes, ")
                        + (ttlMillis == null
                                ? "never expires"
                                : "expires in " + Durations.format(ttlMillis)
                                        + (ttl == null ? " (the cache's default TTL)" : "")));
            }
            return 0;
        }
    }

    /** A TTL above the cache's max, said with the CLI's durations (the engine's message speaks millis). */
    static void checkTtl(CacheInfo c, Duration ttl) {
        if (ttl != null && ttl.toMillis() > c.maxTtlMillis()) {
            throw new io.shardq.broker.ShardQException(
                    io.shardq.broker.ErrorKind.INVALID_ARGUMENT,
                    "TTL " + Durations.format(ttl.toMillis()) + " is above the max TTL of cache " + c.name() + ", "
                            + Durations.format(c.maxTtlMillis()) + " (fixed at creation)");
        }
    }
}
