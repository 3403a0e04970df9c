package io.shardq.jcache;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.lang.management.ManagementFactory;
import java.util.Set;
import javax.cache.Cache;
import javax.cache.configuration.MutableConfiguration;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** CacheStatisticsMXBean and CacheMXBean, read from the platform MBean server under JSR-107's names. */
@PgTest
class JCacheStatisticsTest {
    final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    JCacheFixture f;

    @BeforeEach
    void start(TestDatabase db) {
        f = new JCacheFixture(db);
    }

    @AfterEach
    void stop() {
        f.close();
    }

    static ObjectName name(String type, String cache) throws Exception {
        return new ObjectName("javax.cache:type=" + type + ",CacheManager=shardq.default,Cache=" + cache);
    }

    private Object stat(String cache, String attribute) throws Exception {
        return server.getAttribute(name("CacheStatistics", cache), attribute);
    }

    @Test
    void statistics_countWhatJCacheCounts() throws Exception {
        Cache<String, String> c = f.manager.createCache(
                "counted",
                new MutableConfiguration<String, String>()
                        .setTypes(String.class, String.class)
                        .setStatisticsEnabled(true));
        c.get("a"); // miss
        c.put("a", "1"); // put
        c.get("a"); // hit
        c.getAll(Set.of("a", "b")); // hit, miss
        c.putAll(java.util.Map.of("b", "1", "c", "2")); // 2 puts
        c.remove("a"); // removal
        c.remove("a"); // nothing removed
        c.getAndRemove("b"); // hit, removal
        assertThat(stat("counted", "CacheHits")).isEqualTo(3L);
        assertThat(stat("counted", "CacheMisses")).isEqualTo(2L);
        assertThat(stat("counted", "CacheGets")).isEqualTo(5L);
        assertThat(stat("counted", "CachePuts")).isEqualTo(3L);
        assertThat(stat("counted", "CacheRemovals")).isEqualTo(2L);
        assertThat(stat("counted", "CacheEvictions")).isEqualTo(0L);
        assertThat((Float) stat("counted", "CacheHitPercentage")).isEqualTo(60f);
        assertThat((Float) stat("counted", "AverageGetTime")).isPositive();
        assertThat((Float) stat("counted", "AveragePutTime")).isPositive();
        assertThat((Float) stat("counted", "AverageRemoveTime")).isPositive();

        server.invoke(name("CacheStatistics", "counted"), "clear", null, null);
        assertThat(stat("counted", "CacheHits")).isEqualTo(0L);
        assertThat(stat("counted", "AverageGetTime")).isEqualTo(0f);

        f.manager.enableStatistics("counted", false);
        assertThat(server.isRegistered(name("CacheStatistics", "counted"))).isFalse();
        c.get("c");
        f.manager.enableStatistics("counted", true);
        assertThat(stat("counted", "CacheHits"))
                .as("not counted while disabled")
                .isEqualTo(0L);
    }

    @Test
    void theConfigurationMBean_isRegisteredWhenManagementIsEnabled_andGoesWithTheCache() throws Exception {
        Cache<String, String> c = f.manager.createCache(
                "managed",
                new MutableConfiguration<String, String>()
                        .setTypes(String.class, String.class)
                        .setManagementEnabled(true));
        ObjectName config = name("CacheConfiguration", "managed");
        assertThat(server.getAttribute(config, "KeyType")).isEqualTo("java.lang.String");
        assertThat(server.getAttribute(config, "StoreByValue")).isEqualTo(true);
        assertThat(server.getAttribute(config, "StatisticsEnabled")).isEqualTo(false);
        assertThat(server.isRegistered(name("CacheStatistics", "managed"))).isFalse();
        f.manager.enableStatistics("managed", true);
        assertThat(server.getAttribute(config, "StatisticsEnabled")).isEqualTo(true);
        assertThat(server.isRegistered(name("CacheStatistics", "managed"))).isTrue();
        c.close();
        assertThat(server.isRegistered(config)).isFalse();
        assertThat(server.isRegistered(name("CacheStatistics", "managed"))).isFalse();
    }
}
