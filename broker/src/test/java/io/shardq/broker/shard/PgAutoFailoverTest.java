package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.testing.AutoFailoverCluster;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * FailoverTest's scenario with pg_auto_failover deciding: a monitor and two nodes (the secondary
 * synchronous, pg_auto_failover's default), the primary's host killed under load, the monitor
 * promoting the secondary after its own timeouts. Nothing committed is lost or duplicated and every
 * client resumes by itself. Runs where Debian's {@code postgresql-15-auto-failover} is installed,
 * and says so when it is skipped.
 */
@Tag("fault")
class PgAutoFailoverTest {
    static final String QUEUE = "autofailover.q";

    @Test
    void theMonitorPromotesTheSecondary_underLoad_nothingLostOrDuplicated_everyClientResumes() throws Exception {
        String absent = AutoFailoverCluster.absent();
        Assumptions.assumeTrue(absent == null, absent);
        try (AutoFailoverCluster cluster = AutoFailoverCluster.start("shardq-pg-auto-failover")) {
            BrokerConfig config = BrokerConfig.builder()
                    .isolated()
                    .set(BrokerProperty.JDBC_URL, cluster.jdbcUrl())
                    .set(BrokerProperty.JDBC_USER, "postgres")
                    .set(BrokerProperty.HEARTBEAT_MS, 200)
                    .set(BrokerProperty.LEASE_TTL_MS, 3000)
                    .set(BrokerProperty.POOL_SIZE, 16)
                    .set(BrokerProperty.POOL_TIMEOUT_MS, 2000)
                    .set(BrokerProperty.FAILOVER_WAIT_MS, 120_000)
                    .build();
            try (Broker a = Broker.start(config);
                    Broker b = Broker.start(config)) {
                a.admin()
                        .queues()
                        .create(QUEUE, QueueOptions.DEFAULTS.withShards(4).withMaxAttempts(1000));
                FaultyWorkload w = new FaultyWorkload(QUEUE).start(4, a, b);
                w.awaitTraffic();
                w.awaitMoreSends(5_000);
                long dead = cluster.killPrimaryHost(Duration.ofMinutes(6));
                List<Long> resumed = w.millisUntilEveryWorkerCommits(dead);
                w.awaitTraffic();
                w.awaitMoreSends(5_000); // on the promoted node
                w.finishAndVerify(a);
                assertThat(a.stats().deadLettered() + b.stats().deadLettered()).isZero();
                System.out.printf(
                        "PgAutoFailoverTest: %s; ms from the primary's death to each client's next commit: %s%n",
                        w.summary(), resumed);
            }
        }
    }
}
