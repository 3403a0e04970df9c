package io.shardq.jcache;

import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.WeakHashMap;
import javax.cache.CacheManager;
import javax.cache.configuration.OptionalFeature;
import javax.cache.spi.CachingProvider;

/**
 * The JSR-107 (JCache) provider over ShardQ's key/value cache, found by {@code
 * Caching.getCachingProvider()} through {@code META-INF/services}.
 *
 * <p><b>Which database.</b> The default URI {@code shardq:default} connects as ShardQ does
 * elsewhere: the settings in the properties given to {@link #getCacheManager(URI, ClassLoader,
 * Properties)} (any {@code shardq.*} key of {@code BrokerProperty}), then system properties, then
 * the environment ({@code SHARDQ_JDBC_URL}, ...), else the embedded PostgreSQL. A URI {@code
 * jdbc:postgresql://host/db} sets the JDBC URL. A started {@code io.shardq.broker.Broker} put in
 * the properties under {@link #BROKER} is used as it is (the application keeps and closes it), so
 * the caches share its pool and its instance, as a JMS connection factory on the same broker does.
 *
 * <p>Settings of this layer only: {@link #SERIAL_ALLOW} (classes a serialised key or value may
 * contain) and {@link #DURABLE} (false: new caches are UNLOGGED), from the properties, else the
 * system property of that name, else the environment ({@code SHARDQ_JCACHE_SERIAL_ALLOW}, {@code
 * SHARDQ_JCACHE_DURABLE}); and {@link #CLOCK} (a {@link java.time.Clock} object in the properties,
 * for tests; it must be the clock the broker runs on).
 */
public final class ShardQCachingProvider implements CachingProvider {
    /** The default URI: the database ShardQ's settings name (see the class comment). */
    public static final URI DEFAULT_URI = URI.create("shardq:default");
    /** Property whose value is a started {@code Broker} to use (not closed by the cache manager). */
    public static final String BROKER = "io.shardq.jcache.broker";
    /** Property whose value is the {@link java.time.Clock} expiry is judged by (default: the system clock). */
    public static final String CLOCK = "io.shardq.jcache.clock";
    /**
     * Comma-separated class names ({@code com.example.Price}), packages ({@code com.example.*}) or
     * package trees ({@code com.example.**}) that serialised keys and values may contain, beyond the
     * configured key and value types, {@code java.lang} boxes, {@code String} and the common
     * collections.
     */
    public static final String SERIAL_ALLOW = "shardq.jcache.serial-allow";
    /** {@code false}: caches this manager creates are UNLOGGED (fast, emptied after a crash). */
    public static final String DURABLE = "shardq.jcache.durable";

    private final Map<ClassLoader, Map<URI, ShardQCacheManager>> managers = new WeakHashMap<>();

    @Override
    public synchronized CacheManager getCacheManager(URI uri, ClassLoader classLoader, Properties properties) {
        URI u = uri == null ? getDefaultURI() : uri;
        ClassLoader cl = classLoader == null ? getDefaultClassLoader() : classLoader;
        Map<URI, ShardQCacheManager> byUri = managers.computeIfAbsent(cl, k -> new HashMap<>());
        ShardQCacheManager m = byUri.get(u);
        if (m == null || m.isClosed()) {
            Properties p = new Properties();
            if (properties != null) {
                p.putAll(properties);
            }
            m = new ShardQCacheManager(this, u, cl, p);
            byUri.put(u, m);
        }
        return m;
    }

    @Override
    public CacheManager getCacheManager(URI uri, ClassLoader classLoader) {
        return getCacheManager(uri, classLoader, getDefaultProperties());
    }

    @Override
    public CacheManager getCacheManager() {
        return getCacheManager(getDefaultURI(), getDefaultClassLoader());
    }

    @Override
    public ClassLoader getDefaultClassLoader() {
        ClassLoader cl = Thread.currentThread().getContextClassLoader();
        return cl != null ? cl : ShardQCachingProvider.class.getClassLoader();
    }

    @Override
    public URI getDefaultURI() {
        return DEFAULT_URI;
    }

    @Override
    public Properties getDefaultProperties() {
        return new Properties();
    }

    @Override
    public void close() {
        for (ShardQCacheManager m : all(null)) {
            m.close();
        }
    }

    @Override
    public void close(ClassLoader classLoader) {
        for (ShardQCacheManager m : all(classLoader == null ? getDefaultClassLoader() : classLoader)) {
            m.close();
        }
    }

    @Override
    public void close(URI uri, ClassLoader classLoader) {
        ShardQCacheManager m;
        synchronized (this) {
            Map<URI, ShardQCacheManager> byUri =
                    managers.get(classLoader == null ? getDefaultClassLoader() : classLoader);
            m = byUri == null ? null : byUri.get(uri == null ? getDefaultURI() : uri);
        }
        if (m != null) {
            m.close();
        }
    }

    private synchronized java.util.List<ShardQCacheManager> all(ClassLoader only) {
        java.util.List<ShardQCacheManager> out = new java.util.ArrayList<>();
        managers.forEach((cl, byUri) -> {
            if (only == null || only == cl) {
                out.addAll(byUri.values());
            }
        });
        return out;
    }

    /** Called by a closing manager. */
    synchronized void forget(ShardQCacheManager m) {
        Map<URI, ShardQCacheManager> byUri = managers.get(m.getClassLoader());
        if (byUri != null && byUri.get(m.getURI()) == m) {
            byUri.remove(m.getURI());
        }
    }

    /** Store-by-reference is not offered: entries live in PostgreSQL, so every read is a copy. */
    @Override
    public boolean isSupported(OptionalFeature optionalFeature) {
        return false;
    }
}
