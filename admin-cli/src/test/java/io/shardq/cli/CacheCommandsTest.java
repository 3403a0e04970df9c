package io.shardq.cli;

import static io.shardq.cli.CliRunner.assertOneLineError;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.shardq.broker.Broker;
import io.shardq.broker.kv.Codec;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** cache create, alter, drop, list, stats, get, put, remove, clear, load: output, errors, rows. */
@PgTest
class CacheCommandsTest {
    @TempDir
    Path tmp;

    CliRunner cli;

    @BeforeEach
    void setUp(TestDatabase db) {
        this.cli = new CliRunner(db, tmp);
    }

    @AfterEach
    void noStdin() {
        CacheCommand.testStdin = null;
    }

    /** The command, which must succeed with output ending in a newline. */
    CliRunner.Run ok(String... args) {
        CliRunner.Run r = cli.run(args);
        assertThat(r.exit()).as(String.join(" ", args) + ": " + r.err()).isZero();
        assertThat(r.out()).as(String.join(" ", args)).endsWith("\n");
        return r;
    }

    /** The command, which must fail with one line on stderr, ending in a newline, and nothing on stdout. */
    CliRunner.Run fails(int exit, String... args) {
        CliRunner.Run r = cli.run(args);
        assertOneLineError(r);
        assertThat(r.exit()).as(r.err()).isEqualTo(exit);
        assertThat(r.err()).endsWith("\n");
        assertThat(r.out()).isEmpty();
        return r;
    }

    long entries(String cache) {
        long id = cli.queryLong("select id from shardq.kv_cache where name = ?", cache);
        return cli.queryLong("select count(*) from shardq.\"kv_" + id + "\"");
    }

    long withExpiry(String cache) {
        long id = cli.queryLong("select id from shardq.kv_cache where name = ?", cache);
        return cli.queryLong("select count(*) from shardq.\"kv_" + id + "\" where expires_at is not null");
    }

    static JsonNode named(JsonNode array, String name) {
        for (JsonNode n : array) {
            if (n.get("name").asText().equals(name)) {
                return n;
            }
        }
        throw new AssertionError(name + " not in " + array);
    }

    @Test
    void create_listAndStats_showTheSettings() {
        CliRunner.Run r = ok(
                "cache",
                "create",
                "prices",
                "--default-ttl",
                "10m",
                "--max-ttl",
                "1d",
                "--max-entries",
                "100000",
                "--max-bytes",
                "64MB");
        assertThat(r.out())
                .isEqualTo("created cache prices: durable, default TTL 10 min, max TTL 1 d, at most 100,000 entries"
                        + " and 64.0 MiB, keys up to 1.0 KiB, values up to 1.0 MiB\n");
        assertThat(cli.queryLong("select count(*) from shardq.kv_cache where name = 'prices' and durable"
                        + " and default_ttl_ms = 600000 and max_ttl_ms = 86400000 and max_entries = 100000"
                        + " and max_bytes = 67108864"))
                .isEqualTo(1);

        assertThat(ok("cache", "create", "scratch", "--unlogged", "--max-key-bytes", "64", "--max-value-bytes", "1kB")
                        .out())
                .isEqualTo("created cache scratch: unlogged (emptied after a crash, not replicated), no default TTL"
                        + " (entries put without one never expire), max TTL 1 d, unbounded, keys up to 64 B,"
                        + " values up to 1.0 KiB\n");
        ok("cache", "put", "prices", "EUR", "1.08");

        CliRunner.Run list = ok("cache", "list");
        assertThat(list.out())
                .startsWith("CACHE ")
                .containsPattern("prices\\s+durable\\s+10 min\\s+1 d\\s+100,000\\s+64.0 MiB\\s+1\\s+7 B\\s+\\d")
                .containsPattern("scratch\\s+unlogged\\s+never\\s+1 d\\s+-\\s+-\\s+0\\s+0 B\\s+\\d");
        JsonNode prices = named(ok("cache", "list", "--json").json(), "prices");
        assertThat(prices.get("durable").asBoolean()).isTrue();
        assertThat(prices.get("defaultTtlMillis").asLong()).isEqualTo(600_000);
        assertThat(prices.get("maxTtlMillis").asLong()).isEqualTo(86_400_000);
        assertThat(prices.get("maxEntries").asLong()).isEqualTo(100_000);
        assertThat(prices.get("maxBytes").asLong()).isEqualTo(64L << 20);
        assertThat(prices.get("entries").asLong()).isEqualTo(1);
        assertThat(prices.get("bytes").asLong()).isEqualTo(7);
        assertThat(named(cli.run("cache", "list", "--json").json(), "scratch")
                        .get("defaultTtlMillis")
                        .isNull())
                .isTrue();

        CliRunner.Run stats = ok("cache", "stats", "prices");
        assertThat(stats.out())
                .startsWith("cache prices\n  settings     durable, default TTL 10 min")
                .contains("\n  entries      1 entry live\n")
                .contains("\n  data         7 B of keys and values\n")
                .containsPattern("\n  disk         .* in \\d+ partitions \\(expiry buckets of 90 min\\)\n")
                .contains("\n  evictions    0 entries evicted for the bounds since creation\n")
                .contains("\n  expirations  0 expired entries reclaimed since creation\n")
                .contains("\n  hits/misses  not shown: hits, misses, loads and the hit ratio are counted in memory"
                        + " by each application instance");
        JsonNode s = ok("cache", "stats", "prices", "--json").json();
        assertThat(s.get("name").asText()).isEqualTo("prices");
        assertThat(s.get("entries").asLong()).isEqualTo(1);
        assertThat(s.get("hits").isNull()).isTrue();
        assertThat(s.get("misses").isNull()).isTrue();
        assertThat(s.get("loads").isNull()).isTrue();
        assertThat(s.get("hitRatio").isNull()).isTrue();
        assertThat(s.get("perInstanceCounters").asText()).contains("counted in memory by each application instance");
        assertThat(s.get("evictions").asLong()).isZero();
        assertThat(s.get("expirations").asLong()).isZero();
    }

    @Test
    void create_badInput_namesTheProblem() {
        assertThat(fails(2, "cache", "create", "a;b").err())
                .isEqualTo("shardq: cache name \"a;b\" is invalid: expected 1 to 64 characters from [A-Za-z0-9_.-],"
                        + " starting with a letter or digit\n");
        assertThat(fails(2, "cache", "create", "c1", "--default-ttl", "10x").err())
                .contains("'10x' is not a duration: expected seconds, or a number with ms, s, m, h or d")
                .contains("--default-ttl");
        assertThat(fails(2, "cache", "create", "c1", "--default-ttl", "2d", "--max-ttl", "1d")
                        .err())
                .contains("--default-ttl 2 d is above --max-ttl 1 d");
        assertThat(fails(2, "cache", "create", "c1", "--max-key-bytes", "100kB").err())
                .contains("--max-key-bytes 102,400 is invalid: expected 1 to 65,536 bytes (64.0 KiB)");
        assertThat(fails(2, "cache", "create", "c1", "--max-bytes", "lots").err())
                .contains("'lots' is not a size: expected bytes, or a number with kB, MB, GB or TB");
        assertThat(fails(2, "cache", "create", "c1", "--max-entries", "0").err())
                .contains("--max-entries 0 is invalid: expected 1 or more entries");
        assertThat(cli.queryLong("select count(*) from shardq.kv_cache where name = 'c1'"))
                .isZero();

        ok("cache", "create", "twice", "--max-entries", "5");
        assertThat(fails(2, "cache", "create", "twice").err()).contains("cache \"twice\" exists already");
        assertThat(ok("cache", "create", "twice", "--if-not-exists").out())
                .startsWith("cache twice exists already: durable,")
                .contains("at most 5 entries");
        JsonNode created = ok("cache", "create", "fresh", "--json").json();
        assertThat(created.get("created").asBoolean()).isTrue();
        assertThat(created.get("maxKeyBytes").asInt()).isEqualTo(1024);
    }

    @Test
    void alter_changesWhatIsGiven_andRefusesTheFixedSettings() {
        ok("cache", "create", "alt", "--max-ttl", "1h");
        assertThat(ok("cache", "alter", "alt", "--default-ttl", "5m", "--max-entries", "10", "--max-value-bytes", "2kB")
                        .out())
                .isEqualTo("altered cache alt: durable, default TTL 5 min, max TTL 1 h, at most 10 entries,"
                        + " keys up to 1.0 KiB, values up to 2.0 KiB\n");
        assertThat(ok("cache", "alter", "alt", "--default-ttl", "0", "--max-entries", "0")
                        .out())
                .isEqualTo("altered cache alt: durable, no default TTL (entries put without one never expire),"
                        + " max TTL 1 h, unbounded, keys up to 1.0 KiB, values up to 2.0 KiB\n");
        assertThat(ok("cache", "alter", "alt", "--max-entries", "0").out()).startsWith("cache alt unchanged: ");
        JsonNode j = ok("cache", "alter", "alt", "--max-bytes", "1MB", "--json").json();
        assertThat(j.get("maxBytes").asLong()).isEqualTo(1 << 20);
        assertThat(j.get("changed").asBoolean()).isTrue();

        assertThat(fails(2, "cache", "alter", "alt", "--default-ttl", "2h").err())
                .contains("--default-ttl 2 h is above the max TTL of cache alt, 1 h (fixed at creation)");
        assertThat(fails(2, "cache", "alter", "alt", "--max-ttl", "2h").err())
                .contains("--max-ttl cannot be changed: it is fixed when the cache is created");
        assertThat(fails(2, "cache", "alter", "alt").err()).contains("nothing to change");
        assertThat(fails(2, "cache", "alter", "nope", "--max-entries", "3").err())
                .isEqualTo("shardq: cache \"nope\" does not exist (shardq cache list shows the caches)\n");
    }

    @Test
    void putAndGet_textBinaryFilesAndStdin() throws Exception {
        ok(
                "cache",
                "create",
                "kv",
                "--default-ttl",
                "10m",
                "--max-ttl",
                "1h",
                "--max-key-bytes",
                "16",
                "--max-value-bytes",
                "64");
        assertThat(ok("cache", "put", "kv", "greeting", "h\u00e9llo").out())
                .isEqualTo("put key \"greeting\" in cache kv: 6 bytes, expires in 10 min (the cache's default TTL)\n");
        assertThat(ok("cache", "get", "kv", "greeting").out()).isEqualTo("h\u00e9llo\n");
        assertThat(ok("cache", "put", "kv", "short", "x", "--ttl", "90s").out())
                .isEqualTo("put key \"short\" in cache kv: 1 byte, expires in 1 min 30 s\n");
        assertThat(withExpiry("kv")).isEqualTo(2);

        JsonNode got = ok("cache", "get", "kv", "greeting", "--json").json();
        assertThat(got.get("cache").asText()).isEqualTo("kv");
        assertThat(got.get("key").asText()).isEqualTo("greeting");
        assertThat(got.get("value").asText()).isEqualTo("h\u00e9llo");
        assertThat(got.get("bytes").asInt()).isEqualTo(6);
        assertThat(got.get("base64").asBoolean()).isFalse();
        JsonNode put = ok("cache", "put", "kv", "k2", "v2", "--json").json();
        assertThat(put.get("ttlMillis").asLong()).isEqualTo(600_000);

        Path file = Files.write(tmp.resolve("v.bin"), new byte[] {0, (byte) 0xff, 10});
        ok("cache", "put", "kv", "bin", "--value-file", file.toString());
        CliRunner.Run notText = fails(2, "cache", "get", "kv", "bin");
        assertThat(notText.err()).contains("is not UTF-8 text (3 bytes): read it with --base64");
        assertThat(ok("cache", "get", "kv", "Ymlu", "--base64").out()).isEqualTo("AP8K\n"); // "bin"
        String key = Base64.getEncoder().encodeToString(new byte[] {1, 2, (byte) 0x80});
        ok("cache", "put", "kv", key, "AP8K", "--base64");
        assertThat(ok("cache", "get", "kv", key, "--base64").out()).isEqualTo("AP8K\n");
        try (Broker b = cli.broker("test-reader")) {
            assertThat(b.cache("kv", Codec.bytes(), Codec.bytes()).get(new byte[] {1, 2, (byte) 0x80}))
                    .containsExactly(0, 0xff, 10);
            assertThat(b.cache("kv", Codec.utf8(), Codec.utf8()).get("greeting"))
                    .isEqualTo("h\u00e9llo");
        }

        CacheCommand.testStdin = new ByteArrayInputStream("from stdin".getBytes(StandardCharsets.UTF_8));
        ok("cache", "put", "kv", "piped", "-");
        assertThat(ok("cache", "get", "kv", "piped").out()).isEqualTo("from stdin\n");
    }

    @Test
    void putAndGet_badInput_namesTheProblem() {
        ok("cache", "create", "small", "--max-ttl", "1h", "--max-key-bytes", "8", "--max-value-bytes", "16");
        assertThat(fails(3, "cache", "get", "small", "missing").err())
                .isEqualTo("shardq: cache small has no entry for key \"missing\" (never put, removed or expired)\n");
        assertThat(fails(2, "cache", "get", "nosuch", "k").err())
                .isEqualTo("shardq: cache \"nosuch\" does not exist (shardq cache list shows the caches)\n");
        assertThat(fails(2, "cache", "put", "small", "a-very-long-key", "v").err())
                .contains("a key of 15 bytes is longer than its limit of 8 bytes");
        assertThat(fails(2, "cache", "put", "small", "k", "x".repeat(17)).err())
                .contains("a value of 17 bytes is longer than its limit of 16 bytes");
        assertThat(fails(2, "cache", "put", "small", "k", "v", "--ttl", "2h").err())
                .isEqualTo("shardq: TTL 2 h is above the max TTL of cache small, 1 h (fixed at creation)\n");
        assertThat(fails(2, "cache", "put", "small", "k", "v", "--ttl", "soon").err())
                .contains("'soon' is not a duration");
        assertThat(fails(2, "cache", "put", "small", "k", "v", "--ttl", "0").err())
                .contains("--ttl 0 is invalid");
        assertThat(fails(2, "cache", "put", "small", "k").err()).contains("no value: give VALUE");
        assertThat(fails(2, "cache", "put", "small", "a2s=", "%%%", "--base64").err())
                .contains("value \"%%%\" is not base64 (--base64)");
        assertThat(entries("small")).isZero();
    }

    @Test
    void remove_clear_drop() {
        ok("cache", "create", "rc");
        for (String k : new String[] {"a", "b", "c"}) {
            ok("cache", "put", "rc", k, "v" + k);
        }
        assertThat(ok("cache", "remove", "rc", "a", "b", "zz").out())
                .isEqualTo("removed 2 of 3 keys from cache rc (1 had no live entry)\n");
        JsonNode removed = ok("cache", "remove", "rc", "a", "--json").json();
        assertThat(removed.get("removed").asInt()).isZero();
        assertThat(removed.get("keys").asInt()).isEqualTo(1);
        assertThat(entries("rc")).isEqualTo(1);

        ok("cache", "put", "rc", "d", "vd");
        assertThat(fails(2, "cache", "clear", "rc").err())
                .isEqualTo("shardq: cache rc holds 2 entries (6 B): clear it with --force (they are lost)\n");
        assertThat(entries("rc")).isEqualTo(2);
        assertThat(ok("cache", "clear", "rc", "--force").out()).isEqualTo("cleared cache rc: 2 entries removed\n");
        assertThat(entries("rc")).isZero();
        assertThat(ok("cache", "clear", "rc", "--json").json().get("cleared").asLong())
                .isZero();

        ok("cache", "put", "rc", "e", "ve");
        assertThat(fails(2, "cache", "drop", "rc").err())
                .isEqualTo("shardq: cache rc is not empty: 1 entry (3 B); drop it anyway with --force\n");
        assertThat(ok("cache", "drop", "rc", "--force").out()).isEqualTo("dropped cache rc and its 1 entry\n");
        assertThat(cli.queryLong("select count(*) from shardq.kv_cache where name = 'rc'"))
                .isZero();
        fails(2, "cache", "stats", "rc");
        ok("cache", "create", "empty");
        JsonNode dropped = ok("cache", "drop", "empty", "--json").json();
        assertThat(dropped.get("dropped").asText()).isEqualTo("empty");
        assertThat(dropped.get("entries").asLong()).isZero();
    }

    @Test
    void load_writesInBatches_stringsAndJsonValues_withTtls() throws Exception {
        ok("cache", "create", "ld", "--max-ttl", "1h");
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < 7; i++) {
            lines.append("{\"key\": \"k")
                    .append(i)
                    .append("\", \"value\": \"v")
                    .append(i)
                    .append('"');
            lines.append(i % 2 == 0 ? ", \"ttl\": \"5m\"}\n" : "}\n");
        }
        lines.append(
                "\n{\"key\": \"obj\", \"value\": {\"price\": 1.50, \"n\": 1e3, \"tags\": [\"a\", true]}, \"ttl\": 60}\n");
        lines.append("{\"key\": \"k0\", \"value\": \"last wins\"}\n");
        Path file = Files.writeString(tmp.resolve("entries.jsonl"), lines);

        CliRunner.Run r = ok("cache", "load", "ld", file.toString(), "--batch", "3");
        assertThat(r.out())
                .startsWith("loaded 9 entries from " + file + " into cache ld in ")
                .endsWith(" (3 batches)\n");
        assertThat(entries("ld")).isEqualTo(8);
        assertThat(ok("cache", "get", "ld", "obj").out())
                .isEqualTo("{\"price\":1.50,\"n\":1000,\"tags\":[\"a\",true]}\n");
        assertThat(ok("cache", "get", "ld", "k0").out()).isEqualTo("last wins\n");
        assertThat(ok("cache", "get", "ld", "k5").out()).isEqualTo("v5\n");
        // k2, k4, k6 with 5m, obj with 60 s; k0 was put again without a TTL (the default: none)
        assertThat(withExpiry("ld")).isEqualTo(4);

        CacheCommand.testStdin = new ByteArrayInputStream(
                "{\"key\": \"s1\", \"value\": \"one\"}\n{\"key\": \"s2\", \"value\": \"two\"}\n"
                        .getBytes(StandardCharsets.UTF_8));
        JsonNode j = ok("cache", "load", "ld", "-", "--json").json();
        assertThat(j.get("cache").asText()).isEqualTo("ld");
        assertThat(j.get("source").asText()).isEqualTo("standard input");
        assertThat(j.get("loaded").asLong()).isEqualTo(2);
        assertThat(j.get("batches").asLong()).isEqualTo(1);
        assertThat(j.get("stopped").asBoolean()).isFalse();
        assertThat(ok("cache", "get", "ld", "s2").out()).isEqualTo("two\n");

        Path b64 = Files.writeString(tmp.resolve("b64.jsonl"), "{\"key\": \"AQI=\", \"value\": \"AP8=\"}\n");
        ok("cache", "load", "ld", b64.toString(), "--base64");
        assertThat(ok("cache", "get", "ld", "AQI=", "--base64").out()).isEqualTo("AP8=\n");

        Path resume = Files.writeString(
                tmp.resolve("resume.jsonl"), "{\"key\":\"r1\",\"value\":\"1\"}\n{\"key\":\"r2\",\"value\":\"2\"}\n");
        assertThat(ok("cache", "load", "ld", resume.toString(), "--skip", "1").out())
                .contains("loaded 1 entry from ")
                .endsWith(", after skipping 1\n");
        fails(3, "cache", "get", "ld", "r1");
    }

    @Test
    void load_aBadLine_namesIt_andWritesNothing() throws Exception {
        ok("cache", "create", "bad", "--max-ttl", "1h", "--max-value-bytes", "8");
        String good = "{\"key\": \"a\", \"value\": \"1\"}\n{\"key\": \"b\", \"value\": \"2\"}\n";
        String[][] cases = {
            {"{\"key\": \"c\", \"value\": \"3\"", "line 3: not valid JSON"},
            {
                "{\"key\": \"c\", \"vlaue\": \"3\"}",
                "line 3: unknown field \"vlaue\": expected key, value and optionally ttl"
            },
            {"{\"key\": \"c\"}", "line 3: no \"value\": expected a string or any other JSON value"},
            {"{\"key\": 7, \"value\": \"3\"}", "line 3: \"key\" is a number: expected a string"},
            {
                "{\"key\": \"c\", \"value\": \"123456789\"}",
                "line 3: the value is 9 bytes, longer than the limit of cache bad, 8 bytes"
            },
            {
                "{\"key\": \"c\", \"value\": \"3\", \"ttl\": \"2h\"}",
                "line 3: \"ttl\" 2 h is above the max TTL of cache bad, 1 h"
            },
            {"{\"key\": \"c\", \"value\": \"3\", \"ttl\": \"later\"}", "line 3: 'later' is not a duration"},
            {"[1, 2]", "line 3: expected an object"},
        };
        for (String[] c : cases) {
            Path file =
                    Files.writeString(tmp.resolve("bad.jsonl"), good + c[0] + "\n{\"key\": \"d\", \"value\": \"4\"}\n");
            CliRunner.Run r = fails(2, "cache", "load", "bad", file.toString(), "--batch", "2");
            assertThat(r.err()).as(c[0]).startsWith("shardq: " + file + " " + c[1]);
            assertThat(entries("bad")).as(c[0]).isZero();
        }
        CacheCommand.testStdin = new ByteArrayInputStream((good + "nonsense\n").getBytes(StandardCharsets.UTF_8));
        assertThat(fails(2, "cache", "load", "bad", "--batch", "1").err())
                .startsWith("shardq: standard input line 3: not valid JSON");
        assertThat(entries("bad")).isZero();
        assertThat(fails(2, "cache", "load", "nosuch", tmp.resolve("bad.jsonl").toString())
                        .err())
                .isEqualTo("shardq: cache \"nosuch\" does not exist (shardq cache list shows the caches)\n");
        assertThat(cli.run("cache", "load", "bad", tmp.resolve("missing.jsonl").toString())
                        .err())
                .isEqualTo("shardq: no such file or directory: " + tmp.resolve("missing.jsonl") + "\n");
    }

    @Test
    void help_listsTheCacheCommands() {
        CliRunner.Run r = CliRunner.runBare("cache");
        assertThat(r.exit()).isZero();
        assertThat(r.out())
                .contains("create")
                .contains("alter")
                .contains("drop")
                .contains("list")
                .contains("stats")
                .contains("get")
                .contains("put")
                .contains("remove")
                .contains("clear")
                .contains("load");
    }
}
