package io.shardq.broker.browse;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.QueueStats;
import io.shardq.broker.selector.Selector;
import io.shardq.broker.shard.BrokerSession;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A browser over a backlog of a million messages whose selector matches only the last ten:
 * it returns exactly those, and never holds more than one page of rows. Tagged {@code long}
 * (about a minute); the build runs every tag, {@code -DexcludedGroups=long} leaves it out.
 */
@PgTest
@Tag("long")
class BrowseMillionTest {
    static final int MESSAGES = 1_000_000;
    static final int PAGE_ROWS = 1000;

    @Test
    void browse_millionBacklog_returnsTheLastTenMatches_holdingOnePageAtMost(TestDatabase db) throws Exception {
        try (Broker broker = Broker.start(db.brokerConfig()
                .set(BrokerProperty.ENQUEUE_MAX_BATCH, 4000)
                .set(BrokerProperty.CACHE_MAX_BYTES, 1 << 20)
                .build())) {
            broker.admin()
                    .queues()
                    .create("million", QueueOptions.DEFAULTS.withShards(2).withSliceSize(100_000));
            load(broker, "million");
            QueueStats stats = broker.admin().queues().stats("million");
            assertThat(stats.backlog()).isEqualTo(MESSAGES);
            assertThat(stats.shards()).allSatisfy(s -> assertThat(s.backlog()).isEqualTo(MESSAGES / 2));

            Selector last10 = Selector.compile("n >= " + (MESSAGES - 10));
            List<Long> seen = new ArrayList<>();
            try (BrowseCursor cursor =
                    broker.browse("million", last10, BrowseCursor.Options.DEFAULTS.withPage(PAGE_ROWS, 64L << 20))) {
                cursor.forEachRemaining(
                        m -> seen.add((Long) m.message().properties().get("n")));
                // every message looked at, in PostgreSQL first: only the ten it selects are read
                assertThat(cursor.examined()).isEqualTo(MESSAGES);
                assertThat(cursor.rowsRead()).isEqualTo(10);
                assertThat(cursor.peakRowsHeld()).isPositive().isLessThanOrEqualTo(PAGE_ROWS);
            }
            assertThat(seen)
                    .containsExactlyElementsOf(
                            LongStream.range(MESSAGES - 10, MESSAGES).boxed().toList());
        }
    }

    /**
     * Two producing threads (sessions of different threads are pinned to different shards), each
     * sending half in order: batches of 4,000 rows go out as one multi-row INSERT, one commit per
     * 50,000 messages.
     */
    private static void load(Broker broker, String queue) throws Exception {
        var pool = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            var halves = new ArrayList<java.util.concurrent.Future<?>>();
            for (int h = 0; h < 2; h++) {
                long from = h * (long) (MESSAGES / 2);
                halves.add(pool.submit(() -> {
                    try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                        for (long n = from; n < from + MESSAGES / 2; n++) {
                            s.send(queue, Messages.text("m", Map.of("n", n)));
                            if ((n + 1) % 50_000 == 0) {
                                s.commit();
                            }
                        }
                    }
                    return null;
                }));
            }
            for (var f : halves) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
    }
}
