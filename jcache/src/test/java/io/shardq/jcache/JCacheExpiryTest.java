package io.shardq.jcache;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import javax.cache.Cache;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryExpiredListener;
import javax.cache.expiry.AccessedExpiryPolicy;
import javax.cache.expiry.CreatedExpiryPolicy;
import javax.cache.expiry.EternalExpiryPolicy;
import javax.cache.expiry.ModifiedExpiryPolicy;
import javax.cache.expiry.TouchedExpiryPolicy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** JCache's expiry policies, judged by the clock the test moves (never by sleeping). */
@PgTest
class JCacheExpiryTest {
    static final javax.cache.expiry.Duration MINUTE = new javax.cache.expiry.Duration(TimeUnit.MINUTES, 1);

    JCacheFixture f;

    @BeforeEach
    void start(TestDatabase db) {
        f = new JCacheFixture(db);
    }

    @AfterEach
    void stop() {
        f.close();
    }

    private Cache<String, String> cache(
            String name, javax.cache.configuration.Factory<? extends javax.cache.expiry.ExpiryPolicy> p) {
        return f.manager.createCache(
                name,
                new MutableConfiguration<String, String>()
                        .setTypes(String.class, String.class)
                        .setExpiryPolicyFactory(p));
    }

    private void advance(long millis) {
        f.clock.advance(Duration.ofMillis(millis));
    }

    @Test
    void created_expiresAMinuteAfterCreation_whateverHappensMeanwhile() {
        Cache<String, String> c = cache("created", CreatedExpiryPolicy.factoryOf(MINUTE));
        c.put("k", "1");
        advance(30_000);
        c.put("k", "2"); // an update keeps the creation's expiry
        assertThat(c.get("k")).isEqualTo("2");
        advance(29_999);
        assertThat(c.get("k")).isEqualTo("2");
        advance(1);
        assertThat(c.get("k")).isNull();
        assertThat(c.containsKey("k")).isFalse();
    }

    @Test
    void modified_restartsTheMinuteOnEveryUpdate_notOnReads() {
        Cache<String, String> c = cache("modified", ModifiedExpiryPolicy.factoryOf(MINUTE));
        c.put("k", "1");
        advance(30_000);
        assertThat(c.get("k")).isEqualTo("1"); // a read does not extend
        c.replace("k", "2"); // an update does: now expires at 90 s
        advance(59_999);
        assertThat(c.get("k")).isEqualTo("2");
        advance(1);
        assertThat(c.get("k")).isNull();

        c.put("r", "1");
        advance(40_000);
        assertThat(c.get("r")).isEqualTo("1");
        advance(20_000);
        assertThat(c.get("r")).as("a read at 40 s did not extend the entry").isNull();
    }

    @Test
    void accessed_restartsTheMinuteOnEveryRead() {
        Cache<String, String> c = cache("accessed", AccessedExpiryPolicy.factoryOf(MINUTE));
        c.put("k", "1");
        advance(50_000);
        assertThat(c.get("k")).isEqualTo("1"); // now expires at 110 s
        advance(59_999);
        assertThat(c.getAll(java.util.Set.of("k"))).containsEntry("k", "1"); // getAll is an access: 169.999 s
        advance(59_999);
        assertThat(c.containsKey("k")).as("containsKey is not an access").isTrue();
        advance(1);
        assertThat(c.get("k")).isNull();
    }

    @Test
    void touched_restartsTheMinuteOnReadsAndUpdates() {
        Cache<String, String> c = cache("touched", TouchedExpiryPolicy.factoryOf(MINUTE));
        c.put("k", "1");
        advance(50_000);
        c.put("k", "2"); // 110 s
        advance(50_000);
        assertThat(c.get("k")).isEqualTo("2"); // 160 s
        advance(59_999);
        assertThat(c.get("k")).isEqualTo("2");
        advance(60_000);
        assertThat(c.get("k")).isNull();
    }

    @Test
    void eternal_neverExpires_andIsTheDefault() {
        Cache<String, String> eternal = cache("eternal", EternalExpiryPolicy.factoryOf());
        Cache<String, String> plain = f.manager.createCache(
                "plain", new MutableConfiguration<String, String>().setTypes(String.class, String.class));
        eternal.put("k", "1");
        plain.put("k", "1");
        advance(Duration.ofDays(3).toMillis());
        assertThat(eternal.get("k")).isEqualTo("1");
        assertThat(plain.get("k")).isEqualTo("1");
    }

    @Test
    void aZeroCreationDuration_storesNothing() {
        Cache<String, String> c =
                cache("zero", FactoryBuilder.factoryOf(new CreatedExpiryPolicy(javax.cache.expiry.Duration.ZERO)));
        c.put("k", "1");
        assertThat(c.containsKey("k")).isFalse();
    }

    public static final class Expired implements CacheEntryExpiredListener<String, String>, java.io.Serializable {
        static final List<String> SEEN = new CopyOnWriteArrayList<>();

        @Override
        public void onExpired(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
            for (CacheEntryEvent<? extends String, ? extends String> e : events) {
                SEEN.add(e.getKey() + "=" + e.getOldValue());
            }
        }
    }

    @Test
    void anEntrySeenExpired_firesExpired_once_withItsValue() {
        Expired.SEEN.clear();
        Cache<String, String> c = cache("expiring", CreatedExpiryPolicy.factoryOf(MINUTE));
        c.registerCacheEntryListener(new MutableCacheEntryListenerConfiguration<>(
                FactoryBuilder.factoryOf(Expired.class), null, true, true));
        c.put("k", "v");
        c.put("other", "w");
        advance(60_000);
        assertThat(Expired.SEEN).isEmpty(); // nothing looked yet
        assertThat(c.get("k")).isNull();
        assertThat(Expired.SEEN).containsExactly("k=v");
        assertThat(c.get("k")).isNull();
        assertThat(c.putIfAbsent("other", "new"))
                .as("an expired entry is absent to a change")
                .isTrue();
        assertThat(Expired.SEEN).containsExactly("k=v", "other=w");
        assertThat(c.get("other")).isEqualTo("new");
    }
}
