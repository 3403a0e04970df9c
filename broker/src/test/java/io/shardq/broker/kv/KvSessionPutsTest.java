package io.shardq.broker.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.CacheOptions;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.ShardQException;
import io.shardq.broker.shard.BrokerSession;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A transacted session's plain puts are held back to its commit ({@link SessionPuts}), which, when
 * the transaction holds nothing else, joins the cache's group commit: nothing inside the session
 * can tell, and the transaction stays all or nothing.
 */
@PgTest
class KvSessionPutsTest {

    private static Broker start(TestDatabase db, boolean shared) {
        Broker broker = Broker.start(db.brokerConfig()
                .set(BrokerProperty.COMMIT_SHARED_CACHE_PUTS, shared)
                .build());
        broker.admin().caches().createOrGet("held", CacheOptions.DEFAULTS);
        broker.cache("held", Codec.utf8(), Codec.utf8()).clear();
        return broker;
    }

    /** Tries to lock every row of the cache's table from another connection without waiting. */
    private static boolean rowsFree(TestDatabase db, KvCache<?, ?> cache) throws SQLException {
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            try {
                s.executeQuery("select 1 from shardq.\"kv_"
                                + KvInternals.of(cache).cacheId() + "\" for update nowait")
                        .close();
                return true;
            } catch (SQLException e) {
                if ("55P03".equals(e.getSQLState())) { // lock_not_available
                    return false;
                }
                throw e;
            } finally {
                c.rollback();
            }
        }
    }

    @Test
    void aSessionsPuts_holdNoRowUntilItsCommit_thenLand(TestDatabase db) throws Exception {
        for (boolean shared : new boolean[] {true, false}) {
            try (Broker broker = start(db, shared)) {
                KvCache<String, String> cache = broker.cache("held", Codec.utf8(), Codec.utf8());
                cache.put("k", "before");
                try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                    cache.in(s).putAll(Map.of("k", "after", "n", "new"));
                    // held back: the existing row is not locked yet; written at once, it is
                    assertThat(rowsFree(db, cache))
                            .as("rows free, shared %s", shared)
                            .isEqualTo(shared);
                    assertThat(cache.get("k")).isEqualTo("before");
                    s.commit();
                }
                assertThat(cache.getAll(List.of("k", "n"))).isEqualTo(Map.of("k", "after", "n", "new"));
            }
        }
    }

    @Test
    void whatTheSessionReads_orRunsOnItsConnection_seesItsHeldBackPuts(TestDatabase db) throws Exception {
        try (Broker broker = start(db, true)) {
            KvCache<String, String> cache = broker.cache("held", Codec.utf8(), Codec.utf8());
            try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                KvCache<String, String> in = cache.in(s);
                in.put("a", "1");
                assertThat(in.get("a")).isEqualTo("1");
                in.put("b", "2");
                in.put("a", "3"); // the later put of a key wins, as in the table
                try (Statement st = s.connection().createStatement();
                        ResultSet rs = st.executeQuery("select count(*) from shardq.\"kv_"
                                + KvInternals.of(cache).cacheId() + "\"")) {
                    rs.next();
                    assertThat(rs.getInt(1)).isEqualTo(2);
                }
                assertThat(in.putIfAbsent("b", "x")).isFalse();
                assertThat(cache.get("a")).isNull(); // still uncommitted
                s.rollback();
            }
            assertThat(cache.getAll(List.of("a", "b"))).isEmpty();
            try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                cache.in(s).put("a", "1");
                cache.in(s).put("a", "3");
                s.commit();
            }
            assertThat(cache.get("a")).isEqualTo("3");
        }
    }

    @Test
    void putsWithASend_orToTwoCaches_commitAsOneTransaction(TestDatabase db) throws Exception {
        try (Broker broker = start(db, true)) {
            broker.admin().caches().createOrGet("held.two", CacheOptions.DEFAULTS);
            broker.admin().queues().createOrGet("held.q", QueueOptions.DEFAULTS.withShards(1));
            KvCache<String, String> one = broker.cache("held", Codec.utf8(), Codec.utf8());
            KvCache<String, String> two = broker.cache("held.two", Codec.utf8(), Codec.utf8());
            two.clear();
            try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                one.in(s).put("x", "1");
                two.in(s).put("y", "2");
                s.send("held.q", Messages.text("m"));
                s.rollback();
                assertThat(one.get("x")).isNull();
                assertThat(two.get("y")).isNull();
                assertThat(broker.admin().queues().backlog("held.q")).isZero();

                one.in(s).put("x", "1");
                two.in(s).put("y", "2");
                s.send("held.q", Messages.text("m"));
                s.commit();
            }
            assertThat(one.get("x")).isEqualTo("1");
            assertThat(two.get("y")).isEqualTo("2");
            assertThat(broker.admin().queues().backlog("held.q")).isEqualTo(1);
        }
    }

    @Test
    void aCacheDroppedBeforeTheCommit_failsItAsARollback_andTheSessionGoesOn(TestDatabase db) throws Exception {
        try (Broker broker = start(db, true)) {
            broker.admin().caches().createOrGet("held.gone", CacheOptions.DEFAULTS);
            broker.admin().queues().createOrGet("held.q2", QueueOptions.DEFAULTS.withShards(1));
            KvCache<String, String> gone = broker.cache("held.gone", Codec.utf8(), Codec.utf8());
            try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                gone.in(s).put("k", "v");
                broker.admin().caches().drop("held.gone");
                assertThatThrownBy(s::commit)
                        .isInstanceOf(ShardQException.class)
                        .extracting(e -> ((ShardQException) e).kind())
                        .isEqualTo(ErrorKind.ROLLED_BACK);
                s.send("held.q2", Messages.text("after"));
                s.commit();
            }
            assertThat(broker.admin().queues().backlog("held.q2")).isEqualTo(1);
        }
    }

    @Test
    void aCacheDroppedBeforeACommitWithASend_rollsBackTheSendToo(TestDatabase db) throws Exception {
        try (Broker broker = start(db, true)) {
            broker.admin().caches().createOrGet("held.gone2", CacheOptions.DEFAULTS);
            broker.admin().queues().createOrGet("held.q3", QueueOptions.DEFAULTS.withShards(1));
            KvCache<String, String> gone = broker.cache("held.gone2", Codec.utf8(), Codec.utf8());
            try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                gone.in(s).put("k", "v");
                s.send("held.q3", Messages.text("with the put"));
                broker.admin().caches().drop("held.gone2");
                assertThatThrownBy(s::commit)
                        .isInstanceOf(ShardQException.class)
                        .extracting(e -> ((ShardQException) e).kind())
                        .isEqualTo(ErrorKind.ROLLED_BACK);
                assertThat(broker.admin().queues().backlog("held.q3")).isZero();
                s.send("held.q3", Messages.text("next transaction"));
                s.commit();
            }
            try (BrokerSession r = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
                assertThat(Messages.body(r.receive("held.q3", 5_000, false).message()))
                        .isEqualTo("next transaction");
                assertThat(r.receive("held.q3", -1, false)).isNull();
            }
        }
    }

    @Test
    void anXaBranchOfPutsOnly_isPrepared_notVotedReadOnly(TestDatabase db) throws Exception {
        db.assumeNotCitus("XA is refused there (CitusClusterTest.anXaSession_isRefusedWithAClearError)");
        try (Broker broker = start(db, true)) {
            org.junit.jupiter.api.Assumptions.assumeTrue(
                    broker.xa().maxPreparedTransactions() > 0,
                    "the test server has max_prepared_transactions = 0 (SHARDQ_TEST_JDBC_URL): XA case skipped");
            KvCache<String, String> cache = broker.cache("held", Codec.utf8(), Codec.utf8());
            String gid = "kvheld." + ProcessHandle.current().pid() + "." + System.nanoTime();
            try (BrokerSession xa = broker.xa().openSession()) {
                xa.xaAssociate(true);
                cache.in(xa).put("xa", "1");
                xa.xaAssociate(false);
                assertThat(xa.prepare(gid)).isTrue();
                assertThat(cache.get("xa")).isNull();
                assertThat(broker.xa().commit(gid)).isTrue();
            }
            assertThat(cache.get("xa")).isEqualTo("1");
        }
    }

    @Test
    void manySessionsCommittingPuts_atOnce_storeEveryEntry(TestDatabase db) throws Exception {
        try (Broker broker = start(db, true)) {
            KvCache<String, String> cache = broker.cache("held", Codec.utf8(), Codec.utf8());
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                List<Future<?>> all = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    int thread = t;
                    all.add(pool.submit(() -> {
                        try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                            for (int commit = 0; commit < 50; commit++) {
                                Map<String, String> batch = new java.util.HashMap<>();
                                for (int i = 0; i < 5; i++) {
                                    batch.put(thread + "-" + commit + "-" + i, "v");
                                }
                                cache.in(s).putAll(batch);
                                s.commit();
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> f : all) {
                    f.get(120, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
            assertThat(broker.admin().caches().stats("held").entries()).isEqualTo(4 * 50 * 5);
        }
    }
}
