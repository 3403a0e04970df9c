package io.shardq.broker.kv;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.CacheOptions;
import io.shardq.broker.testing.OwnPostgres;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Entries survive a restart of the JVM's broker and of PostgreSQL; an UNLOGGED cache survives a
 * clean shutdown but is emptied by a crash, as documented.
 */
@PgTest
class KvRestartTest {

    @Test
    void entries_surviveClosingAndReopeningTheBroker(TestDatabase db) {
        Map<String, String> m = entries();
        try (Broker b = Broker.start(db.brokerConfig().build())) {
            b.admin().caches().create("kept", CacheOptions.DEFAULTS);
            b.admin().caches().create("kept.unlogged", CacheOptions.DEFAULTS.withDurable(false));
            b.cache("kept", Codec.utf8(), Codec.utf8()).putAll(m, Duration.ofHours(1));
            b.cache("kept.unlogged", Codec.utf8(), Codec.utf8()).putAll(m);
        }
        try (Broker b = Broker.start(db.brokerConfig().build())) {
            assertThat(b.cache("kept", Codec.utf8(), Codec.utf8()).getAll(m.keySet()))
                    .isEqualTo(m);
            assertThat(b.cache("kept.unlogged", Codec.utf8(), Codec.utf8()).getAll(m.keySet()))
                    .isEqualTo(m);
        }
    }

    @Test
    @Tag("fault")
    void entries_survivePostgresRestarts_unloggedOnesOnlyAClean_one() throws Exception {
        OwnPostgres pg = OwnPostgres.start("shardq-kv-restart-pg");
        BrokerConfig config = BrokerConfig.builder()
                .isolated()
                .set(BrokerProperty.JDBC_URL, pg.jdbcUrl())
                .set(BrokerProperty.JDBC_USER, "postgres")
                .build();
        Map<String, String> m = entries();
        try {
            try (Broker b = Broker.start(config)) {
                b.admin().caches().create("durable", CacheOptions.DEFAULTS);
                b.admin().caches().create("unlogged", CacheOptions.DEFAULTS.withDurable(false));
                b.cache("durable", Codec.utf8(), Codec.utf8()).putAll(m);
                b.cache("unlogged", Codec.utf8(), Codec.utf8()).putAll(m);
            }
            pg.restart(false); // fast shutdown: a checkpoint, unlogged tables kept
            try (Broker b = Broker.start(config)) {
                assertThat(b.cache("durable", Codec.utf8(), Codec.utf8()).getAll(m.keySet()))
                        .isEqualTo(m);
                assertThat(b.cache("unlogged", Codec.utf8(), Codec.utf8()).getAll(m.keySet()))
                        .isEqualTo(m);
            }
            pg.restart(true); // immediate: crash recovery empties unlogged tables
            try (Broker b = Broker.start(config)) {
                assertThat(b.cache("durable", Codec.utf8(), Codec.utf8()).getAll(m.keySet()))
                        .isEqualTo(m);
                assertThat(b.cache("unlogged", Codec.utf8(), Codec.utf8()).getAll(m.keySet()))
                        .isEmpty();
            }
        } finally {
            pg.close();
        }
    }

    private static Map<String, String> entries() {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < 100; i++) {
            m.put("k" + i, "v" + i);
        }
        return m;
    }
}
