package io.shardq.broker.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.Broker;
import io.shardq.broker.CacheOptions;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.SettableClock;
import io.shardq.broker.testing.TestDatabase;
import java.io.ByteArrayOutputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Each refusal names the problem, and nothing of a refused write is stored. */
@PgTest
class KvBadInputTest {
    Broker broker;
    SettableClock clock = SettableClock.now();
    KvCache<String, String> cache;

    @BeforeEach
    void start(TestDatabase db) {
        broker = Broker.start(db.brokerConfig().build(), clock);
        broker.admin()
                .caches()
                .createOrGet(
                        "bad",
                        CacheOptions.DEFAULTS
                                .withMaxKeyBytes(16)
                                .withMaxValueBytes(64)
                                .withMaxTtl(Duration.ofMinutes(10)));
        cache = broker.cache("bad", Codec.utf8(), Codec.utf8());
        cache.clear();
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    private static AbstractThrowableAssert<?, ? extends Throwable> refused(
            org.assertj.core.api.ThrowableAssert.ThrowingCallable call, ErrorKind kind) {
        return assertThatThrownBy(call).isInstanceOfSatisfying(ShardQException.class, e -> assertThat(e.kind())
                .isEqualTo(kind));
    }

    @Test
    void oversizedKeyOrValue_isRefused_namingTheLimit() {
        refused(() -> cache.put("k".repeat(17), "v"), ErrorKind.INVALID_ARGUMENT)
                .hasMessage("cache \"bad\": a key of 17 bytes is longer than its limit of 16 bytes (max_key_bytes)");
        refused(() -> cache.put("k", "v".repeat(65)), ErrorKind.INVALID_ARGUMENT)
                .hasMessage(
                        "cache \"bad\": a value of 65 bytes is longer than its limit of 64 bytes (max_value_bytes)");
        refused(() -> cache.get("k".repeat(17)), ErrorKind.INVALID_ARGUMENT).hasMessageContaining("max_key_bytes");
        assertThat(cache.stats().entries()).isZero();
    }

    @Test
    void putAll_withOneBadEntry_writesNone() {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < 30; i++) {
            m.put("k" + i, "v" + i);
        }
        m.put("k15", "x".repeat(100));
        refused(() -> cache.withMaxBatchSize(4).putAll(m), ErrorKind.INVALID_ARGUMENT)
                .hasMessageContaining("max_value_bytes");
        assertThat(cache.getAll(m.keySet())).isEmpty();

        // a codec that fails on one value: nothing written either
        KvCache<String, String> picky = broker.cache("bad", Codec.utf8(), new Codec<>() {
            @Override
            public byte[] encode(String value) {
                if (value.equals("poison")) {
                    throw new IllegalArgumentException("poison is not a price");
                }
                return Codec.utf8().encode(value);
            }

            @Override
            public String decode(byte[] bytes) {
                return Codec.utf8().decode(bytes);
            }

            @Override
            public String describe() {
                return "picky";
            }
        });
        m.put("k15", "poison");
        refused(() -> picky.putAll(m), ErrorKind.INVALID_ARGUMENT)
                .hasMessage("cache \"bad\": cannot encode a value (picky codec): poison is not a price");
        assertThat(cache.getAll(m.keySet())).isEmpty();
        // a string that is not valid Unicode
        refused(() -> cache.put("k", "\ud800"), ErrorKind.INVALID_ARGUMENT).hasMessageContaining("UTF-8 string codec");
        assertThat(cache.stats().entries()).isZero();
    }

    @Test
    void unknownCache_andInvalidName_areNamed() {
        refused(() -> broker.cache("nope", Codec.utf8(), Codec.utf8()), ErrorKind.UNKNOWN_CACHE)
                .hasMessage("cache \"nope\" does not exist");
        refused(() -> broker.cache("a;b", Codec.utf8(), Codec.utf8()), ErrorKind.INVALID_NAME)
                .hasMessageStartingWith("cache name \"a;b\" is invalid: expected 1 to 64 characters");
        refused(() -> broker.admin().caches().create("a b", CacheOptions.DEFAULTS), ErrorKind.INVALID_NAME);
        refused(() -> broker.admin().caches().create("bad", CacheOptions.DEFAULTS), ErrorKind.CACHE_EXISTS)
                .hasMessage("cache \"bad\" exists already");
        refused(() -> broker.admin().caches().drop("nope"), ErrorKind.UNKNOWN_CACHE)
                .hasMessage("cache \"nope\" does not exist");

        broker.admin().caches().create("shortlived", CacheOptions.DEFAULTS);
        KvCache<String, String> c = broker.cache("shortlived", Codec.utf8(), Codec.utf8());
        broker.admin().caches().drop("shortlived");
        refused(() -> c.put("k", "v"), ErrorKind.UNKNOWN_CACHE).hasMessageContaining("\"shortlived\" does not exist");
    }

    @Test
    void ttlAboveTheMaximum_isRefused_namingTheLimit() {
        refused(() -> cache.put("k", "v", Duration.ofMinutes(11)), ErrorKind.INVALID_ARGUMENT)
                .hasMessage("cache \"bad\": TTL PT11M (660000 ms) is above the cache's maximum TTL of PT10M"
                        + " (max_ttl_ms 600000, fixed when the cache was created)");
        refused(() -> cache.put("k", "v", Duration.ZERO), ErrorKind.INVALID_ARGUMENT)
                .hasMessageContaining("at least 1 ms");
        assertThat(cache.containsKey("k")).isFalse();
    }

    @Test
    void aBucketIsMadeWhenFirstNeeded_andOneDroppedUnderAWriter_givesAClearError_thenIsMadeAgain() throws Exception {
        clock.advance(Duration.ofDays(2)); // no leader round made partitions this far ahead
        cache.put("k", "v", Duration.ofMinutes(5)); // its partition is made now
        assertThat(cache.get("k")).isEqualTo("v");
        // the partition goes behind this instance's back (a leader whose clock is far ahead)
        long bucket = KvInternals.of(cache)
                .definition()
                .bucket(clock.millis() + Duration.ofMinutes(5).toMillis());
        try (java.sql.Connection c = broker.dataSource().getConnection();
                java.sql.PreparedStatement ps = c.prepareStatement("select shardq.kv_drop_bucket(?, ?)")) {
            ps.setInt(1, KvInternals.of(cache).cacheId());
            ps.setLong(2, bucket);
            ps.execute();
        }
        refused(() -> cache.put("k2", "v", Duration.ofMinutes(5)), ErrorKind.ILLEGAL_STATE)
                .hasMessageContaining("has no partition for entries expiring at this time");
        assertThat(cache.containsKey("k2")).isFalse();
        cache.put("k2", "v", Duration.ofMinutes(5)); // this instance asks for the partition again
        assertThat(cache.get("k2")).isEqualTo("v");
        cache.put("forever", "v"); // no TTL: the forever partition always exists
        assertThat(cache.get("forever")).isEqualTo("v");
    }

    /** Not on the allow-list of the codec below. */
    record Smuggled(String payload) implements Serializable {}

    record Price(String route, long cents, List<String> tags) implements Serializable {}

    @Test
    void serialisedValue_ofADisallowedClass_isRefused_namingTheClass() throws Exception {
        broker.admin().caches().createOrGet("ser", CacheOptions.DEFAULTS);
        KvCache<String, Price> prices = broker.cache(
                "ser", Codec.utf8(), Codec.serialized(Price.class, List.of(), new Codec.SerialLimits(5, 100, 2048)));
        KvCache<String, byte[]> raw = broker.cache("ser", Codec.utf8(), Codec.bytes());
        Price p = new Price("LHR-JFK", 41_00, new ArrayList<>(List.of("x")));
        prices.put("ok", p);
        assertThat(prices.get("ok")).isEqualTo(p);

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ObjectOutputStream o = new ObjectOutputStream(out)) {
            o.writeObject(new Smuggled("rm -rf"));
        }
        raw.put("evil", out.toByteArray());
        refused(() -> prices.get("evil"), ErrorKind.INVALID_ARGUMENT)
                .hasMessageContaining("class " + Smuggled.class.getName() + " is not allowed in a serialised "
                        + Price.class.getName());
    }

    @Test
    void jsonCodec_roundTrips_andNamesWhatItCannotRead() {
        KvCache<String, Price> json = broker.cache("bad", Codec.utf8(), Codec.json(Price.class));
        KvCache<String, String> text = broker.cache("bad", Codec.utf8(), Codec.utf8());
        Price p = new Price("A-B", 12, List.of());
        json.put("p", p);
        assertThat(json.get("p")).isEqualTo(p);
        text.put("q", "{not json");
        refused(() -> json.get("q"), ErrorKind.INVALID_ARGUMENT)
                .hasMessageContaining("cannot decode a stored value (JSON Price codec)");
    }
}
