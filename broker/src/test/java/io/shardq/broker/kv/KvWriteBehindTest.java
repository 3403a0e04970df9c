package io.shardq.broker.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.CacheOptions;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.shard.BrokerSession;
import io.shardq.broker.testing.ChildJvm;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.SettableClock;
import io.shardq.broker.testing.TestDatabase;
import io.shardq.broker.testing.WriteBehindMain;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Write-behind: accepted writes are read at once in this instance, reach other instances at the
 * flush, coalesce per key, keep their order against synchronous writes, are never dropped when a
 * flush fails, push back when the queue is full, are flushed by a clean close, and survive a
 * killed JVM exactly as far as they were flushed.
 */
@PgTest
class KvWriteBehindTest {
    final SettableClock clock = SettableClock.now();
    TestDatabase db;
    Broker a;
    Broker b;
    KvCache<String, String> onA;
    KvCache<String, String> onB;

    /** Flushes only when asked (or when a queue is full): the tests decide when. */
    Broker start(int maxPending, int blockMs) {
        return Broker.start(
                db.brokerConfig()
                        .set(BrokerProperty.KV_WRITE_BEHIND_FLUSH_MS, 3_600_000)
                        .set(BrokerProperty.KV_WRITE_BEHIND_MAX_PENDING, maxPending)
                        .set(BrokerProperty.KV_WRITE_BEHIND_BLOCK_MS, blockMs)
                        .set(BrokerProperty.KV_MAINTENANCE_MS, 3_600_000)
                        .build(),
                clock);
    }

    @BeforeEach
    void start(TestDatabase db) {
        this.db = db;
        a = start(1_000, 30_000);
        b = start(1_000, 30_000);
        a.admin().caches().createOrGet("wb", CacheOptions.DEFAULTS.withMaxTtl(Duration.ofHours(1)));
        onA = a.cache("wb", Codec.utf8(), Codec.utf8());
        onB = b.cache("wb", Codec.utf8(), Codec.utf8());
        onA.clear();
    }

    @AfterEach
    void stop() {
        a.close();
        b.close();
    }

    @Test
    void acceptedWrites_areReadHereAtOnce_andElsewhereAfterTheFlush_coalescedPerKey() {
        KvWriteBehind<String, String> wb = onA.writeBehind();
        for (int i = 0; i < 10; i++) {
            wb.put("k", "v" + i);
        }
        wb.put("gone", "x");
        wb.remove("gone");
        assertThat(wb.pending()).isEqualTo(2); // ten puts of k, a put and a removal of gone
        assertThat(onA.get("k")).isEqualTo("v9");
        assertThat(onA.getAll(List.of("k", "gone"))).isEqualTo(Map.of("k", "v9"));
        assertThat(onA.containsKey("gone")).isFalse();
        assertThat(onB.get("k")).isNull();
        assertThat(a.admin().caches().stats("wb").writeBehindPending()).isEqualTo(2);

        wb.flush();

        assertThat(wb.pending()).isZero();
        assertThat(onB.get("k")).isEqualTo("v9");
        assertThat(onB.containsKey("gone")).isFalse();
        assertThat(a.admin().caches().stats("wb").entries()).isEqualTo(1);
    }

    @Test
    void aPendingPut_pastItsTtl_isNotRead_andIsNotStored() {
        KvWriteBehind<String, String> wb = onA.writeBehind();
        onA.put("short", "old");
        wb.put("short", "new", Duration.ofSeconds(5)); // the synchronous put is already committed
        assertThat(onA.get("short")).isEqualTo("new");
        clock.advance(Duration.ofSeconds(6));
        assertThat(onA.get("short")).isNull();
        wb.flush();
        assertThat(onB.get("short")).isNull();
        assertThat(a.admin().caches().stats("wb").entries()).isZero();
    }

    @Test
    void aSynchronousWrite_afterAPendingOne_winsEverywhere() {
        KvWriteBehind<String, String> wb = onA.writeBehind();
        wb.put("k", "behind");
        wb.remove("r");
        onA.put("k", "sync"); // flushes the queue first
        onA.put("r", "sync");
        assertThat(wb.pending()).isZero();
        assertThat(onB.get("k")).isEqualTo("sync");
        assertThat(onB.get("r")).isEqualTo("sync");
        assertThat(onA.get("k")).isEqualTo("sync");
    }

    @Test
    void aFailingFlush_keepsEveryWrite_aFullQueuePushesBack_andAllLandOnceItCanWrite() throws Exception {
        Broker small = start(3, 200);
        try {
            KvCache<String, String> c = small.cache("wb", Codec.utf8(), Codec.utf8());
            KvWriteBehind<String, String> wb = c.writeBehind();
            Duration ttl = null; // into the forever partition, which refuses rows until told otherwise
            refuseWrites(KvInternals.of(c).cacheId(), true);

            wb.put("a", "1", ttl);
            wb.put("b", "2", ttl);
            wb.put("c", "3", ttl);
            assertThatThrownBy(wb::flush)
                    .isInstanceOf(ShardQException.class)
                    .hasMessageContaining("test_refuses_writes");
            assertThat(wb.pending()).isEqualTo(3);
            assertThat(c.get("a")).isEqualTo("1"); // still read here
            wb.put("a", "1b", ttl); // a pending key: coalesced, no room needed

            assertThatThrownBy(() -> wb.put("d", "4", ttl))
                    .isInstanceOf(ShardQException.class)
                    .satisfies(e -> assertThat(((ShardQException) e).kind()).isEqualTo(ErrorKind.RESOURCE_EXHAUSTED))
                    .hasMessageContaining("write-behind queue is full (3 pending writes")
                    .hasMessageContaining("the last flush failed")
                    .hasMessageContaining("test_refuses_writes");
            assertThat(c.get("d")).isNull(); // not accepted
            assertThat(small.admin().caches().stats("wb").writeBehindFailures()).isGreaterThanOrEqualTo(1);

            refuseWrites(KvInternals.of(c).cacheId(), false);
            wb.flush();
            assertThat(onB.getAll(List.of("a", "b", "c", "d"))).isEqualTo(Map.of("a", "1b", "b", "2", "c", "3"));
        } finally {
            small.close();
        }
    }

    @Test
    void aCleanClose_flushesWhatWasAccepted() {
        KvWriteBehind<String, String> wb = onA.writeBehind();
        for (int i = 0; i < 50; i++) {
            wb.put("c" + i, "v" + i);
        }
        a.close();
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            keys.add("c" + i);
        }
        assertThat(onB.getAll(keys)).hasSize(50).containsEntry("c49", "v49");
        assertThatThrownBy(() -> wb.put("late", "x"))
                .isInstanceOf(ShardQException.class)
                .hasMessageContaining("instance is closed");
    }

    @Test
    void aViewBoundToATransaction_refusesWriteBehind() {
        try (BrokerSession s = a.openSession(BrokerSession.Mode.TRANSACTED)) {
            assertThatThrownBy(() -> onA.in(s).writeBehind())
                    .isInstanceOf(ShardQException.class)
                    .hasMessageContaining("write-behind is for writes outside a transaction");
        }
    }

    @Test
    @Tag("fault")
    void aKilledJvm_losesNothingItFlushed() throws Exception {
        String flushed;
        try (ChildJvm child = ChildJvm.start(WriteBehindMain.class, db.jdbcUrl(), db.user(), db.password(), "wb")) {
            flushed = child.awaitLine("FLUSHED 1000");
            assertThat(flushed).isEqualTo("FLUSHED 1000");
            child.kill();
        }
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            keys.add("k" + i);
        }
        Map<String, String> got = onB.getAll(keys);
        assertThat(got).hasSize(1000);
        for (int i = 0; i < 1000; i++) {
            assertThat(got.get("k" + i)).isEqualTo("v" + i);
        }
    }

    /** The database refuses (or accepts again) every row of the cache's forever partition. */
    private void refuseWrites(int id, boolean refuse) throws Exception {
        try (Connection c = db.connect();
                java.sql.Statement st = c.createStatement()) {
            String table = "shardq.\"kv_" + id + "_forever\"";
            st.execute(
                    refuse
                            ? "alter table " + table + " add constraint test_refuses_writes check (size < 0) not valid"
                            : "alter table " + table + " drop constraint test_refuses_writes");
        }
    }
}
