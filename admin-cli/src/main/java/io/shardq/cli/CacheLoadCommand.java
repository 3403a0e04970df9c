package io.shardq.cli;

import io.shardq.broker.Broker;
import io.shardq.broker.CacheInfo;
import io.shardq.broker.ShardQException;
import io.shardq.broker.catalog.Names;
import io.shardq.broker.kv.KvCache;
import io.shardq.broker.shard.BrokerSession;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "load",
        description = {
            "Put the entries of a JSON-lines file (or standard input) into a cache.",
            "One entry per line: {\"key\": \"k\", \"value\": \"text\", \"ttl\": \"5m\"}. A string value is stored as its text; any other JSON value (object, array, number, boolean) as its compact JSON text. ttl is optional (default: the cache's default TTL). The whole input is checked first (standard input is copied to a temporary file for that), so a bad line writes nothing; then entries go in transactions of --batch with putAll. Of lines repeating a key, the last wins."
        })
final class CacheLoadCommand implements Callable<Integer> {
    @Mixin
    CommandContext cli;

    @Parameters(index = "0", paramLabel = "NAME", description = CacheCommand.NAME_HELP)
    String name;

    @Parameters(
            index = "1",
            arity = "0..1",
            paramLabel = "FILE",
            description = "JSON-lines file; '-' or none: standard input")
    String file = "-";

    @Option(names = "--batch", paramLabel = "N", description = "entries per transaction (default: ${DEFAULT-VALUE})")
    int batch = 500;

    @Option(
            names = "--skip",
            paramLabel = "N",
            description = "leave out the first N entries (to resume an interrupted load)")
    long skip;

    @Mixin
    CacheBytes bytes;

    @Mixin
    JsonOption output;

    @Override
    public Integer call() throws IOException {
        if (batch < 1 || batch > 100_000 || skip < 0) {
            throw new CommandLine.ParameterException(
                    cli.spec.commandLine(), "--batch must be 1 to 100,000, --skip 0 or more");
        }
        Names.checkCache(name);
        boolean stdin = file.equals("-");
        String source = stdin ? "standard input" : file;
        Path input = stdin ? spool(CacheCommand.stdin()) : Path.of(file);
        try {
            return load(input, source);
        } finally {
            if (stdin) {
                Files.deleteIfExists(input);
            }
        }
    }

    /** Standard input in a temporary file: it is read twice (checked, then written). */
    private static Path spool(InputStream in) throws IOException {
        Path tmp = Files.createTempFile("shardq-cache-load-", ".jsonl");
        Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
        return tmp;
    }

    private int load(Path input, String source) throws IOException {
        PrintWriter out = cli.spec.commandLine().getOut();
        PrintWriter err = cli.spec.commandLine().getErr();
        try (GracefulStop stop = GracefulStop.install();
                Broker broker = cli.connection.startBroker("cache load")) {
            CacheInfo c = CacheCommand.require(broker.admin(), name);
            long entries = check(input, source, c);
            long total = Math.max(0, entries - skip);
            Progress progress = Progress.forTerminal(err, "loading cache " + name, total);
            KvCache<byte[], byte[]> cache = CacheCommand.open(broker, name);
            long loaded = 0;
            long batches = 0;
            boolean stopped = false;
            try (BufferedReader in = Files.newBufferedReader(input, StandardCharsets.UTF_8)) {
                CacheLines lines = new CacheLines(in, source, c, bytes);
                for (long i = 0; i < skip && lines.next() != null; i++) {
                    // read and left out
                }
                while (true) {
                    if (stop.requested()) {
                        stopped = true;
                        break;
                    }
                    Map<ByteBuffer, CacheLines.Entry> next = new LinkedHashMap<>();
                    int read = 0;
                    CacheLines.Entry e;
                    while (read < batch && (e = lines.next()) != null) {
                        next.remove(ByteBuffer.wrap(e.key())); // the later line wins, in its place
                        next.put(ByteBuffer.wrap(e.key()), e);
                        read++;
                    }
                    if (read == 0) {
                        break;
                    }
                    try {
                        write(broker, cache, next);
                    } catch (ShardQException x) {
                        throw new ShardQException(
                                x.kind(),
                                x.getMessage() + " (in the batch ending at " + source + " line " + lines.lineNo()
                                        + ", rolled back; " + Format.count(loaded) + " entries in "
                                        + Format.count(batches) + " earlier batches stay loaded; resume with --skip "
                                        + (skip + loaded) + ")",
                                x);
                    }
                    loaded += read;
                    batches++;
                    progress.advance(read);
                }
            } finally {
                progress.finish();
            }
            if (output.json) {
                Json.print(
                        out,
                        Json.object()
                                .put("cache", name)
                                .put("source", source)
                                .put("loaded", loaded)
                                .put("skipped", Math.min(skip, entries))
                                .put("batches", batches)
                                .put("millis", progress.elapsedMillis())
                                .put("stopped", stopped));
            } else if (stopped) {
                out.println("stopped after a complete batch: loaded " + Format.count(loaded) + " of "
                        + CacheCommand.entries(total) + " from " + source + " into cache " + name
                        + "; to load the rest: shardq cache load " + name + " " + file + " --skip " + (skip + loaded));
            } else {
                out.println("loaded " + CacheCommand.entries(loaded) + " from " + source + " into cache " + name
                        + " in " + Format.duration(progress.elapsedMillis()) + " ("
                        + Format.count(batches) + (batches == 1 ? " batch" : " batches") + ")"
                        + (skip > 0 ? ", after skipping " + Format.count(Math.min(skip, entries)) : ""));
            }
            out.flush();
            return stopped ? 130 : 0;
        }
    }

    /** Reads the whole input once: the number of entries, or an error naming the first bad line. */
    private long check(Path input, String source, CacheInfo c) throws IOException {
        long n = 0;
        try (BufferedReader in = Files.newBufferedReader(input, StandardCharsets.UTF_8)) {
            CacheLines lines = new CacheLines(in, source, c, bytes);
            while (lines.next() != null) {
                n++;
            }
            return n;
        } catch (java.nio.charset.CharacterCodingException e) {
            throw new ShardQException(
                    io.shardq.broker.ErrorKind.INVALID_ARGUMENT,
                    source + " is not UTF-8 text (after line " + n + ")",
                    e);
        }
    }

    /**
     * One batch in one transaction: putAll per distinct TTL (putAll takes one TTL), all committed
     * together or, on any failure, none.
     */
    private static void write(Broker broker, KvCache<byte[], byte[]> cache, Map<ByteBuffer, CacheLines.Entry> batch) {
        Map<Duration, Map<byte[], byte[]>> byTtl = new HashMap<>();
        Map<byte[], byte[]> defaultTtl = new LinkedHashMap<>();
        for (CacheLines.Entry e : batch.values()) {
            (e.ttl() == null ? defaultTtl : byTtl.computeIfAbsent(e.ttl(), t -> new LinkedHashMap<>()))
                    .put(e.key(), e.value());
        }
        try (BrokerSession session = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            KvCache<byte[], byte[]> in = cache.in(session);
            if (!defaultTtl.isEmpty()) {
                in.putAll(defaultTtl);
            }
            byTtl.forEach((ttl, entries) -> in.putAll(entries, ttl));
            session.commit();
        }
    }
}
