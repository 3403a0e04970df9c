package io.shardq.jcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.io.Serializable;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.cache.Cache;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.event.CacheEntryCreatedListener;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryEventFilter;
import javax.cache.event.CacheEntryRemovedListener;
import javax.cache.event.CacheEntryUpdatedListener;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Entry listeners: which events, old values, filters, synchronous and asynchronous delivery. */
@PgTest
class JCacheListenerTest {
    /** Events per listener name, as "TYPE key value old". */
    static final Map<String, List<String>> SEEN = new ConcurrentHashMap<>();

    static List<String> seen(String listener) {
        return SEEN.computeIfAbsent(listener, k -> new CopyOnWriteArrayList<>());
    }

    abstract static class Recording
            implements CacheEntryCreatedListener<String, String>,
                    CacheEntryUpdatedListener<String, String>,
                    CacheEntryRemovedListener<String, String>,
                    Serializable {
        abstract String name();

        private void record(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
            for (CacheEntryEvent<? extends String, ? extends String> e : events) {
                seen(name()).add(e.getEventType() + " " + e.getKey() + " " + e.getValue() + " " + e.getOldValue());
            }
        }

        @Override
        public void onCreated(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
            record(events);
        }

        @Override
        public void onUpdated(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
            record(events);
        }

        @Override
        public void onRemoved(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
            record(events);
        }
    }

    public static final class Sync extends Recording {
        @Override
        String name() {
            return "sync";
        }
    }

    public static final class NoOld extends Recording {
        @Override
        String name() {
            return "noOld";
        }
    }

    public static final class Async extends Recording {
        @Override
        String name() {
            return "async";
        }
    }

    public static final class OnlyA implements CacheEntryEventFilter<String, String>, Serializable {
        @Override
        public boolean evaluate(CacheEntryEvent<? extends String, ? extends String> e) {
            return e.getKey().startsWith("a");
        }
    }

    JCacheFixture f;

    @BeforeEach
    void start(TestDatabase db) {
        f = new JCacheFixture(db);
        SEEN.clear();
    }

    @AfterEach
    void stop() {
        f.close();
    }

    private Cache<String, String> cache(String name) {
        return f.manager.createCache(
                name, new MutableConfiguration<String, String>().setTypes(String.class, String.class));
    }

    private static <L extends Recording> MutableCacheEntryListenerConfiguration<String, String> listener(
            Class<L> type, boolean oldValues, boolean synchronous, boolean onlyA) {
        return new MutableCacheEntryListenerConfiguration<>(
                FactoryBuilder.factoryOf(type),
                onlyA ? FactoryBuilder.factoryOf(OnlyA.class) : null,
                oldValues,
                synchronous);
    }

    @Test
    void aSynchronousListener_seesEachChange_beforeTheCallReturns_withOldValues() {
        Cache<String, String> c = cache("sync");
        c.registerCacheEntryListener(listener(Sync.class, true, true, false));
        c.put("a", "1");
        assertThat(seen("sync")).containsExactly("CREATED a 1 null");
        c.put("a", "2");
        c.replace("a", "2", "3");
        c.getAndPut("a", "4");
        c.putIfAbsent("a", "ignored");
        c.remove("a");
        c.remove("a");
        assertThat(seen("sync"))
                .containsExactly(
                        "CREATED a 1 null", "UPDATED a 2 1", "UPDATED a 3 2", "UPDATED a 4 3", "REMOVED a 4 4");
        c.putAll(Map.of("b", "1"));
        c.removeAll(Set.of("b", "absent"));
        assertThat(seen("sync")).endsWith("CREATED b 1 null", "REMOVED b 1 1");
        c.put("c", "1");
        c.removeAll();
        assertThat(seen("sync")).endsWith("REMOVED c 1 1");
        c.put("d", "1");
        c.clear();
        assertThat(seen("sync")).as("clear() fires nothing").endsWith("CREATED d 1 null");
    }

    @Test
    void withoutOldValues_andWithAFilter_listenersGetLess() {
        Cache<String, String> c = cache("filtered");
        c.registerCacheEntryListener(listener(NoOld.class, false, true, true));
        c.put("a", "1");
        c.put("b", "1");
        c.put("a", "2");
        assertThat(seen("noOld")).containsExactly("CREATED a 1 null", "UPDATED a 2 null");
    }

    @Test
    void anAsynchronousListener_getsTheEventsInOrder() {
        Cache<String, String> c = cache("async");
        c.registerCacheEntryListener(listener(Async.class, true, false, false));
        for (int i = 0; i < 20; i++) {
            c.put("k", String.valueOf(i));
        }
        c.remove("k");
        await().atMost(Duration.ofSeconds(30)).until(() -> seen("async").size() == 21);
        assertThat(seen("async").get(0)).isEqualTo("CREATED k 0 null");
        assertThat(seen("async").get(19)).isEqualTo("UPDATED k 19 18");
        assertThat(seen("async").get(20)).isEqualTo("REMOVED k 19 19");
    }

    @Test
    void aDeregisteredListener_hearsNothing_andChangesFromAnotherInstance_areNotHeardHere() {
        Cache<String, String> c = cache("local");
        MutableCacheEntryListenerConfiguration<String, String> l = listener(Sync.class, true, true, false);
        c.registerCacheEntryListener(l);
        Cache<String, String> there = f.other().getCache("local", String.class, String.class);
        there.put("elsewhere", "1");
        assertThat(there.get("elsewhere")).isEqualTo("1");
        assertThat(seen("sync"))
                .as("listeners are local to the JVM that changes")
                .isEmpty();
        c.put("here", "1");
        c.deregisterCacheEntryListener(l);
        c.put("here", "2");
        assertThat(seen("sync")).containsExactly("CREATED here 1 null");
    }

    @Test
    void aListenerInTheConfiguration_isRegisteredAtCreation() {
        Cache<String, String> c = f.manager.createCache(
                "configured",
                new MutableConfiguration<String, String>()
                        .setTypes(String.class, String.class)
                        .addCacheEntryListenerConfiguration(listener(Sync.class, true, true, false)));
        c.put("a", "1");
        assertThat(seen("sync")).containsExactly("CREATED a 1 null");
    }
}
