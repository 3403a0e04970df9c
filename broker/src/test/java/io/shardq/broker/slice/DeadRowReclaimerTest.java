package io.shardq.broker.slice;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.shard.BrokerSession;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** Rows written by sends that rolled back are reclaimed, though leaves have autovacuum off. */
@PgTest
class DeadRowReclaimerTest {

    @Test
    void rolledBackSends_leaveNoStorageBehind(TestDatabase db) throws Exception {
        db.assumeNotCitus("the rows live on the workers, whose autovacuum reclaims them (the coordinator's"
                + " statistics, which the reclaimer reads, count none)");
        try (Broker broker = Broker.start(
                db.brokerConfig().set(BrokerProperty.ENQUEUE_MAX_BATCH, 50).build())) {
            broker.admin().queues().create("dead.rows", QueueOptions.DEFAULTS.withShards(1));
            int dest = broker.admin().require("dead.rows").id();
            try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                s.send("dead.rows", Messages.text("the one that stays"));
                s.commit();
                for (int t = 0; t < 20; t++) {
                    for (int i = 0; i < 100; i++) {
                        s.send("dead.rows", Messages.text("x".repeat(400))); // written ahead every 50
                    }
                    s.rollback();
                }
            }
            // the rolled-back rows were written (counted by PostgreSQL's statistics, which the
            // reclaimer's vacuum does not reset: the heap's size raced with it and made this flaky)
            Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> rowsInserted(db, dest) >= 2_001);
            Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> heapBytes(db, dest) <= 8192);
            assertThat(broker.deadRowVacuums()).isPositive();
            assertThat(broker.admin().queues().backlog("dead.rows")).isEqualTo(1);
            try (BrokerSession c = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
                assertThat(Messages.body(c.receive("dead.rows", 5000, false).message()))
                        .isEqualTo("the one that stays");
                assertThat(c.receive("dead.rows", 100, false)).isNull();
            }
        }
    }

    /** Rows ever inserted into the leaves of the destination's shard 0, rolled back ones included. */
    private static long rowsInserted(TestDatabase db, int dest) throws SQLException {
        try (Connection c = db.connect();
                PreparedStatement ps = c.prepareStatement("SELECT coalesce(sum(n_tup_ins), 0) FROM pg_stat_all_tables"
                        + " WHERE schemaname = 'shardq' AND relname LIKE ?")) {
            ps.setString(1, "m\\_" + dest + "\\_0\\_%");
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** Heap bytes (main fork) of every leaf of the destination's shard 0. */
    private static long heapBytes(TestDatabase db, int dest) throws SQLException {
        try (Connection c = db.connect();
                PreparedStatement ps = c.prepareStatement("SELECT coalesce(sum(pg_relation_size(c.oid)), 0)"
                        + " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                        + " WHERE n.nspname = 'shardq' AND c.relkind = 'r' AND c.relname LIKE ?")) {
            ps.setString(1, "m\\_" + dest + "\\_0\\_%");
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}
