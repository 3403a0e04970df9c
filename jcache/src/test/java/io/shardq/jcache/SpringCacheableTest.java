package io.shardq.jcache;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.io.Serializable;
import java.math.BigDecimal;
import java.util.concurrent.atomic.AtomicInteger;
import javax.cache.Cache;
import javax.cache.configuration.MutableConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.cache.CacheManager;
import org.springframework.cache.annotation.CacheEvict;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.cache.jcache.JCacheCacheManager;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Spring's {@code @Cacheable} on ShardQ through Spring's JCache support (JCacheCacheManager). */
@PgTest
class SpringCacheableTest {
    public record Price(String sku, BigDecimal amount) implements Serializable {}

    public static class PriceService {
        /** Static: Spring's proxy is a subclass instance whose own fields are never set. */
        static final AtomicInteger LOOKUPS = new AtomicInteger();

        @Cacheable("prices")
        public Price price(String sku) {
            LOOKUPS.incrementAndGet();
            return sku.equals("none") ? null : new Price(sku, new BigDecimal("9.99"));
        }

        @CacheEvict("prices")
        public void changed(String sku) {}

        @CacheEvict(cacheNames = "prices", allEntries = true)
        public void changedAll() {}
    }

    @Configuration
    @EnableCaching
    static class App {
        static javax.cache.CacheManager jcache;

        @Bean
        CacheManager cacheManager() {
            return new JCacheCacheManager(jcache);
        }

        @Bean
        PriceService priceService() {
            return new PriceService();
        }
    }

    JCacheFixture f;
    AnnotationConfigApplicationContext spring;

    @BeforeEach
    void start(TestDatabase db) {
        f = new JCacheFixture(db);
        PriceService.LOOKUPS.set(0);
        f.manager.createCache("prices", new MutableConfiguration<>());
        App.jcache = f.manager;
        spring = new AnnotationConfigApplicationContext(App.class);
    }

    @AfterEach
    void stop() {
        spring.close();
        f.close();
    }

    @Test
    void cacheable_callsTheMethodOnce_andTheValueIsInTheShardQCache() {
        PriceService s = spring.getBean(PriceService.class);
        Price first = s.price("apple");
        Price second = s.price("apple");
        assertThat(second).isEqualTo(first).isNotSameAs(first);
        assertThat(PriceService.LOOKUPS).hasValue(1);
        Cache<Object, Object> prices = f.other().getCache("prices");
        assertThat(prices.get("apple"))
                .as("stored in PostgreSQL: another instance reads it")
                .isEqualTo(new Price("apple", new BigDecimal("9.99")));

        s.changed("apple");
        s.price("apple");
        assertThat(PriceService.LOOKUPS).hasValue(2);

        assertThat(s.price("none")).isNull();
        assertThat(s.price("none")).isNull();
        assertThat(PriceService.LOOKUPS)
                .as("a null is cached too (Spring's NullValue)")
                .hasValue(3);

        s.changedAll(); // Spring calls removeAll()
        s.price("apple");
        assertThat(PriceService.LOOKUPS).hasValue(4);
    }
}
