package io.shardq.jcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.io.Serializable;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import javax.cache.Cache;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.integration.CacheLoader;
import javax.cache.integration.CacheLoaderException;
import javax.cache.integration.CacheWriter;
import javax.cache.integration.CacheWriterException;
import javax.cache.integration.CompletionListenerFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Read-through (CacheLoader, loadAll) and write-through (CacheWriter), through javax.cache. */
@PgTest
class JCacheLoaderWriterTest {
    /** The "system of record" the loader reads and the writer writes. */
    static final Map<String, String> STORE = new ConcurrentHashMap<>();

    static final List<String> LOADED = new CopyOnWriteArrayList<>();
    static volatile boolean failWrites;

    public static final class Loader implements CacheLoader<String, String>, Serializable {
        @Override
        public String load(String key) {
            LOADED.add(key);
            if (key.equals("broken")) {
                throw new IllegalStateException("the backend is down for " + key);
            }
            return STORE.get(key);
        }

        @Override
        public Map<String, String> loadAll(Iterable<? extends String> keys) {
            Map<String, String> out = new HashMap<>();
            for (String k : keys) {
                String v = load(k);
                if (v != null) {
                    out.put(k, v);
                }
            }
            return out;
        }
    }

    public static final class Writer implements CacheWriter<String, String>, Serializable {
        @Override
        public void write(Cache.Entry<? extends String, ? extends String> entry) {
            if (failWrites) {
                throw new IllegalStateException("the store refuses " + entry.getKey());
            }
            STORE.put(entry.getKey(), entry.getValue());
        }

        @Override
        public void writeAll(Collection<Cache.Entry<? extends String, ? extends String>> entries) {
            for (Iterator<Cache.Entry<? extends String, ? extends String>> i = entries.iterator(); i.hasNext(); ) {
                write(i.next());
                i.remove();
            }
        }

        @Override
        public void delete(Object key) {
            if (failWrites) {
                throw new IllegalStateException("the store refuses to delete " + key);
            }
            STORE.remove(key);
        }

        @Override
        public void deleteAll(Collection<?> keys) {
            for (Iterator<?> i = keys.iterator(); i.hasNext(); ) {
                delete(i.next());
                i.remove();
            }
        }
    }

    JCacheFixture f;

    @BeforeEach
    void start(TestDatabase db) {
        f = new JCacheFixture(db);
        STORE.clear();
        LOADED.clear();
        failWrites = false;
    }

    @AfterEach
    void stop() {
        f.close();
    }

    private Cache<String, String> readThrough(String name) {
        return f.manager.createCache(
                name,
                new MutableConfiguration<String, String>()
                        .setTypes(String.class, String.class)
                        .setReadThrough(true)
                        .setCacheLoaderFactory(FactoryBuilder.factoryOf(Loader.class)));
    }

    private Cache<String, String> writeThrough(String name) {
        return f.manager.createCache(
                name,
                new MutableConfiguration<String, String>()
                        .setTypes(String.class, String.class)
                        .setWriteThrough(true)
                        .setCacheWriterFactory(FactoryBuilder.factoryOf(Writer.class)));
    }

    @Test
    void get_loadsAMiss_once_andStoresIt_forEveryInstance() {
        STORE.put("a", "from the store");
        Cache<String, String> c = readThrough("rt");
        assertThat(c.get("a")).isEqualTo("from the store");
        assertThat(c.get("a")).isEqualTo("from the store");
        assertThat(LOADED).containsExactly("a");
        assertThat(f.other().getCache("rt", String.class, String.class).get("a"))
                .as("the loaded value is stored in ShardQ")
                .isEqualTo("from the store");
        assertThat(c.get("absent")).isNull();
        assertThat(c.containsKey("absent")).isFalse();
        assertThat(c.get("absent")).isNull();
        assertThat(LOADED).as("a null from the loader is not stored").containsExactly("a", "absent", "absent");
        assertThatThrownBy(() -> c.get("broken"))
                .isInstanceOf(CacheLoaderException.class)
                .hasMessageContaining("the backend is down for broken");
        assertThat(c.containsKey("broken")).isFalse();
    }

    @Test
    void getAll_loadsOnlyTheMisses() {
        STORE.putAll(Map.of("a", "1", "b", "2", "c", "3"));
        Cache<String, String> c = readThrough("rt-all");
        c.put("a", "cached");
        assertThat(c.getAll(Set.of("a", "b", "c", "none"))).isEqualTo(Map.of("a", "cached", "b", "2", "c", "3"));
        assertThat(LOADED).containsExactlyInAnyOrder("b", "c", "none");
    }

    @Test
    void loadAll_completes_andKeepsOrReplacesExistingValuesAsAsked() throws Exception {
        STORE.putAll(Map.of("a", "1", "b", "2"));
        Cache<String, String> c = readThrough("load-all");
        c.put("a", "cached");
        CompletionListenerFuture keep = new CompletionListenerFuture();
        c.loadAll(Set.of("a", "b"), false, keep);
        keep.get(30, TimeUnit.SECONDS);
        assertThat(LOADED).containsExactly("b");
        assertThat(c.get("a")).isEqualTo("cached");
        assertThat(c.get("b")).isEqualTo("2");

        CompletionListenerFuture replace = new CompletionListenerFuture();
        c.loadAll(Set.of("a"), true, replace);
        replace.get(30, TimeUnit.SECONDS);
        assertThat(c.get("a")).isEqualTo("1");

        CompletionListenerFuture failing = new CompletionListenerFuture();
        c.loadAll(Set.of("broken"), true, failing);
        assertThatThrownBy(() -> failing.get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasMessageContaining("the backend is down for broken");
    }

    @Test
    void changes_writeThrough_andLoadsDoNot() {
        Cache<String, String> c = writeThrough("wt");
        c.put("a", "1");
        c.putAll(Map.of("b", "2", "c", "3"));
        assertThat(STORE).isEqualTo(Map.of("a", "1", "b", "2", "c", "3"));
        c.replace("a", "11");
        javax.cache.processor.EntryProcessor<String, String, String> set = (e, args) -> {
            e.setValue("4");
            return "set";
        };
        String result = c.invoke("d", set);
        assertThat(result).isEqualTo("set");
        assertThat(STORE).containsEntry("a", "11").containsEntry("d", "4");
        c.remove("a");
        c.getAndRemove("d");
        c.removeAll(Set.of("b"));
        assertThat(STORE).isEqualTo(Map.of("c", "3"));
    }

    @Test
    void aFailingWriter_leavesTheCacheUnchanged() {
        Cache<String, String> c = writeThrough("wt-fail");
        c.put("a", "1");
        failWrites = true;
        assertThatThrownBy(() -> c.put("a", "2"))
                .isInstanceOf(CacheWriterException.class)
                .hasMessageContaining("the store refuses a");
        assertThatThrownBy(() -> c.putAll(Map.of("x", "1", "y", "2"))).isInstanceOf(CacheWriterException.class);
        assertThatThrownBy(() -> c.remove("a"))
                .isInstanceOf(CacheWriterException.class)
                .hasMessageContaining("refuses to delete a");
        assertThat(c.get("a")).isEqualTo("1");
        assertThat(c.getAll(Set.of("x", "y"))).isEmpty();
    }
}
