package io.shardq.broker.kv;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.CacheOptions;
import io.shardq.broker.testing.ReplicatedPostgres;
import io.shardq.broker.testing.ReplicatedPostgres.Replication;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The key/value cache across a failover to a synchronous standby: every committed entry is on the
 * new primary, an instance that held an entry in its near cache reads the value written after the
 * switch (its near cache does not keep the old one), and an UNLOGGED cache starts empty there
 * (PostgreSQL does not replicate unlogged tables), as the docs say.
 */
@Tag("fault")
class KvFailoverTest {
    @Test
    void entriesSurvive_nearCachesForgetTheOldServer_unloggedCachesStartEmpty() throws Exception {
        try (ReplicatedPostgres pg = ReplicatedPostgres.start("shardq-kv-failover", Replication.SYNCHRONOUS)) {
            BrokerConfig config = BrokerConfig.builder()
                    .isolated()
                    .set(BrokerProperty.JDBC_URL, pg.jdbcUrl())
                    .set(BrokerProperty.JDBC_USER, "postgres")
                    .set(BrokerProperty.HEARTBEAT_MS, 200)
                    .set(BrokerProperty.POOL_TIMEOUT_MS, 2000)
                    .build();
            Map<String, String> m = new LinkedHashMap<>();
            for (int i = 0; i < 100; i++) {
                m.put("k" + i, "v" + i);
            }
            try (Broker a = Broker.start(config);
                    Broker b = Broker.start(config)) {
                a.admin().caches().create("kept", CacheOptions.DEFAULTS);
                a.admin().caches().create("kept.unlogged", CacheOptions.DEFAULTS.withDurable(false));
                KvCache<String, String> ca = a.cache("kept", Codec.utf8(), Codec.utf8());
                KvCache<String, String> cb = b.cache("kept", Codec.utf8(), Codec.utf8());
                ca.putAll(m);
                a.cache("kept.unlogged", Codec.utf8(), Codec.utf8()).putAll(m);
                // b reads k0 until it serves it from its near cache
                Awaitility.await()
                        .atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(50))
                        .until(() -> {
                            long hits = cb.stats().nearHits();
                            return "v0".equals(cb.get("k0")) && cb.stats().nearHits() == hits + 1;
                        });

                pg.failover();
                ca.put("k0", "after"); // on the new primary: waits for it if needed

                Awaitility.await()
                        .atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(50))
                        .until(() -> "after".equals(cb.get("k0")));
                Map<String, String> expected = new LinkedHashMap<>(m);
                expected.put("k0", "after");
                assertThat(cb.getAll(m.keySet())).isEqualTo(expected);
                assertThat(b.cache("kept.unlogged", Codec.utf8(), Codec.utf8()).getAll(m.keySet()))
                        .isEmpty();
            }
        }
    }
}
