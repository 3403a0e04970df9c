package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * A transaction that writes a batch ahead of its commit (more than {@code enqueue.max-batch}
 * messages to one shard) first writes its pending batches of lower (destination, shard) keys, so
 * the shard rows it holds are locked in the global order.
 */
@PgTest
class WriteAheadOrderTest {

    @Test
    void writingAhead_locksTheLowerDestinationsShardFirst(TestDatabase db) throws SQLException {
        try (Broker broker = Broker.start(
                db.brokerConfig().set(BrokerProperty.ENQUEUE_MAX_BATCH, 5).build())) {
            broker.admin().queues().create("wa.low", QueueOptions.DEFAULTS.withShards(1));
            broker.admin().queues().create("wa.high", QueueOptions.DEFAULTS.withShards(1));
            int low = broker.admin().require("wa.low").id();
            int high = broker.admin().require("wa.high").id();
            assertThat(low).isLessThan(high);
            try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                s.send("wa.low", Messages.text("first"));
                assertThat(shardRowLocked(db, low))
                        .as("one pending message: nothing written yet")
                        .isFalse();
                for (int i = 0; i < 5; i++) {
                    s.send("wa.high", Messages.text("h" + i)); // the fifth writes wa.high ahead
                }
                assertThat(shardRowLocked(db, high)).isTrue();
                assertThat(shardRowLocked(db, low))
                        .as("the lower destination's batch was written (and its row locked) before")
                        .isTrue();
                s.commit();
            }
            assertThat(broker.admin().queues().backlog("wa.low")).isEqualTo(1);
            assertThat(broker.admin().queues().backlog("wa.high")).isEqualTo(5);
        }
    }

    /** True when another transaction holds the lock of the destination's shard 0 row. */
    private static boolean shardRowLocked(TestDatabase db, int destination) throws SQLException {
        try (Connection c = db.connect();
                PreparedStatement ps = c.prepareStatement("SELECT 1 FROM shardq.shard"
                        + " WHERE destination_id = ? AND shard_no = 0 FOR UPDATE SKIP LOCKED")) {
            ps.setInt(1, destination);
            try (ResultSet rs = ps.executeQuery()) {
                return !rs.next();
            }
        }
    }
}
