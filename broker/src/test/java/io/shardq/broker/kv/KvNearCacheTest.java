package io.shardq.broker.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.CacheOptions;
import io.shardq.broker.Engines;
import io.shardq.broker.shard.BrokerSession;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.SettableClock;
import io.shardq.broker.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Near caches of two instances on one database: a value written in a transaction reaches the
 * other instance's near cache at commit and never before; invalidations are never lost, not
 * even across a LISTEN reconnect; an expired near entry is never returned; an invalidation that
 * races a fill wins.
 */
@PgTest
class KvNearCacheTest {
    static final Duration DEADLINE = Duration.ofSeconds(20);

    final SettableClock clock = SettableClock.now();
    TestDatabase db;
    Broker a;
    Broker b;
    KvCache<String, String> onA;
    KvCache<String, String> onB;

    @BeforeEach
    void start(TestDatabase db) throws Exception {
        this.db = db;
        a = Broker.start(db.brokerConfig().set(BrokerProperty.HEARTBEAT_MS, 200).build(), clock);
        b = Broker.start(db.brokerConfig().set(BrokerProperty.HEARTBEAT_MS, 200).build(), clock);
        a.admin().caches().createOrGet("near", CacheOptions.DEFAULTS.withMaxTtl(Duration.ofHours(1)));
        onA = a.cache("near", Codec.utf8(), Codec.utf8());
        onB = b.cache("near", Codec.utf8(), Codec.utf8());
        onA.clear();
        // each must know the other is alive, or it skips the NOTIFY
        await().atMost(DEADLINE)
                .until(() ->
                        Engines.of(a).otherInstancesAlive() && Engines.of(b).otherInstancesAlive());
    }

    @AfterEach
    void stop() {
        a.close();
        b.close();
    }

    long nearHits(KvCache<?, ?> c) {
        return c.stats().nearHits();
    }

    /**
     * Reads {@code key} on {@code c} until its near cache serves {@code value}: a fill is refused
     * while an invalidation is in flight (for example the NOTIFY of the put that stored the value).
     */
    void filled(KvCache<String, String> c, String key, String value) {
        await().atMost(DEADLINE).until(() -> {
            assertThat(c.get(key)).isEqualTo(value);
            long hits = nearHits(c);
            return value.equals(c.get(key)) && nearHits(c) == hits + 1;
        });
    }

    @Test
    void otherInstance_servesOldValueUntilCommit_newValueAfter() {
        onA.put("k", "v1");
        filled(onB, "k", "v1");
        long hits = nearHits(onB);
        try (BrokerSession s = a.openSession(BrokerSession.Mode.TRANSACTED)) {
            onA.in(s).put("k", "v2");
            assertThat(onB.get("k")).isEqualTo("v1");
            assertThat(nearHits(onB)).isEqualTo(hits + 1); // served by the near cache
            s.commit();
            assertThat(onA.get("k")).isEqualTo("v2"); // invalidated locally before commit() returned
        }
        await().atMost(DEADLINE).until(() -> "v2".equals(onB.get("k")));
    }

    @Test
    void rollback_leavesNearCachesAsTheyWere() {
        onA.put("k", "v1");
        filled(onA, "k", "v1");
        filled(onB, "k", "v1");
        try (BrokerSession s = a.openSession(BrokerSession.Mode.TRANSACTED)) {
            onA.in(s).put("k", "v2");
            assertThat(onA.in(s).get("k")).isEqualTo("v2"); // bound: the database, its own write
            s.rollback();
        }
        long hitsA = nearHits(onA);
        long hitsB = nearHits(onB);
        assertThat(onA.get("k")).isEqualTo("v1");
        assertThat(onB.get("k")).isEqualTo("v1");
        assertThat(nearHits(onA)).isEqualTo(hitsA + 1);
        assertThat(nearHits(onB)).isEqualTo(hitsB + 1);
    }

    @Test
    void autocommitPut_invalidatesTheOtherInstance() {
        onA.put("k", "v1");
        filled(onB, "k", "v1");
        onA.put("k", "v2");
        assertThat(onA.get("k")).isEqualTo("v2");
        await().atMost(DEADLINE).until(() -> "v2".equals(onB.get("k")));
        onA.remove("k");
        await().atMost(DEADLINE).until(() -> onB.get("k") == null);
    }

    @Test
    void moreKeysThanOneNotificationHolds_areInvalidatedKeyByKey() throws Exception {
        onA.put("other", "o1");
        filled(onB, "other", "o1");
        changeBehindTheCachesBack("other", "o2"); // no NOTIFY: only a whole-cache one would drop it
        onA.put("key-0", "old");
        filled(onB, "key-0", "old");
        Map<String, String> many = new HashMap<>();
        for (int i = 0; i < NearCaches.MAX_HASHES + 10; i++) {
            many.put("key-" + i, "v" + i);
        }
        try (BrokerSession s = a.openSession(BrokerSession.Mode.TRANSACTED)) {
            onA.in(s).putAll(many);
            s.commit();
        }
        await().atMost(DEADLINE).until(() -> "v0".equals(onB.get("key-0")));
        // the written keys went, in two notifications; the rest of the near cache stayed
        assertThat(onB.get("other")).isEqualTo("o1");
    }

    @Test
    void manyKeysInOneTransaction_invalidateTheWholeCache() throws Exception {
        onA.put("other", "o1");
        filled(onB, "other", "o1");
        changeBehindTheCachesBack("other", "o2"); // no NOTIFY: only a whole-cache one can drop it
        assertThat(onB.get("other")).isEqualTo("o1");
        Map<String, String> many = new HashMap<>();
        for (int i = 0; i < NearCaches.MAX_HASHES * NearCaches.MAX_NOTIFIES + 10; i++) {
            many.put("key-" + i, "v" + i);
        }
        try (BrokerSession s = a.openSession(BrokerSession.Mode.TRANSACTED)) {
            onA.in(s).putAll(many);
            s.commit();
        }
        await().atMost(DEADLINE).until(() -> "o2".equals(onB.get("other")));
    }

    @Test
    void afterTheListenConnectionIsKilled_theNearCacheWasCleared() throws Exception {
        onA.put("k", "v1");
        filled(onB, "k", "v1");
        changeBehindTheCachesBack("k", "v2"); // as if its NOTIFY was lost while the LISTEN was down
        assertThat(onB.get("k")).isEqualTo("v1");
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("select count(pg_terminate_backend(pid)) from pg_stat_activity"
                        + " where datname = current_database() and query like 'LISTEN%'"
                        + " and pid <> pg_backend_pid()")) {
            rs.next();
            assertThat(rs.getInt(1)).isEqualTo(2); // both instances' waker connections
        }
        await().atMost(DEADLINE).until(() -> "v2".equals(onB.get("k")));
    }

    @Test
    void nearEntries_expireOnTheClock() {
        onA.put("k", "v1", Duration.ofSeconds(10));
        filled(onB, "k", "v1");
        clock.advance(Duration.ofMillis(9_999));
        long hits = nearHits(onB);
        assertThat(onB.get("k")).isEqualTo("v1");
        assertThat(nearHits(onB)).isEqualTo(hits + 1);
        clock.advance(Duration.ofMillis(1));
        assertThat(onB.get("k")).isNull();
        assertThat(nearHits(onB)).isEqualTo(hits + 1);
    }

    @Test
    void anInvalidationBetweenReadAndFill_leavesNoStaleEntry() {
        onA.put("k", "v1");
        filled(onB, "k", "v1"); // A's NOTIFY of v1 has arrived
        onB.invalidate("k");
        NearCache near = KvInternals.of(onB).nearCache();
        near.beforeFill = () -> {
            // B has read v1 from the database; A's commit and its NOTIFY arrive before B installs it
            near.beforeFill = null;
            long epoch = near.epoch();
            onA.put("k", "v2");
            await().atMost(DEADLINE).until(() -> near.epoch() != epoch);
        };
        assertThat(onB.get("k")).isEqualTo("v1");
        long hits = nearHits(onB);
        assertThat(onB.get("k")).isEqualTo("v2"); // v1 was not installed
        assertThat(nearHits(onB)).isEqualTo(hits);
        assertThat(onB.get("k")).isEqualTo("v2");
        assertThat(nearHits(onB)).isEqualTo(hits + 1);
    }

    @Test
    void applicationConnectionWrite_isReadBackAfterItsCommit_andReachesTheOtherInstance() throws Exception {
        onA.put("k", "v1");
        filled(onA, "k", "v1");
        filled(onB, "k", "v1");
        try (Connection c = db.connect()) {
            c.setAutoCommit(false);
            onA.on(c).put("k", "v2");
            assertThat(onA.get("k")).isEqualTo("v1"); // from the database, and not filled
            c.commit();
            assertThat(onA.get("k")).isEqualTo("v2"); // no NOTIFY needed for its own instance to see it
        }
        await().atMost(DEADLINE).until(() -> "v2".equals(onB.get("k")));
    }

    @Test
    void sessionOnApplicationConnection_isReadBackAfterTheApplicationCommits() throws Exception {
        onA.put("k", "v1");
        filled(onA, "k", "v1");
        filled(onB, "k", "v1");
        try (Connection c = db.connect()) {
            c.setAutoCommit(false);
            try (BrokerSession s = a.openSession(c)) {
                onA.in(s).put("k", "v2");
                s.commit(); // the NOTIFY is queued in the application's transaction, not yet committed
                assertThat(onA.get("k")).isEqualTo("v1"); // from the database, and not filled
                c.commit();
                assertThat(onA.get("k")).isEqualTo("v2");
            }
        }
        await().atMost(DEADLINE).until(() -> "v2".equals(onB.get("k")));
    }

    @Test
    void invalidate_isLocal() throws Exception {
        onA.put("k", "v1");
        filled(onA, "k", "v1");
        filled(onB, "k", "v1");
        changeBehindTheCachesBack("k", "v2");
        onA.invalidate("k");
        assertThat(onA.get("k")).isEqualTo("v2");
        assertThat(onB.get("k")).isEqualTo("v1");
        onB.invalidateAll();
        assertThat(onB.get("k")).isEqualTo("v2");
    }

    /** Updates a stored value with plain SQL: no NOTIFY, so near caches keep the old one. */
    void changeBehindTheCachesBack(String key, String value) throws Exception {
        try (Connection c = db.connect();
                PreparedStatement ps = c.prepareStatement(
                        "update shardq.\"kv_" + KvInternals.of(onA).cacheId() + "\" set v = ? where k = ?")) {
            ps.setBytes(1, value.getBytes(StandardCharsets.UTF_8));
            ps.setBytes(2, key.getBytes(StandardCharsets.UTF_8));
            assertThat(ps.executeUpdate()).isEqualTo(1);
        }
    }
}
