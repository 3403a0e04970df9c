package io.shardq.jcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.kv.KvCache;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import javax.cache.Cache;
import javax.cache.CacheException;
import javax.cache.Caching;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.integration.CacheWriter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The provider, the cache manager and the plain Cache operations, through javax.cache. */
@PgTest
class JCacheBasicsTest {
    JCacheFixture f;

    @BeforeEach
    void start(TestDatabase db) {
        f = new JCacheFixture(db);
    }

    @AfterEach
    void stop() {
        f.close();
    }

    static MutableConfiguration<String, String> strings() {
        return new MutableConfiguration<String, String>().setTypes(String.class, String.class);
    }

    @Test
    void caching_findsTheProvider_andCreateCache_makesASharedShardQCache() {
        assertThat(Caching.getCachingProvider()).isInstanceOf(ShardQCachingProvider.class);
        Cache<String, String> c = f.manager.createCache("shared", strings());
        c.put("k", "v");
        @SuppressWarnings("unchecked")
        KvCache<String, String> kv = c.unwrap(KvCache.class);
        assertThat(kv.name()).isEqualTo("shared");
        assertThat(kv.get("k")).isEqualTo("v");
        // another instance opens the same ShardQ cache (createCache there does not fail: it exists)
        Cache<String, String> there = f.other().createCache("shared", strings());
        assertThat(there.get("k")).isEqualTo("v");
        there.put("k", "w");
        assertThat(c.get("k")).isEqualTo("w");
        assertThat(f.manager.getCacheNames()).containsExactly("shared");
        assertThatThrownBy(() -> f.manager.createCache("shared", strings()))
                .isInstanceOf(CacheException.class)
                .hasMessageContaining("already exists");
    }

    @Test
    void anyStringNamesACache_thoseShardQCannotTake_areMappedTheSameWayEverywhere() {
        Cache<String, String> c = f.manager.createCache("new cache @ 2", strings());
        c.put("k", "v");
        @SuppressWarnings("unchecked")
        KvCache<String, String> kv = c.unwrap(KvCache.class);
        assertThat(kv.name()).matches("new_cache___2-[0-9a-f]{8}");
        Cache<String, String> there = f.other().getCache("new cache @ 2", String.class, String.class);
        assertThat(there.get("k")).isEqualTo("v");
        assertThat(f.manager.getCacheNames()).containsExactly("new cache @ 2");
        f.manager.destroyCache("new cache @ 2");
        assertThatThrownBy(() -> there.put("x", "y"))
                .as("another JVM's handle of a destroyed cache says so")
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("was destroyed");
    }

    @Test
    void anEntryWrittenWithoutJCache_isRefusedNamingWhy_neverTakenForExpired() {
        Cache<String, String> c = f.manager.createCache("mixed", strings());
        // setup: an entry written by other means (as the CLI would), whose first bytes read as a
        // long would be negative, i.e. long expired
        f.manager
                .unwrap(io.shardq.broker.Broker.class)
                .cache("mixed", io.shardq.broker.kv.Codec.utf8(), io.shardq.broker.kv.Codec.utf8())
                .put("foreign", "\u00ff\u00ff\u00ff\u00ff\u00ff\u00ff\u00ff\u00ff");
        assertThatThrownBy(() -> c.get("foreign"))
                .isInstanceOf(CacheException.class)
                .hasMessageContaining("cache \"mixed\"")
                .hasMessageContaining("not written through JCache");
        assertThatThrownBy(() -> c.get("foreign")).as("still there").isInstanceOf(CacheException.class);
    }

    @Test
    void theOperations_doWhatJCacheSays() {
        Cache<String, String> c = f.manager.createCache("ops", strings());
        assertThat(c.get("a")).isNull();
        assertThat(c.containsKey("a")).isFalse();
        c.put("a", "1");
        assertThat(c.containsKey("a")).isTrue();
        assertThat(c.getAndPut("a", "2")).isEqualTo("1");
        assertThat(c.getAndPut("b", "1")).isNull();
        assertThat(c.putIfAbsent("a", "x")).isFalse();
        assertThat(c.putIfAbsent("c", "3")).isTrue();
        assertThat(c.getAll(Set.of("a", "b", "c", "none"))).isEqualTo(Map.of("a", "2", "b", "1", "c", "3"));
        assertThat(c.replace("a", "9", "x")).isFalse();
        assertThat(c.replace("a", "2", "4")).isTrue();
        assertThat(c.replace("none", "x")).isFalse();
        assertThat(c.replace("b", "5")).isTrue();
        assertThat(c.getAndReplace("b", "6")).isEqualTo("5");
        assertThat(c.getAndReplace("none", "6")).isNull();
        assertThat(c.containsKey("none")).isFalse();
        assertThat(c.remove("a", "wrong")).isFalse();
        assertThat(c.remove("a", "4")).isTrue();
        assertThat(c.remove("a")).isFalse();
        assertThat(c.getAndRemove("b")).isEqualTo("6");
        assertThat(c.getAndRemove("b")).isNull();
        c.putAll(Map.of("p", "1", "q", "2", "r", "3"));
        c.removeAll(Set.of("p", "q"));
        assertThat(c.getAll(Set.of("p", "q", "r"))).isEqualTo(Map.of("r", "3"));
        c.removeAll();
        assertThat(c.get("r")).isNull();
        c.put("s", "1");
        c.clear();
        assertThat(c.get("s")).isNull();
    }

    record Box(List<String> items) implements Serializable {}

    @Test
    void valuesAreStoredByValue_serialisedObjects_areCopies() {
        Cache<String, Box> c = f.manager.createCache(
                "boxes", new MutableConfiguration<String, Box>().setTypes(String.class, Box.class));
        List<String> items = new ArrayList<>(List.of("x"));
        c.put("k", new Box(items));
        items.add("changed after the put");
        assertThat(c.get("k").items()).containsExactly("x");
        c.get("k").items().add("changed after the get");
        assertThat(c.get("k").items()).containsExactly("x");
    }

    static final class NotSerializable {}

    @Test
    void whatCannotBeStored_isRefused_namingWhy() {
        assertThatThrownBy(() -> f.manager.createCache("byref", strings().setStoreByValue(false)))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("store-by-reference is not supported");
        assertThatThrownBy(() -> f.manager.createCache(
                        "bad",
                        new MutableConfiguration<String, NotSerializable>()
                                .setTypes(String.class, NotSerializable.class)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(NotSerializable.class.getName() + " is not Serializable");
        Cache<Object, Object> any = f.manager.createCache("any", new MutableConfiguration<>());
        assertThatThrownBy(() -> any.put("k", new NotSerializable()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cannot store a value of type " + NotSerializable.class.getName());
        // a class outside the allow-list is stored, and refused when read, naming it
        any.put("counter", new AtomicLong(3));
        assertThatThrownBy(() -> any.get("counter"))
                .isInstanceOf(CacheException.class)
                .hasMessageContaining("java.util.concurrent.atomic.AtomicLong");
        Cache<String, String> c = f.manager.createCache("typed", strings());
        assertThatThrownBy(() -> c.put(null, "v")).isInstanceOf(NullPointerException.class);
        @SuppressWarnings({"unchecked", "rawtypes"})
        Cache<Object, Object> raw = (Cache) c;
        assertThatThrownBy(() -> raw.put(1, "v"))
                .isInstanceOf(ClassCastException.class)
                .hasMessageContaining("java.lang.Integer is not a java.lang.String");
        assertThatThrownBy(() -> f.manager.getCache("typed", String.class, Integer.class))
                .isInstanceOf(ClassCastException.class);
    }

    static final java.util.Set<Object> DELETED = java.util.concurrent.ConcurrentHashMap.newKeySet();

    public static final class RecordingWriter implements CacheWriter<String, String>, Serializable {
        @Override
        public void write(Cache.Entry<? extends String, ? extends String> entry) {}

        @Override
        public void writeAll(java.util.Collection<Cache.Entry<? extends String, ? extends String>> entries) {
            entries.clear();
        }

        @Override
        public void delete(Object key) {
            DELETED.add(key);
        }

        @Override
        public void deleteAll(java.util.Collection<?> keys) {
            DELETED.addAll(keys);
            keys.clear();
        }
    }

    @Test
    void theIterator_visitsEveryLiveEntryOnce_acrossPages_andRemoves() {
        Cache<String, String> c = f.manager.createCache("iterated", strings());
        Map<String, String> all = new java.util.HashMap<>();
        for (int i = 0; i < ShardQCache.PAGE * 2 + 7; i++) {
            all.put("k" + i, "v" + i);
        }
        c.putAll(all);
        Map<String, String> seen = new java.util.HashMap<>();
        for (Cache.Entry<String, String> e : c) {
            assertThat(seen.put(e.getKey(), e.getValue())).as("each entry once").isNull();
        }
        assertThat(seen).isEqualTo(all);
        java.util.Iterator<Cache.Entry<String, String>> i = c.iterator();
        while (i.hasNext()) {
            if (i.next().getKey().endsWith("7")) {
                i.remove();
            }
        }
        assertThat(c.containsKey("k7")).isFalse();
        assertThat(c.containsKey("k8")).isTrue();
        assertThat(c.iterator()).toIterable().hasSize((int)
                all.keySet().stream().filter(k -> !k.endsWith("7")).count());
    }

    @Test
    void removeAllWithoutKeys_deletesThroughTheWriter_everyEntry() {
        DELETED.clear();
        Cache<String, String> c = f.manager.createCache(
                "written",
                strings().setWriteThrough(true).setCacheWriterFactory(FactoryBuilder.factoryOf(RecordingWriter.class)));
        Map<String, String> all = new java.util.HashMap<>();
        for (int i = 0; i < ShardQCache.PAGE + 3; i++) {
            all.put("k" + i, "v");
        }
        c.putAll(all);
        c.removeAll();
        assertThat(DELETED).isEqualTo(all.keySet());
        assertThat(c.iterator().hasNext()).isFalse();
    }

    @Test
    void destroyCache_dropsTheEntriesForEveryone_closeKeepsThem() {
        Cache<String, String> c = f.manager.createCache("gone", strings());
        c.put("k", "v");
        c.close();
        assertThat(c.isClosed()).isTrue();
        assertThatThrownBy(() -> c.get("k")).isInstanceOf(IllegalStateException.class);
        Cache<String, String> again = f.manager.getCache("gone", String.class, String.class);
        assertThat(again.get("k")).as("close() keeps the entries").isEqualTo("v");
        f.manager.destroyCache("gone");
        assertThat(again.isClosed()).isTrue();
        assertThat(f.manager.getCache("gone")).isNull();
        assertThat(f.other().getCache("gone")).isNull();
    }

    @Test
    void aCacheManager_unwrapsToItsBroker_andAnUnknownUri_isRefused() {
        assertThat(f.manager.unwrap(io.shardq.broker.Broker.class)).isNotNull();
        assertThatThrownBy(() -> f.provider.getCacheManager(
                        java.net.URI.create("http://example.com/"), getClass().getClassLoader()))
                .isInstanceOf(CacheException.class)
                .hasMessageContaining("is not understood");
    }
}
