package io.shardq.jcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.cache.Cache;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.processor.EntryProcessor;
import javax.cache.processor.EntryProcessorException;
import javax.cache.processor.EntryProcessorResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** invoke and invokeAll: MutableEntry semantics, atomicity across instances, exception wrapping. */
@PgTest
class JCacheEntryProcessorTest {
    JCacheFixture f;

    @BeforeEach
    void start(TestDatabase db) {
        f = new JCacheFixture(db);
    }

    @AfterEach
    void stop() {
        f.close();
    }

    private Cache<String, Integer> counters(String name) {
        return f.manager.createCache(
                name, new MutableConfiguration<String, Integer>().setTypes(String.class, Integer.class));
    }

    /** Adds the argument to the entry (creating it at 0) and returns the new value. */
    static final EntryProcessor<String, Integer, Integer> ADD = (e, args) -> {
        int next = (e.exists() ? e.getValue() : 0) + (Integer) args[0];
        e.setValue(next);
        return next;
    };

    @Test
    void theEntry_createsUpdatesAndRemoves() {
        Cache<String, Integer> c = counters("entries");
        assertThat(c.invoke("n", ADD, 5)).isEqualTo(5);
        assertThat(c.invoke("n", ADD, 2)).isEqualTo(7);
        assertThat(c.get("n")).isEqualTo(7);
        EntryProcessor<String, Integer, Boolean> removeIfSeven = (e, args) -> {
            if (e.exists() && e.getValue() == 7) {
                e.remove();
                return true;
            }
            return false;
        };
        assertThat(c.invoke("n", removeIfSeven)).isTrue();
        assertThat(c.containsKey("n")).isFalse();
        assertThat(c.invoke("n", removeIfSeven)).isFalse();
        EntryProcessor<String, Integer, Integer> setThenRemove = (e, args) -> {
            e.setValue(1);
            e.remove();
            return null;
        };
        assertThat(c.invoke("m", setThenRemove)).isNull();
        assertThat(c.containsKey("m")).as("set then removed: nothing stored").isFalse();
        EntryProcessor<String, Integer, Integer> readOnly = (e, args) -> e.getValue();
        c.put("r", 3);
        assertThat(c.invoke("r", readOnly)).isEqualTo(3);
    }

    @Test
    void aProcessorsException_isWrapped_andChangesNothing() {
        Cache<String, Integer> c = counters("failing");
        c.put("n", 1);
        EntryProcessor<String, Integer, Integer> failing = (e, args) -> {
            e.setValue(100);
            throw new IllegalStateException("half way");
        };
        assertThatThrownBy(() -> c.invoke("n", failing))
                .isInstanceOf(EntryProcessorException.class)
                .hasCauseInstanceOf(IllegalStateException.class)
                .hasMessageContaining("half way");
        assertThat(c.get("n")).isEqualTo(1);
    }

    @Test
    void invokeAll_givesEachKeysResult_orItsException() {
        Cache<String, Integer> c = counters("all");
        c.put("a", 1);
        c.put("b", 2);
        EntryProcessor<String, Integer, Integer> doubleOrFail = (e, args) -> {
            if (!e.exists()) {
                throw new IllegalArgumentException("no entry for " + e.getKey());
            }
            e.setValue(e.getValue() * 2);
            return e.getValue();
        };
        Map<String, EntryProcessorResult<Integer>> r = c.invokeAll(Set.of("a", "b", "none"), doubleOrFail);
        assertThat(r.get("a").get()).isEqualTo(2);
        assertThat(r.get("b").get()).isEqualTo(4);
        assertThatThrownBy(() -> r.get("none").get())
                .isInstanceOf(EntryProcessorException.class)
                .hasMessageContaining("no entry for none");
        assertThat(c.getAll(Set.of("a", "b"))).isEqualTo(Map.of("a", 2, "b", 4));
    }

    @Test
    void concurrentInvokes_fromTwoInstances_loseNoIncrement() throws Exception {
        Cache<String, Integer> here = counters("shared-counter");
        Cache<String, Integer> there = f.other().getCache("shared-counter", String.class, Integer.class);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                Cache<String, Integer> c = t % 2 == 0 ? here : there;
                done.add(pool.submit(() -> {
                    for (int i = 0; i < 25; i++) {
                        c.invoke("n", ADD, 1);
                    }
                }));
            }
            for (Future<?> d : done) {
                d.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(here.get("n")).isEqualTo(100);
        assertThat(there.get("n")).isEqualTo(100);
    }
}
