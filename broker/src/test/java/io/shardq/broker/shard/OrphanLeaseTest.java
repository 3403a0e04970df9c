package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.Engines;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * A lease the database says is an instance's while the instance itself has dropped it (its release
 * was skipped because a transaction held the cursor row) is given back by that instance's
 * heartbeat, so another instance's consumer gets the backlog. Before, the heartbeat renewed every
 * row it held in the database, so such a row, and the messages behind it, stayed with an instance
 * that served nobody: CI failed once in {@code TopicTest} on a durable subscription's only shard.
 */
@PgTest
class OrphanLeaseTest {

    @Test
    void aReleaseSkippedUnderARowLock_isGivenBackByTheHeartbeat_andAnotherInstanceConsumes(TestDatabase db)
            throws Exception {
        try (Broker a = Broker.start(
                db.brokerConfig().set(BrokerProperty.HEARTBEAT_MS, 200).build())) {
            a.admin().queues().create("orphan.q", QueueOptions.DEFAULTS.withShards(1));
            try (BrokerSession p = a.openSession(BrokerSession.Mode.TRANSACTED)) {
                p.send("orphan.q", Messages.text("first"));
                p.send("orphan.q", Messages.text("second"));
                p.commit();
            }
            try (BrokerSession s = a.openSession(BrokerSession.Mode.TRANSACTED)) {
                assertThat(Messages.body(s.receive("orphan.q", 10_000, false).message()))
                        .isEqualTo("first");
                s.commit();
            }
            long sub = a.admin().require("orphan.q").queueSubscription();
            ShardState shard = Engines.of(a).runtime("orphan.q", false).queue().shards()[0];
            assertThat(shard.leased).isTrue();
            try (Connection lock = db.connect()) {
                // what a consumer commit logging under FOR KEY SHARE holds: the idle release skips the row
                lock.setAutoCommit(false);
                try (PreparedStatement ps = lock.prepareStatement(
                        "SELECT 1 FROM shardq.cursor WHERE subscription_id = ? AND shard_no = 0 FOR KEY SHARE")) {
                    ps.setLong(1, sub);
                    ps.executeQuery().close();
                }
                // nobody consumes in a any more: it drops the lease once idle, and the database keeps it
                Awaitility.await("the idle instance dropped the lease here")
                        .atMost(Duration.ofSeconds(60))
                        .until(() -> !shard.leased);
                assertThat(holder(db, sub)).isEqualTo(a.instanceId());
                lock.commit();
            }
            try (Broker b = Broker.start(db.brokerConfig()
                            .set(BrokerProperty.HEARTBEAT_MS, 200)
                            .build());
                    BrokerSession s = b.openSession(BrokerSession.Mode.TRANSACTED)) {
                // a deadline, not a claim on how fast: a's heartbeat gives it back, b's consumer takes it
                Delivery d = s.receive("orphan.q", 30_000, false);
                assertThat(d)
                        .as("the backlog reached the other instance (lease held by %s)", holder(db, sub))
                        .isNotNull();
                assertThat(Messages.body(d.message())).isEqualTo("second");
                s.commit();
                assertThat(holder(db, sub)).isEqualTo(b.instanceId());
            }
        }
    }

    private static long holder(TestDatabase db, long sub) throws Exception {
        try (Connection c = db.connect();
                PreparedStatement ps = c.prepareStatement(
                        "SELECT coalesce(lease_instance, 0) FROM shardq.cursor WHERE subscription_id = ? AND shard_no = 0")) {
            ps.setLong(1, sub);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}
