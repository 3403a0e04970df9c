package io.shardq.broker.kv;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Admin;
import io.shardq.broker.Broker;
import io.shardq.broker.CacheInfo;
import io.shardq.broker.CacheOptions;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Caches through the admin API and the admin SQL functions psql users call. */
@PgTest
class KvAdminTest {
    TestDatabase db;

    @BeforeEach
    void init(TestDatabase db) {
        this.db = db;
    }

    @Test
    void createAlterListDrop_throughAdmin() {
        try (Broker broker = Broker.start(db.brokerConfig().build())) {
            Admin admin = broker.admin();
            CacheInfo c = admin.caches()
                    .create(
                            "prices",
                            CacheOptions.DEFAULTS
                                    .withDefaultTtl(Duration.ofMinutes(10))
                                    .withMaxEntries(1000L)
                                    .withDurable(false));
            assertThat(c.name()).isEqualTo("prices");
            assertThat(c.durable()).isFalse();
            assertThat(c.defaultTtlMillis()).isEqualTo(600_000L);
            assertThat(c.maxTtlMillis()).isEqualTo(600_000L); // the default TTL
            assertThat(c.bucketMillis()).isEqualTo(60_000L); // max(60 s, 10 min / 16)
            assertThat(c.maxEntries()).isEqualTo(1000L);
            assertThat(c.maxKeyBytes()).isEqualTo(1024);
            assertThat(c.maxValueBytes()).isEqualTo(1 << 20);
            // forever + the buckets a put with the default TTL lands in now and in the next two
            assertThat(c.partitions()).isBetween(3, 4);

            CacheInfo altered = admin.caches().alter("prices", Duration.ZERO, 0L, 5000L, 64, null);
            assertThat(altered.defaultTtlMillis()).isNull();
            assertThat(altered.maxEntries()).isNull();
            assertThat(altered.maxBytes()).isEqualTo(5000L);
            assertThat(altered.maxKeyBytes()).isEqualTo(64);
            assertThat(altered.maxValueBytes()).isEqualTo(1 << 20);

            admin.caches().create("catalog", CacheOptions.DEFAULTS);
            assertThat(admin.caches().list()).extracting(CacheInfo::name).containsExactly("catalog", "prices");
            assertThat(admin.caches()
                            .createOrGet("catalog", CacheOptions.DEFAULTS.withDurable(false))
                            .durable())
                    .isTrue();

            KvCache<String, String> kv = broker.cache("prices", Codec.utf8(), Codec.utf8());
            kv.put("a", "1");
            assertThat(admin.caches().stats("prices").entries()).isEqualTo(1);
            admin.caches().drop("prices");
            assertThat(admin.caches().list()).extracting(CacheInfo::name).containsExactly("catalog");
        }
    }

    @Test
    void sqlFunctions_administerCaches() throws Exception {
        try (Broker broker = Broker.start(db.brokerConfig().build());
                Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("select shardq.create_cache('sql.made', durable => false, default_ttl_ms => 3600000)");
            try (ResultSet rs = s.executeQuery(
                    "select name, durable, bucket_ms, partitions from shardq.caches() where name = 'sql.made'")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getBoolean(2)).isFalse();
                assertThat(rs.getLong(3)).isEqualTo(225_000); // 1 h / 16
                assertThat(rs.getInt(4)).isBetween(3, 4); // forever + where default-TTL puts land
            }
            // unlogged: every partition
            Set<String> persistence = new HashSet<>();
            try (ResultSet rs = s.executeQuery("select distinct c.relpersistence from pg_partition_tree("
                    + "format('shardq.%I', 'kv_' || shardq.cache_id('sql.made'))::regclass) p"
                    + " join pg_class c on c.oid = p.relid where p.isleaf")) {
                while (rs.next()) {
                    persistence.add(rs.getString(1));
                }
            }
            assertThat(persistence).containsExactly("u");
            KvCache<String, String> kv = broker.cache("sql.made", Codec.utf8(), Codec.utf8());
            kv.put("k", "v");
            try (ResultSet rs = s.executeQuery("select entries, bytes from shardq.cache_stats('sql.made')")) {
                rs.next();
                assertThat(rs.getLong(1)).isEqualTo(1);
                assertThat(rs.getLong(2)).isEqualTo(2);
            }
            s.execute("select shardq.alter_cache('sql.made', max_entries => 10)");
            int id = broker.admin().caches().get("sql.made").id();
            s.execute("select shardq.drop_cache('sql.made')");
            try (ResultSet rs = s.executeQuery("select count(*) from pg_class where relname = 'kv_" + id + "'"
                    + " or relname like 'kv\\_" + id + "\\_%'")) {
                rs.next();
                assertThat(rs.getLong(1)).as("tables left behind").isZero();
            }
        }
    }
}
