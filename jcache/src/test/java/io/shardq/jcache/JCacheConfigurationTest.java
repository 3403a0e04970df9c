package io.shardq.jcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.Broker;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.io.Serializable;
import java.math.BigDecimal;
import java.net.URI;
import java.util.Properties;
import javax.cache.Cache;
import javax.cache.CacheException;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.expiry.CreatedExpiryPolicy;
import javax.cache.expiry.Duration;
import javax.cache.spi.CachingProvider;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** How the provider's URI and properties select the database, and the README's example. */
@PgTest
class JCacheConfigurationTest {
    public record Price(BigDecimal amount) implements Serializable {
        public Price(String amount) {
            this(new BigDecimal(amount));
        }

        public Price plus(String more) {
            return new Price(amount.add(new BigDecimal(more)));
        }
    }

    TestDatabase db;
    final CachingProvider provider = Caching.getCachingProvider();

    @BeforeEach
    void start(TestDatabase db) {
        this.db = db;
    }

    /** ShardQ settings as provider properties: what a deployment puts in its configuration. */
    private Properties settings() {
        Properties p = new Properties();
        p.setProperty("shardq.jdbc.url", db.jdbcUrl());
        p.setProperty("shardq.jdbc.user", db.user());
        p.setProperty("shardq.jdbc.password", db.password());
        p.setProperty("shardq.pool.size", "4");
        p.setProperty(ShardQCachingProvider.SERIAL_ALLOW, "io.shardq.jcache.*");
        return p;
    }

    @Test
    void readmeExample_onTheDefaultUri_withShardQSettingsInTheProperties() {
        CacheManager manager = provider.getCacheManager(provider.getDefaultURI(), null, settings());
        Broker own = manager.unwrap(Broker.class);
        try {
            // the README's example from here on
            Cache<String, Price> prices = manager.createCache(
                    "prices",
                    new MutableConfiguration<String, Price>()
                            .setTypes(String.class, Price.class)
                            .setExpiryPolicyFactory(CreatedExpiryPolicy.factoryOf(Duration.TEN_MINUTES))
                            .setStatisticsEnabled(true));
            prices.put("EUR", new Price("1.08"));
            prices.invoke("EUR", (entry, args) -> {
                entry.setValue(entry.getValue().plus("0.01"));
                return null;
            });
            // end of the example
            assertThat(prices.get("EUR")).isEqualTo(new Price("1.09"));
        } finally {
            manager.close();
        }
        assertThat(own.isClosed()).as("a manager closes the broker it started").isTrue();
    }

    @Test
    void aJdbcUri_selectsTheDatabase() {
        Properties p = settings();
        p.remove("shardq.jdbc.url");
        CacheManager byUri = provider.getCacheManager(URI.create(db.jdbcUrl()), null, p);
        try (Broker other = Broker.start(db.brokerConfig().build())) {
            byUri.createCache("by-uri", new MutableConfiguration<String, String>().setTypes(String.class, String.class))
                    .put("k", "v");
            Properties given = new Properties();
            given.put(ShardQCachingProvider.BROKER, other);
            CacheManager second = provider.getCacheManager(URI.create("shardq:second"), null, given);
            assertThat(second.getCache("by-uri", String.class, String.class).get("k"))
                    .as("the same database")
                    .isEqualTo("v");
            second.close();
            assertThat(other.isClosed())
                    .as("a broker handed in is the application's to close")
                    .isFalse();
        } finally {
            byUri.close();
        }
    }

    @Test
    void badSettings_areRefused_namingThem() {
        Properties unknown = settings();
        unknown.setProperty("shardq.no-such-setting", "1");
        assertThatThrownBy(() -> provider.getCacheManager(provider.getDefaultURI(), null, unknown))
                .isInstanceOf(CacheException.class)
                .hasMessageContaining("shardq.no-such-setting is not a ShardQ setting");
        Properties clock = settings();
        clock.put(ShardQCachingProvider.CLOCK, "now");
        assertThatThrownBy(() -> provider.getCacheManager(provider.getDefaultURI(), null, clock))
                .isInstanceOf(CacheException.class)
                .hasMessageContaining("must be a java.time.Clock");
        Properties durable = settings();
        durable.setProperty(ShardQCachingProvider.DURABLE, "maybe");
        assertThatThrownBy(() -> provider.getCacheManager(provider.getDefaultURI(), null, durable))
                .isInstanceOf(CacheException.class)
                .hasMessageContaining("expected true or false");
    }
}
