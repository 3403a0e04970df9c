package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.testing.FaultProxy;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Connections taken away under load, two instances sending and receiving: backends terminated at
 * random ({@code pg_terminate_backend}), and every connection cut at once by a TCP proxy. The
 * accounting is {@link FaultyWorkload}'s: nothing lost, nothing duplicated, traffic resumes.
 * {@code -Dshardq.test.terminations=N} and {@code -Dshardq.test.cuts=N} run more (defaults 50, 20).
 */
@PgTest
@Tag("fault")
class BackendFaultsTest {

    /** With shared send commits on too: one transaction carries several sessions' batches (issue 25). */
    @ParameterizedTest(name = "shared sends {0}")
    @ValueSource(booleans = {false, true})
    void terminatedBackends_loseNothing_duplicateNothing(boolean sharedSends, TestDatabase db) throws Exception {
        int terminations = Integer.getInteger("shardq.test.terminations", 50);
        BrokerConfig config = config(db, db.jdbcUrl(), sharedSends);
        try (Broker a = Broker.start(config);
                Broker b = Broker.start(config)) {
            String queue = sharedSends ? "terminate.shared.q" : "terminate.q"; // one database for the class
            a.admin().queues().create(queue, QueueOptions.DEFAULTS.withShards(4).withMaxAttempts(1000));
            FaultyWorkload w = new FaultyWorkload(queue).start(4, a, b);
            int killed = 0;
            w.awaitTraffic();
            try (Connection admin = db.connect()) {
                while (killed < terminations) {
                    List<Integer> pids = backends(admin, db.name());
                    if (pids.isEmpty()) {
                        continue;
                    }
                    int pid = pids.get(ThreadLocalRandom.current().nextInt(pids.size()));
                    try (PreparedStatement ps = admin.prepareStatement("SELECT pg_terminate_backend(?)")) {
                        ps.setInt(1, pid);
                        ps.execute();
                    }
                    killed++;
                    if (killed % 10 == 0) {
                        w.awaitTraffic();
                    }
                }
            }
            w.finishAndVerify(a);
            if (sharedSends) { // the faults did meet shared transactions
                assertThat(a.stats().sharedSendCommits() + b.stats().sharedSendCommits())
                        .isPositive();
            }
            System.out.printf("BackendFaultsTest: %d backends terminated; %s%n", killed, w.summary());
        }
    }

    @ParameterizedTest(name = "shared sends {0}")
    @ValueSource(booleans = {false, true})
    void everyConnectionCut_loseNothing_duplicateNothing(boolean sharedSends, TestDatabase db) throws Exception {
        int cuts = Integer.getInteger("shardq.test.cuts", 20);
        try (FaultProxy proxy = FaultProxy.in(db.jdbcUrl())) {
            BrokerConfig config = config(db, proxy.url(db.jdbcUrl()), sharedSends);
            List<Long> resumeMillis = new ArrayList<>();
            try (Broker a = Broker.start(config);
                    Broker b = Broker.start(config)) {
                String queue = sharedSends ? "cut.shared.q" : "cut.q"; // one database for the class
                a.admin()
                        .queues()
                        .create(queue, QueueOptions.DEFAULTS.withShards(4).withMaxAttempts(1000));
                FaultyWorkload w = new FaultyWorkload(queue).start(4, a, b);
                for (int i = 0; i < cuts; i++) {
                    w.awaitTraffic();
                    proxy.cutAll();
                    resumeMillis.add(w.millisUntilConsumerCommit(System.nanoTime()));
                }
                w.finishAndVerify(a);
                if (sharedSends) {
                    assertThat(a.stats().sharedSendCommits() + b.stats().sharedSendCommits())
                            .isPositive();
                }
                System.out.printf(
                        "BackendFaultsTest: %d cuts of every connection; %s; ms to the next consumer commit: %s%n",
                        cuts, w.summary(), resumeMillis);
            }
        }
    }

    private static BrokerConfig config(TestDatabase db, String url, boolean sharedSends) {
        return db.brokerConfig()
                .set(BrokerProperty.JDBC_URL, url)
                .set(BrokerProperty.COMMIT_SHARED_SENDS, sharedSends)
                .set(BrokerProperty.HEARTBEAT_MS, 200)
                .set(BrokerProperty.LEASE_TTL_MS, 3000)
                .set(BrokerProperty.POOL_SIZE, 16)
                .set(BrokerProperty.POOL_TIMEOUT_MS, 2000)
                .build();
    }

    /** Backends of this test's database other than the caller's. */
    private static List<Integer> backends(Connection admin, String database) throws Exception {
        List<Integer> out = new ArrayList<>();
        try (PreparedStatement ps = admin.prepareStatement("SELECT pid FROM pg_stat_activity"
                + " WHERE datname = ? AND pid <> pg_backend_pid() AND backend_type = 'client backend'")) {
            ps.setString(1, database);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getInt(1));
                }
            }
        }
        assertThat(out.size()).isLessThan(100);
        return out;
    }
}
