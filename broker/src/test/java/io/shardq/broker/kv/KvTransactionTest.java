package io.shardq.broker.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.Broker;
import io.shardq.broker.CacheOptions;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.ShardQException;
import io.shardq.broker.shard.BrokerSession;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Cache writes in a transacted session commit and roll back with the session's messages and the
 * application's own SQL; bound to a plain JDBC connection, with the application's transaction.
 */
@PgTest
class KvTransactionTest {
    Broker broker;
    TestDatabase db;
    KvCache<String, String> cache;

    @BeforeEach
    void start(TestDatabase db) throws Exception {
        this.db = db;
        broker = Broker.start(db.brokerConfig().build());
        broker.admin().caches().createOrGet("tx", CacheOptions.DEFAULTS);
        broker.admin().queues().createOrGet("tx.q", QueueOptions.DEFAULTS.withShards(1));
        cache = broker.cache("tx", Codec.utf8(), Codec.utf8());
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("create table if not exists account (id int primary key, balance int not null)");
            s.execute("insert into account values (1, 100) on conflict (id) do update set balance = 100");
        }
        cache.clear();
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    @Test
    void sessionRollback_undoesMessageRowAndEntry_commitShowsAllThree() throws Exception {
        List<String> hooks = new ArrayList<>();
        try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            s.send("tx.q", Messages.text("order"));
            debit(s.connection());
            cache.in(s).put("price", "42");
            s.onCommit(() -> hooks.add("commit 1"));
            s.onRollback(() -> hooks.add("rollback 1"));
            // not visible outside the transaction before it commits
            assertThat(cache.get("price")).isNull();
            assertThat(cache.in(s).get("price")).isEqualTo("42");
            s.rollback();
            assertThat(hooks).containsExactly("rollback 1");

            assertThat(broker.admin().queues().backlog("tx.q")).isZero();
            assertThat(balance()).isEqualTo(100);
            assertThat(cache.get("price")).isNull();

            s.send("tx.q", Messages.text("order"));
            debit(s.connection());
            cache.in(s).putAll(Map.of("price", "43", "stock", "7"));
            s.onCommit(() -> hooks.add("commit 2"));
            s.onRollback(() -> hooks.add("rollback 2"));
            s.commit();
            assertThat(hooks).containsExactly("rollback 1", "commit 2");
        }
        assertThat(broker.admin().queues().backlog("tx.q")).isEqualTo(1);
        assertThat(balance()).isEqualTo(90);
        assertThat(cache.getAll(List.of("price", "stock"))).isEqualTo(Map.of("price", "43", "stock", "7"));
    }

    @Test
    void sessionClose_rollsBackTheCacheWrites() {
        try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            cache.in(s).put("gone", "1");
            cache.in(s).remove("kept");
        }
        assertThat(cache.get("gone")).isNull();
    }

    @Test
    void aSessionThatIsNotTransacted_isRefused() {
        try (BrokerSession s = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
            assertThatThrownBy(() -> cache.in(s))
                    .isInstanceOf(ShardQException.class)
                    .hasMessageContaining("transacted")
                    .extracting(e -> ((ShardQException) e).kind())
                    .isEqualTo(ErrorKind.ILLEGAL_STATE);
        }
    }

    @Test
    void jdbcConnection_commitsAndRollsBackWithTheApplication() throws Exception {
        cache.put("kept", "before");
        try (Connection c = db.connect()) {
            c.setAutoCommit(false);
            KvCache<String, String> bound = cache.on(c);
            bound.put("app", "1");
            bound.remove("kept");
            debit(c);
            assertThat(cache.get("app")).isNull();
            assertThat(cache.get("kept")).isEqualTo("before");
            c.rollback();
            assertThat(cache.get("app")).isNull();
            assertThat(cache.get("kept")).isEqualTo("before");
            assertThat(balance()).isEqualTo(100);

            bound.put("app", "2");
            bound.clear(); // TRUNCATE is transactional too (and locks the table until commit: no read here)
            bound.put("app", "3");
            debit(c);
            c.commit();
        }
        assertThat(cache.get("app")).isEqualTo("3");
        assertThat(cache.get("kept")).isNull();
        assertThat(balance()).isEqualTo(90);
    }

    private static void debit(Connection c) throws Exception {
        try (PreparedStatement ps = c.prepareStatement("update account set balance = balance - 10 where id = 1")) {
            ps.executeUpdate();
        }
    }

    private int balance() throws Exception {
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("select balance from account where id = 1")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /**
     * A transaction that wrote to the cache before a put whose TTL's partition did not exist yet
     * (made on another connection by {@code kv_need_bucket}): PostgreSQL routes the insert with the
     * partition list the transaction read when it first locked the parent for writing, so the
     * write locks the new partition first (which makes PostgreSQL read the list again). As the CLI's
     * {@code cache load} writes a batch: a putAll per TTL in one transaction.
     */
    @Test
    void aTransactionsPut_intoAPartitionMadeAfterItFirstWroteTheCache_lands() {
        broker.admin()
                .caches()
                .createOrGet(
                        "tx.ttl",
                        CacheOptions.DEFAULTS
                                .withDefaultTtl(java.time.Duration.ofMinutes(10))
                                .withMaxTtl(java.time.Duration.ofHours(1)));
        KvCache<String, String> c = broker.cache("tx.ttl", Codec.utf8(), Codec.utf8());
        c.clear();
        try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            KvCache<String, String> in = c.in(s);
            for (int batch = 0; batch < 3; batch++) {
                in.putAll(java.util.Map.of("a" + batch, "1", "b" + batch, "2"));
                in.putAll(java.util.Map.of("c" + batch, "3"), java.time.Duration.ofMinutes(5 + 20 * batch));
                in.putAll(java.util.Map.of("d" + batch, "4"), java.time.Duration.ofSeconds(60 + batch));
            }
            s.commit();
        }
        assertThat(c.getAll(java.util.List.of("a2", "c2", "d2"))).hasSize(3);
    }
}
