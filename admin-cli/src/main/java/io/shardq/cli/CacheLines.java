package io.shardq.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import io.shardq.broker.CacheInfo;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Iterator;
import java.util.Set;

/**
 * The JSON lines of {@code cache load}: {@code {"key": "k", "value": ..., "ttl": "5m"}}, one
 * entry per line, blank lines ignored. A string value is stored as its text (UTF-8, or decoded
 * from base64 with {@code --base64}); any other JSON value (object, array, number, boolean) is
 * stored as its compact JSON text, so an application reading the cache with {@code Codec.utf8()}
 * gets the JSON back and one using a JSON codec gets the object. {@code ttl} is a duration as the
 * options take it ({@code "90s"}, {@code "5m"}) or a number of seconds; left out or null, the
 * cache's default TTL. Each entry is checked against the cache's limits here, before anything
 * is written.
 */
final class CacheLines {
    /** One line's entry; {@code ttl} null: the cache's default TTL. */
    record Entry(byte[] key, byte[] value, Duration ttl) {}

    private static final Set<String> FIELDS = Set.of("key", "value", "ttl");

    /** Numbers as written (1.50 kept, not 1.5), not through doubles. */
    private static final ObjectReader READER =
            Json.MAPPER.reader().without(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES);

    /** Numbers without exponents (1e3 as 1000). */
    private static final ObjectWriter COMPACT =
            Json.MAPPER.writer().with(JsonGenerator.Feature.WRITE_BIGDECIMAL_AS_PLAIN);

    private final BufferedReader in;
    private final String source;
    private final CacheInfo cache;
    private final CacheBytes bytes;
    private long lineNo;

    /**
     * @param source how errors name the input: the file, or "standard input"
     */
    CacheLines(BufferedReader in, String source, CacheInfo cache, CacheBytes bytes) {
        this.in = in;
        this.source = source;
        this.cache = cache;
        this.bytes = bytes;
    }

    /** The number of the line {@link #next} returned last. */
    long lineNo() {
        return lineNo;
    }

    /** The next entry, or null at the end; a bad line throws naming its number. */
    Entry next() throws IOException {
        String line;
        while ((line = in.readLine()) != null) {
            lineNo++;
            if (!line.isBlank()) {
                try {
                    return parse(READER.readTree(line));
                } catch (JsonProcessingException e) {
                    throw bad("not valid JSON: " + e.getOriginalMessage());
                } catch (IllegalArgumentException | ShardQException e) {
                    throw bad(e.getMessage());
                }
            }
        }
        return null;
    }

    private ShardQException bad(String problem) {
        return new ShardQException(ErrorKind.INVALID_ARGUMENT, source + " line " + lineNo + ": " + problem);
    }

    private Entry parse(JsonNode n) {
        if (!n.isObject()) {
            throw new IllegalArgumentException(
                    "expected an object {\"key\": \"...\", \"value\": ..., \"ttl\": \"5m\"}, not " + kind(n));
        }
        for (Iterator<String> f = n.fieldNames(); f.hasNext(); ) {
            String field = f.next();
            if (!FIELDS.contains(field)) {
                throw new IllegalArgumentException(
                        "unknown field \"" + field + "\": expected key, value and optionally ttl");
            }
        }
        JsonNode k = n.get("key");
        if (k == null || !k.isTextual()) {
            throw new IllegalArgumentException(
                    k == null ? "no \"key\"" : "\"key\" is " + kind(k) + ": expected a string");
        }
        byte[] key = bytes.encode("key", k.textValue());
        if (key.length > cache.maxKeyBytes()) {
            throw new IllegalArgumentException("the key is " + Format.count(key.length) + " bytes, longer than the"
                    + " limit of cache " + cache.name() + ", " + Format.count(cache.maxKeyBytes()) + " bytes");
        }
        byte[] value = value(n.get("value"));
        if (value.length > cache.maxValueBytes()) {
            throw new IllegalArgumentException("the value is " + Format.count(value.length) + " bytes, longer than"
                    + " the limit of cache " + cache.name() + ", " + Format.count(cache.maxValueBytes()) + " bytes");
        }
        return new Entry(key, value, ttl(n.get("ttl")));
    }

    private byte[] value(JsonNode v) {
        if (v == null || v.isNull()) {
            throw new IllegalArgumentException((v == null ? "no \"value\"" : "\"value\" is null")
                    + ": expected a string or any other JSON value (stored as its JSON text)");
        }
        if (v.isTextual()) {
            return bytes.encode("value", v.textValue());
        }
        if (bytes.base64) {
            throw new IllegalArgumentException("\"value\" is " + kind(v) + ": with --base64 expected a base64 string");
        }
        try {
            return COMPACT.writeValueAsString(v).getBytes(StandardCharsets.UTF_8);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Duration ttl(JsonNode t) {
        if (t == null || t.isNull()) {
            return null;
        }
        Duration d;
        if (t.isIntegralNumber() && t.canConvertToLong() && t.longValue() >= 0) {
            d = Duration.ofSeconds(t.longValue());
        } else if (t.isTextual()) {
            d = Durations.parse(t.textValue());
        } else {
            throw new IllegalArgumentException("\"ttl\" is " + kind(t) + ": " + Durations.EXPECTED);
        }
        if (d.isZero()) {
            throw new IllegalArgumentException(
                    "\"ttl\" 0 is invalid: expected at least 1 ms (or leave it out for the" + " cache's default TTL)");
        }
        if (d.toMillis() > cache.maxTtlMillis()) {
            throw new IllegalArgumentException("\"ttl\" " + Durations.format(d.toMillis()) + " is above the max TTL"
                    + " of cache " + cache.name() + ", " + Durations.format(cache.maxTtlMillis())
                    + " (fixed at creation)");
        }
        return d;
    }

    private static String kind(JsonNode n) {
        return switch (n.getNodeType()) {
            case ARRAY -> "an array";
            case OBJECT -> "an object";
            case NUMBER -> "a number";
            case BOOLEAN -> "a boolean";
            case NULL -> "null";
            case STRING -> "a string";
            default -> n.getNodeType().toString().toLowerCase(java.util.Locale.ROOT);
        };
    }
}
