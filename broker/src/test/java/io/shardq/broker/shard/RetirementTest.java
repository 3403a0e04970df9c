package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.QueueStats;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Small messages through one queue: storage is reclaimed by TRUNCATE, not VACUUM. The default lane
 * sends 200,000 (ten slices per shard, more than the six slots per shard the ring may grow to: slots are reused); the
 * scale lane ({@code -Plong}) a million.
 */
@PgTest
class RetirementTest {
    static final int SLICE = 10_000;
    static final int SHARDS = 2;

    @Test
    void twoHundredThousandMessages_tablesStayBounded_andNoDeadTuples(TestDatabase db) throws Exception {
        messages_tablesStayBounded_andNoDeadTuples(db, 200_000);
    }

    @Test
    @Tag("scale")
    void millionMessages_tablesStayBounded_andNoDeadTuples(TestDatabase db) throws Exception {
        messages_tablesStayBounded_andNoDeadTuples(db, 1_000_000);
    }

    private void messages_tablesStayBounded_andNoDeadTuples(TestDatabase db, int messages) throws Exception {
        try (Broker broker = Broker.start(db.brokerConfig()
                .set(BrokerProperty.HEARTBEAT_MS, 200)
                .set(BrokerProperty.ENQUEUE_MAX_BATCH, 1000)
                .build())) {
            broker.admin()
                    .queues()
                    .create("retire", QueueOptions.DEFAULTS.withShards(SHARDS).withSliceSize(SLICE));
            // producers at most two slices ahead of the consumers: the test is about retirement
            // when consumers keep up, not about which side two shared cores favour (one run of 7
            // let the producers get 10 slices ahead, and the ring grew to match)
            Workload w = new Workload("retire", 2, 2, messages, 100).maxAhead(2 * SLICE);
            w.run(p -> broker, c -> broker, null);
            w.assertExactlyOnce();

            long slices = messages / SLICE;
            Awaitility.await()
                    .atMost(Duration.ofMinutes(1))
                    .until(() -> broker.stats().slicesRetired() >= slices - 2L * SHARDS);
            QueueStats stats = broker.admin().queues().stats("retire");
            long oneSlice = bytesOfOneFullSlice(db);
            assertThat(stats.backlog()).isZero();
            assertThat(stats.tableBytes())
                    .as("tables after %d messages (one full slice is %d bytes)", messages, oneSlice)
                    .isLessThanOrEqualTo(2L * SHARDS * oneSlice);
            assertThat(stats.slicesInUse() + stats.slicesFree())
                    .as("the ring of slots is reused, not grown")
                    .isLessThanOrEqualTo(SHARDS * 6);
            assertThat(stats.deadTuples()).isZero();
        }
    }

    /** Size of a table holding one slice of the same messages, with the same primary key. */
    static long bytesOfOneFullSlice(TestDatabase db) throws Exception {
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("create table public.one_slice (like shardq.m_1_0_0 including all)");
            s.execute("insert into public.one_slice select shard_no, slot, seq, enqueued_at, deliver_at, expires_at,"
                    + " priority, subscribers, header, body from (select 0 shard_no, 0 slot, g seq,"
                    + " 0::bigint enqueued_at, 0::bigint deliver_at, 0::bigint expires_at, 4::smallint priority,"
                    + " null::bytea subscribers, decode(repeat('ab', 60), 'hex') header,"
                    + " convert_to('0:123456', 'UTF8') body from generate_series(1, " + SLICE + ") g) x");
            ResultSet rs = s.executeQuery("select pg_total_relation_size('public.one_slice')");
            rs.next();
            return rs.getLong(1);
        }
    }
}
