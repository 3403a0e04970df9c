package io.shardq.broker.sqlapi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.CacheOptions;
import io.shardq.broker.Engines;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.kv.Codec;
import io.shardq.broker.kv.KvCache;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The key/value cache from SQL ({@code shardq.cache_get}, {@code cache_put}, ...;
 * R__shardq_sql_cache.sql): what SQL writes the JVM reads and the other way round, a SQL put
 * reaching two instances' near caches at its commit and not before, the bounds, and the read and
 * write privileges (V019).
 */
@PgTest
class SqlCacheTest {
    static final Duration DEADLINE = Duration.ofSeconds(30);

    TestDatabase db;
    Broker a;
    Broker b;
    KvCache<String, String> onA;
    KvCache<String, String> onB;

    @BeforeEach
    void start(TestDatabase db) {
        this.db = db;
        a = Broker.start(db.brokerConfig().set(BrokerProperty.HEARTBEAT_MS, 200).build());
        b = Broker.start(db.brokerConfig().set(BrokerProperty.HEARTBEAT_MS, 200).build());
        a.admin().caches().createOrGet("sqlkv", CacheOptions.DEFAULTS.withMaxTtl(Duration.ofHours(1)));
        onA = a.cache("sqlkv", Codec.utf8(), Codec.utf8());
        onB = b.cache("sqlkv", Codec.utf8(), Codec.utf8());
        onA.clear();
    }

    @AfterEach
    void stop() {
        a.close();
        b.close();
    }

    static String one(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    @Test
    void whatSqlWrites_theJvmReads_andTheOtherWayRound() throws Exception {
        onA.put("from-jvm", "j");
        Map<String, String> many = new HashMap<>();
        try (Connection c = db.connect()) {
            assertThat(one(c, "SELECT shardq.cache_get('sqlkv', 'from-jvm')")).isEqualTo("j");
            assertThat(one(c, "SELECT shardq.cache_get('sqlkv', 'nothing')")).isNull();
            one(c, "SELECT shardq.cache_put('sqlkv', 'from-sql', 'é s', ttl => interval '10 minutes')");
            assertThat(one(c, "SELECT shardq.cache_put_all('sqlkv', ARRAY['m1', 'm2', 'm1'], ARRAY['x', 'y', 'z'])"))
                    .isEqualTo("2");
            assertThat(one(
                            c,
                            "SELECT string_agg(key || '=' || value, ',' ORDER BY key)"
                                    + " FROM shardq.cache_get_all('sqlkv', ARRAY['m1', 'm2', 'none', 'from-jvm'])"))
                    .isEqualTo("from-jvm=j,m1=z,m2=y");
            // bytes: the JVM's Codec.bytes
            one(c, "SELECT shardq.cache_put('sqlkv', '\\x00ff'::bytea, '\\x0102'::bytea)");
            assertThat(one(c, "SELECT shardq.cache_remove('sqlkv', 'm2')")).isEqualTo("t");
            assertThat(one(c, "SELECT shardq.cache_remove('sqlkv', 'm2')")).isEqualTo("f");
        }
        assertThat(onB.get("from-sql")).isEqualTo("é s");
        assertThat(onB.get("m1")).isEqualTo("z");
        assertThat(onB.get("m2")).isNull();
        assertThat(b.cache("sqlkv", Codec.bytes(), Codec.bytes()).get(new byte[] {0, (byte) 0xFF}))
                .containsExactly(1, 2);
        many.put("m3", "w");
        onB.putAll(many);
        try (Connection c = db.connect()) {
            assertThat(one(c, "SELECT shardq.cache_get('sqlkv', 'm3')")).isEqualTo("w");
            // the entry's expiry as the JVM writes it: ten minutes from now, in its bucket
            assertThat(one(c, "SELECT shardq.cache_get('sqlkv', 'from-sql')")).isEqualTo("é s");
        }
    }

    @Test
    void aSqlPut_reachesTheJvmsNearCaches_atItsCommit_andNotBefore() throws Exception {
        // each instance must count the other alive, or it neither fills nor expects NOTIFYs
        await().atMost(DEADLINE)
                .until(() ->
                        Engines.of(a).otherInstancesAlive() && Engines.of(b).otherInstancesAlive());
        onA.put("k", "v1");
        filled(onA, "k", "v1");
        filled(onB, "k", "v1");
        try (Connection c = db.connect()) {
            c.setAutoCommit(false);
            one(c, "SELECT shardq.cache_put('sqlkv', 'k', 'v2')");
            long hits = onB.stats().nearHits();
            assertThat(onA.get("k")).isEqualTo("v1");
            assertThat(onB.get("k")).isEqualTo("v1");
            assertThat(onB.stats().nearHits()).as("served by B's near cache").isEqualTo(hits + 1);
            c.commit();
        }
        // the near entries hold no expiry: without the invalidation they would serve v1 for ever
        await().atMost(DEADLINE).until(() -> "v2".equals(onA.get("k")) && "v2".equals(onB.get("k")));
        try (Connection c = db.connect()) {
            c.setAutoCommit(false);
            one(c, "SELECT shardq.cache_remove('sqlkv', 'k')");
            c.rollback(); // a rollback invalidates nothing and changes nothing
        }
        filled(onB, "k", "v2");
        try (Connection c = db.connect()) {
            one(c, "SELECT shardq.cache_remove('sqlkv', 'k')");
        }
        await().atMost(DEADLINE).until(() -> onA.get("k") == null && onB.get("k") == null);
    }

    /** Reads {@code key} on {@code c} until its near cache serves {@code value}. */
    private static void filled(KvCache<String, String> c, String key, String value) {
        await().atMost(DEADLINE).until(() -> {
            assertThat(c.get(key)).isEqualTo(value);
            long hits = c.stats().nearHits();
            return value.equals(c.get(key)) && c.stats().nearHits() == hits + 1;
        });
    }

    @Test
    void theBoundsAndThePrivileges_refuseWithAClearError() throws Exception {
        a.admin()
                .caches()
                .createOrGet(
                        "tiny",
                        CacheOptions.DEFAULTS.withMaxTtl(Duration.ofMinutes(5)).withMaxKeyBytes(4));
        a.admin().queues().create("kvq", QueueOptions.DEFAULTS.withShards(1));
        Object[][] cases = {
            {
                "SELECT shardq.cache_put('tiny', 'toolong', 'v')",
                "22023",
                "a key of 7 bytes is longer than its limit of 4 bytes (max_key_bytes)"
            },
            {
                "SELECT shardq.cache_put('tiny', 'k', 'v', ttl => interval '1 hour')",
                "22023",
                "is above the cache's maximum TTL"
            },
            {"SELECT shardq.cache_put('tiny', 'k', 'v', ttl => interval '0')", "22023", "a TTL must be at least 1 ms"},
            {"SELECT shardq.cache_put('tiny', 'k', NULL::text)", "22004", "a value must not be null"},
            {"SELECT shardq.cache_get('missing', 'k')", "42704", "cache \"missing\" does not exist"},
        };
        try (Connection c = db.connect()) {
            for (Object[] x : cases) {
                assertThatThrownBy(() -> one(c, (String) x[0]))
                        .as((String) x[0])
                        .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState())
                                .isEqualTo(x[1]))
                        .hasMessageContaining((String) x[2]);
            }
        }
        onA.put("secret", "s");
        String role = "kvrole_" + UUID.randomUUID().toString().substring(0, 8);
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE ROLE \"" + role + "\"");
            s.execute("SELECT shardq.grant('kvq', '" + role + "', 'send')");
            s.execute("SET ROLE \"" + role + "\"");
            // only send: it sends, and may neither receive nor read or write the cache
            s.execute("SELECT shardq.send('kvq', 'x')");
            assertThatThrownBy(() -> one(c, "SELECT shardq.cache_get('sqlkv', 'secret')"))
                    .isInstanceOfSatisfying(
                            SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("42501"))
                    .hasMessageContaining(
                            "role \"" + role + "\" may not read cache \"sqlkv\": it needs the read privilege");
            assertThatThrownBy(() -> one(c, "SELECT shardq.cache_put('sqlkv', 'secret', 'mine')"))
                    .isInstanceOfSatisfying(
                            SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("42501"))
                    .hasMessageContaining("it needs the write privilege");
            assertThatThrownBy(() -> one(c, "SELECT count(*) FROM shardq.receive('kvq')"))
                    .isInstanceOfSatisfying(
                            SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("42501"))
                    .hasMessageContaining("needs the receive privilege");
            s.execute("RESET ROLE");
            s.execute("SELECT shardq.grant_cache('sqlkv', '" + role + "', 'read')");
            s.execute("SELECT shardq.grant_cache('sqlkv', '" + role + "', 'write')");
            s.execute("SET ROLE \"" + role + "\"");
            assertThat(one(c, "SELECT shardq.cache_get('sqlkv', 'secret')")).isEqualTo("s");
            one(c, "SELECT shardq.cache_put('sqlkv', 'secret', 'mine')");
            // the write privilege is INSERT on the cache's table, and the table refuses it raw
            int id = a.admin().caches().get("sqlkv").id();
            assertThatThrownBy(() -> s.execute("INSERT INTO shardq.kv_" + id
                            + " (k, v, bucket, touched_at, size) VALUES ('\\x01', '\\x01', 0, now(), 2)"))
                    .isInstanceOfSatisfying(
                            SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("42501"))
                    .hasMessageContaining("a cache is written with shardq.cache_put");
            s.execute("RESET ROLE");
            s.execute("SELECT shardq.revoke_cache('sqlkv', '" + role + "', 'write')");
            s.execute("SELECT shardq.revoke_cache('sqlkv', '" + role + "', 'read')");
            s.execute("DROP OWNED BY \"" + role + "\"");
            s.execute("DROP ROLE \"" + role + "\"");
        }
        assertThat(onA.get("secret")).isEqualTo("mine");
    }
}
