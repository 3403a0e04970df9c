package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.testing.ReplicatedPostgres;
import io.shardq.broker.testing.ReplicatedPostgres.Replication;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL fails over under load: the primary's processes are killed and its synchronous
 * standby promoted, three times in a row, a fresh standby rebuilt in between, while two ShardQ
 * instances on the cluster's URL (both hosts, {@code targetServerType=primary}) send and receive.
 * Every message whose send committed is consumed exactly once by the end, nothing else is
 * consumed, and traffic resumes by itself on each new primary. {@code -Dshardq.test.failovers=N}
 * runs more (default 3).
 */
@Tag("fault")
class FailoverTest {
    static final String QUEUE = "failover.q";

    @Test
    void synchronousStandby_failoversUnderLoad_loseNothing_duplicateNothing_andTrafficResumes() throws Exception {
        int failovers = Integer.getInteger("shardq.test.failovers", 3);
        try (ReplicatedPostgres pg = ReplicatedPostgres.start("shardq-failover", Replication.SYNCHRONOUS)) {
            BrokerConfig config = BrokerConfig.builder()
                    .isolated()
                    .set(BrokerProperty.JDBC_URL, pg.jdbcUrl())
                    .set(BrokerProperty.JDBC_USER, "postgres")
                    .set(BrokerProperty.HEARTBEAT_MS, 200)
                    .set(BrokerProperty.LEASE_TTL_MS, 3000)
                    .set(BrokerProperty.POOL_SIZE, 16)
                    .set(BrokerProperty.POOL_TIMEOUT_MS, 2000)
                    .build();
            List<Long> resumeMillis = new ArrayList<>();
            try (Broker a = Broker.start(config);
                    Broker b = Broker.start(config)) {
                a.admin()
                        .queues()
                        .create(QUEUE, QueueOptions.DEFAULTS.withShards(4).withMaxAttempts(1000));
                FaultyWorkload w = new FaultyWorkload(QUEUE).start(4, a, b);
                for (int f = 0; f < failovers; f++) {
                    w.awaitTraffic();
                    long killed = pg.failover();
                    resumeMillis.add(w.millisUntilConsumerCommit(killed));
                    pg.rebuildStandby();
                }
                w.awaitTraffic();
                w.finishAndVerify(a);
                assertThat(a.stats().deadLettered() + b.stats().deadLettered()).isZero();
                System.out.printf(
                        "FailoverTest: %d failovers, %s; ms from the primary's death to the next consumer commit: %s%n",
                        failovers, w.summary(), resumeMillis);
            }
        }
    }
}
