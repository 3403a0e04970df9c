package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.testing.OwnPostgres;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL restarted under load (fast and immediate shutdowns, alternately) while two ShardQ
 * instances send and receive: every message whose send committed is consumed exactly once by the
 * end, nothing else is consumed, and traffic resumes by itself after each restart. The server is
 * this test's own embedded PostgreSQL (it is killed), not the shared test server.
 *
 * <p>The accounting is {@link FaultyWorkload}'s. {@code -Dshardq.test.restarts=N} runs more
 * restarts (default 5).
 */
@Tag("fault")
class PostgresRestartTest {
    static final String QUEUE = "restart.q";

    @Test
    void restartsUnderLoad_loseNothing_duplicateNothing_andTrafficResumes() throws Exception {
        int restarts = Integer.getInteger("shardq.test.restarts", 5);
        OwnPostgres pg = OwnPostgres.start("shardq-restart-pg");
        String url = pg.jdbcUrl();
        BrokerConfig config = BrokerConfig.builder()
                .isolated()
                .set(BrokerProperty.JDBC_URL, url)
                .set(BrokerProperty.JDBC_USER, "postgres")
                .set(BrokerProperty.HEARTBEAT_MS, 200)
                .set(BrokerProperty.LEASE_TTL_MS, 3000)
                .set(BrokerProperty.POOL_SIZE, 16)
                .set(BrokerProperty.POOL_TIMEOUT_MS, 2000)
                .build();
        List<Long> resumeMillis = new ArrayList<>();
        try (Broker a = Broker.start(config);
                Broker b = Broker.start(config)) {
            a.admin().queues().create(QUEUE, QueueOptions.DEFAULTS.withShards(4).withMaxAttempts(1000));
            FaultyWorkload w = new FaultyWorkload(QUEUE).start(4, a, b);
            for (int r = 0; r < restarts; r++) {
                w.awaitTraffic();
                boolean immediate = r % 2 == 1;
                pg.restart(immediate);
                resumeMillis.add(w.millisUntilConsumerCommit(System.nanoTime()));
            }
            w.finishAndVerify(a);
            assertThat(a.stats().deadLettered() + b.stats().deadLettered()).isZero();
            System.out.printf(
                    "PostgresRestartTest: %d restarts, %s; ms from PostgreSQL accepting connections to the next"
                            + " consumer commit: %s%n",
                    restarts, w.summary(), resumeMillis);
        } finally {
            pg.close();
        }
    }
}
