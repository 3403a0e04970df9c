package io.shardq.jcache;

import io.shardq.broker.Broker;
import io.shardq.broker.testing.SettableClock;
import io.shardq.broker.testing.TestDatabase;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.Properties;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.spi.CachingProvider;

/**
 * The one piece of setup outside javax.cache: a broker on the test database with a clock the test
 * moves, handed to the provider in the properties. {@link #other()} is a second instance (its own
 * broker, as another JVM would have) on the same database.
 */
final class JCacheFixture implements AutoCloseable {
    static final String ALLOW = "io.shardq.jcache.*,org.springframework.cache.support.NullValue";

    final SettableClock clock = SettableClock.now();
    final CachingProvider provider = Caching.getCachingProvider();
    private final TestDatabase db;
    private final Broker broker;
    private Broker otherBroker;
    private CacheManager other;
    final CacheManager manager;

    JCacheFixture(TestDatabase db) {
        this.db = db;
        this.broker = Broker.start(db.brokerConfig().build(), clock);
        this.manager = provider.getCacheManager(
                provider.getDefaultURI(), JCacheFixture.class.getClassLoader(), properties(broker));
    }

    private Properties properties(Broker b) {
        Properties p = new Properties();
        p.put(ShardQCachingProvider.BROKER, b);
        p.put(ShardQCachingProvider.CLOCK, clock);
        p.setProperty(ShardQCachingProvider.SERIAL_ALLOW, ALLOW);
        return p;
    }

    /** A second cache manager on its own broker instance (the same clock), as another JVM would be. */
    synchronized CacheManager other() {
        if (other == null) {
            otherBroker = Broker.start(db.brokerConfig().build(), clock);
            other = provider.getCacheManager(
                    URI.create("shardq:other"),
                    new URLClassLoader(new URL[0], JCacheFixture.class.getClassLoader()),
                    properties(otherBroker));
        }
        return other;
    }

    @Override
    public void close() {
        manager.close();
        if (other != null) {
            other.close();
            otherBroker.close();
        }
        broker.close();
    }
}
