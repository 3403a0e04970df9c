package io.shardq.jcache;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.CacheInfo;
import io.shardq.broker.CacheOptions;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.catalog.Names;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import javax.cache.Cache;
import javax.cache.CacheException;
import javax.cache.CacheManager;
import javax.cache.configuration.CompleteConfiguration;
import javax.cache.configuration.Configuration;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.expiry.AccessedExpiryPolicy;
import javax.cache.expiry.CreatedExpiryPolicy;
import javax.cache.expiry.ExpiryPolicy;
import javax.cache.expiry.ModifiedExpiryPolicy;
import javax.cache.expiry.TouchedExpiryPolicy;
import javax.cache.spi.CachingProvider;

/**
 * A JCache {@link CacheManager} over one ShardQ {@link Broker}: its own (started from the URI and
 * properties, closed with it) or one the application handed in ({@link ShardQCachingProvider#BROKER}).
 * A JCache cache is a ShardQ key/value cache of the same name, made through the Admin API when
 * absent; caches made by another JVM are opened, not refused, so every instance of an application
 * may call {@code createCache} at start.
 */
final class ShardQCacheManager implements CacheManager {
    private final ShardQCachingProvider provider;
    private final URI uri;
    private final ClassLoader classLoader;
    private final Properties properties;
    private final Broker broker;
    private final boolean ownsBroker;
    private final Clock clock;
    private final List<String> serialAllow;
    private final boolean durable;
    private final ConcurrentMap<String, ShardQCache<?, ?>> caches = new ConcurrentHashMap<>();
    private volatile boolean closed;

    ShardQCacheManager(ShardQCachingProvider provider, URI uri, ClassLoader classLoader, Properties properties) {
        this.provider = provider;
        this.uri = uri;
        this.classLoader = classLoader;
        this.properties = properties;
        Object c = properties.get(ShardQCachingProvider.CLOCK);
        if (c != null && !(c instanceof Clock)) {
            throw new CacheException("property " + ShardQCachingProvider.CLOCK + " must be a java.time.Clock, got a "
                    + c.getClass().getName());
        }
        this.clock = c == null ? Clock.systemUTC() : (Clock) c;
        this.serialAllow = allowList(setting(properties, ShardQCachingProvider.SERIAL_ALLOW, ""));
        String d = setting(properties, ShardQCachingProvider.DURABLE, "true").trim();
        if (!d.equals("true") && !d.equals("false")) {
            throw new CacheException(
                    "property " + ShardQCachingProvider.DURABLE + " is \"" + d + "\": expected true or false");
        }
        this.durable = Boolean.parseBoolean(d);
        Object b = properties.get(ShardQCachingProvider.BROKER);
        if (b != null) {
            if (!(b instanceof Broker given)) {
                throw new CacheException("property " + ShardQCachingProvider.BROKER
                        + " must be a started io.shardq.broker.Broker, got a "
                        + b.getClass().getName());
            }
            this.broker = given;
            this.ownsBroker = false;
        } else {
            try {
                this.broker = Broker.start(config(uri, properties), clock);
            } catch (ShardQException e) {
                throw new CacheException("cannot start ShardQ for cache manager " + uri + ": " + e.getMessage(), e);
            }
            this.ownsBroker = true;
        }
    }

    /** Broker settings: the URI's JDBC URL and the properties' shardq.* keys, then the usual fallbacks. */
    static BrokerConfig config(URI uri, Properties properties) {
        BrokerConfig.Builder b = BrokerConfig.builder();
        if ("jdbc".equals(uri.getScheme())) {
            b.set(BrokerProperty.JDBC_URL, uri.toString());
        } else if (!ShardQCachingProvider.DEFAULT_URI.equals(uri)) {
            throw new CacheException("cache manager URI " + uri + " is not understood: expected "
                    + ShardQCachingProvider.DEFAULT_URI + " or jdbc:postgresql://host:port/database");
        }
        for (String key : properties.stringPropertyNames()) {
            if (!key.startsWith("shardq.") || key.startsWith("shardq.jcache.")) {
                continue;
            }
            BrokerProperty p = null;
            for (BrokerProperty candidate : BrokerProperty.values()) {
                if (candidate.key().equals(key)) {
                    p = candidate;
                }
            }
            if (p == null) {
                throw new CacheException("property " + key + " is not a ShardQ setting (see the README's"
                        + " configuration table; JCache's own are shardq.jcache.serial-allow and"
                        + " shardq.jcache.durable)");
            }
            b.set(p, properties.getProperty(key));
        }
        return b.build();
    }

    /**
     * A setting of this layer: the properties, then the system property of the same name, then the
     * environment ({@code shardq.jcache.serial-allow} is {@code SHARDQ_JCACHE_SERIAL_ALLOW}), as
     * for ShardQ's own settings.
     */
    static String setting(Properties properties, String key, String fallback) {
        String v = properties.getProperty(key);
        if (v == null) {
            v = System.getProperty(key);
        }
        if (v == null) {
            v = System.getenv(
                    key.toUpperCase(java.util.Locale.ROOT).replace('.', '_').replace('-', '_'));
        }
        return v == null ? fallback : v;
    }

    private static List<String> allowList(String raw) {
        List<String> out = new ArrayList<>();
        for (String s : raw.split(",")) {
            if (!s.isBlank()) {
                out.add(s.trim());
            }
        }
        return List.copyOf(out);
    }

    /**
     * The ShardQ cache behind a JCache name. JCache names are any strings; ShardQ's are 1 to 64 of
     * {@code [A-Za-z0-9_.-]} starting with a letter or digit. A name that is valid is used as it is
     * (so {@code shardq cache get prices EUR} finds the entries of JCache's "prices"); any other is
     * mapped, the same way in every JVM, to its valid characters (others become {@code _}, cut to
     * 55) and {@code -} and the first 8 hex digits of the SHA-256 of the name: "new cache" is
     * {@code new_cache-<hash>}.
     */
    static String storeName(String name) {
        if (Names.DESTINATION.matcher(name).matches()) {
            return name;
        }
        StringBuilder b = new StringBuilder();
        for (char c : name.toCharArray()) {
            boolean ok = c < 128 && (Character.isLetterOrDigit(c) || c == '_' || c == '.' || c == '-');
            b.append(ok ? c : '_');
        }
        if (b.length() == 0 || !Character.isLetterOrDigit(b.charAt(0))) {
            b.insert(0, 'j');
        }
        if (b.length() > 55) {
            b.setLength(55);
        }
        try {
            byte[] h = java.security.MessageDigest.getInstance("SHA-256")
                    .digest(name.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return b + "-" + java.util.HexFormat.of().formatHex(h, 0, 4);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    Broker broker() {
        return broker;
    }

    Clock clock() {
        return clock;
    }

    List<String> serialAllow() {
        return serialAllow;
    }

    @Override
    public CachingProvider getCachingProvider() {
        return provider;
    }

    @Override
    public URI getURI() {
        return uri;
    }

    @Override
    public ClassLoader getClassLoader() {
        return classLoader;
    }

    @Override
    public Properties getProperties() {
        return properties;
    }

    @Override
    public <K, V, C extends Configuration<K, V>> Cache<K, V> createCache(String cacheName, C configuration) {
        checkOpen();
        Objects.requireNonNull(cacheName, "cacheName");
        Objects.requireNonNull(configuration, "configuration");
        MutableConfiguration<K, V> config = copy(configuration);
        if (!config.isStoreByValue()) {
            throw new UnsupportedOperationException("cache \"" + cacheName + "\": store-by-reference is not"
                    + " supported: entries live in PostgreSQL, so every read returns a copy (use the default,"
                    + " setStoreByValue(true))");
        }
        Codecs.check(cacheName, config.getKeyType(), "key");
        Codecs.check(cacheName, config.getValueType(), "value");
        synchronized (caches) {
            if (caches.containsKey(cacheName)) {
                throw new CacheException("cache \"" + cacheName + "\" already exists in this cache manager");
            }
            try {
                broker.admin().caches().createOrGet(storeName(cacheName), options(config));
            } catch (ShardQException e) {
                throw new CacheException("cannot create cache \"" + cacheName + "\": " + e.getMessage(), e);
            }
            ShardQCache<K, V> cache = new ShardQCache<>(this, cacheName, config);
            caches.put(cacheName, cache);
            return cache;
        }
    }

    /**
     * The ShardQ cache's options: durable unless told, no default TTL (JCache's eternal entries
     * must not expire), a maximum TTL covering the expiry policy's durations plus the grace period
     * (at least a day). Only JSR-107's own policies are asked for their durations (they are
     * constants); a policy of the application's is not called here, since it may count its calls
     * or depend on state: its entries get the day (a longer duration is refused when used, naming
     * the maximum TTL).
     */
    private CacheOptions options(MutableConfiguration<?, ?> config) {
        Duration max = Duration.ofDays(1);
        ExpiryPolicy p = config.getExpiryPolicyFactory().create();
        if (p instanceof CreatedExpiryPolicy
                || p instanceof AccessedExpiryPolicy
                || p instanceof ModifiedExpiryPolicy
                || p instanceof TouchedExpiryPolicy) {
            for (javax.cache.expiry.Duration d : new javax.cache.expiry.Duration[] {
                p.getExpiryForCreation(), p.getExpiryForUpdate(), p.getExpiryForAccess()
            }) {
                if (d != null && !d.isEternal() && !d.isZero()) {
                    Duration j = Duration.ofMillis(d.getTimeUnit().toMillis(d.getDurationAmount()));
                    if (j.compareTo(max) > 0) {
                        max = j;
                    }
                }
            }
        }
        return CacheOptions.DEFAULTS.withDurable(durable).withMaxTtl(max.plus(Expiries.GRACE));
    }

    @SuppressWarnings("unchecked")
    private static <K, V> MutableConfiguration<K, V> copy(Configuration<K, V> c) {
        if (c instanceof CompleteConfiguration<K, V> complete) {
            return new MutableConfiguration<>(complete);
        }
        MutableConfiguration<K, V> m = new MutableConfiguration<>();
        m.setTypes(c.getKeyType(), c.getValueType());
        m.setStoreByValue(c.isStoreByValue());
        return m;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <K, V> Cache<K, V> getCache(String cacheName, Class<K> keyType, Class<V> valueType) {
        checkOpen();
        Objects.requireNonNull(keyType, "keyType");
        Objects.requireNonNull(valueType, "valueType");
        ShardQCache<?, ?> c = open(cacheName, keyType, valueType);
        if (c == null) {
            return null;
        }
        Class<?> k = c.configuration().getKeyType();
        Class<?> v = c.configuration().getValueType();
        if (k != keyType || v != valueType) {
            throw new ClassCastException("cache \"" + cacheName + "\" is configured for " + k.getName() + " -> "
                    + v.getName() + ", not " + keyType.getName() + " -> " + valueType.getName());
        }
        return (Cache<K, V>) c;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <K, V> Cache<K, V> getCache(String cacheName) {
        checkOpen();
        return (Cache<K, V>) open(cacheName, Object.class, Object.class);
    }

    /** This manager's cache, or one another JVM made (opened with these types), or null. */
    private ShardQCache<?, ?> open(String cacheName, Class<?> keyType, Class<?> valueType) {
        Objects.requireNonNull(cacheName, "cacheName");
        synchronized (caches) {
            ShardQCache<?, ?> c = caches.get(cacheName);
            if (c != null) {
                return c;
            }
            CacheInfo info;
            try {
                info = broker.admin().caches().get(storeName(cacheName));
            } catch (ShardQException e) {
                if (e.kind() == ErrorKind.UNKNOWN_CACHE || e.kind() == ErrorKind.INVALID_NAME) {
                    return null;
                }
                throw new CacheException(e.getMessage(), e);
            }
            Objects.requireNonNull(info);
            MutableConfiguration<Object, Object> config = new MutableConfiguration<>();
            config.setTypes((Class<Object>) keyType, (Class<Object>) valueType);
            ShardQCache<Object, Object> opened = new ShardQCache<>(this, cacheName, config);
            caches.put(cacheName, opened);
            return opened;
        }
    }

    @Override
    public Iterable<String> getCacheNames() {
        checkOpen();
        return Collections.unmodifiableList(new ArrayList<>(caches.keySet()));
    }

    /** Closes this manager's cache and drops the ShardQ cache with its entries, for every JVM. */
    @Override
    public void destroyCache(String cacheName) {
        checkOpen();
        Objects.requireNonNull(cacheName, "cacheName");
        ShardQCache<?, ?> c;
        synchronized (caches) {
            c = caches.remove(cacheName);
        }
        if (c != null) {
            c.closeLocal();
        }
        try {
            broker.admin().caches().drop(storeName(cacheName));
        } catch (ShardQException e) {
            if (e.kind() != ErrorKind.UNKNOWN_CACHE && e.kind() != ErrorKind.INVALID_NAME) {
                throw new CacheException("cannot destroy cache \"" + cacheName + "\": " + e.getMessage(), e);
            }
        }
    }

    @Override
    public void enableManagement(String cacheName, boolean enabled) {
        checkOpen();
        ShardQCache<?, ?> c = caches.get(Objects.requireNonNull(cacheName, "cacheName"));
        if (c != null) {
            c.setManagementEnabled(enabled);
        }
    }

    @Override
    public void enableStatistics(String cacheName, boolean enabled) {
        checkOpen();
        ShardQCache<?, ?> c = caches.get(Objects.requireNonNull(cacheName, "cacheName"));
        if (c != null) {
            c.setStatisticsEnabled(enabled);
        }
    }

    /** Called by a cache's own {@code close()}: a later getCache opens it again. */
    void forget(ShardQCache<?, ?> c) {
        caches.remove(c.getName(), c);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (ShardQCache<?, ?> c : new ArrayList<>(caches.values())) {
            c.closeLocal();
        }
        caches.clear();
        provider.forget(this);
        if (ownsBroker) {
            broker.close();
        }
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    @Override
    public <T> T unwrap(Class<T> clazz) {
        if (clazz.isInstance(this)) {
            return clazz.cast(this);
        }
        if (clazz.isInstance(broker)) {
            return clazz.cast(broker);
        }
        throw new IllegalArgumentException("a ShardQ cache manager unwraps to itself or to its "
                + Broker.class.getName() + ", not to " + clazz.getName());
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("cache manager " + uri + " is closed");
        }
    }

    @Override
    public String toString() {
        return "ShardQCacheManager[" + uri + "]";
    }
}
