package io.shardq.broker.browse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.selector.Selector;
import io.shardq.broker.shard.BrokerSession;
import io.shardq.broker.shard.Delivery;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The lazy browse cursor: order, what it shows, and the bound on what it holds. */
@PgTest
class BrowseCursorTest {
    Broker broker;

    @BeforeEach
    void start(TestDatabase db) {
        broker = Broker.start(db.brokerConfig()
                .set(BrokerProperty.HEARTBEAT_MS, 200)
                .set(BrokerProperty.CACHE_MAX_BYTES, 1 << 20)
                .build());
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    @Test
    void browse_mergesShardsOldestFirst_andSkipsConsumedAndTakenOutOfOrder() throws Exception {
        broker.admin()
                .queues()
                .create("b.merge", QueueOptions.DEFAULTS.withShards(2).withSliceSize(16));
        // two producing sessions, first used by two threads, are pinned to the two shards
        try (BrokerSession a = broker.openSession(BrokerSession.Mode.TRANSACTED);
                BrokerSession b = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            Thread other = new Thread(() -> b.send("b.merge", Messages.text("pin", Map.of("i", -1, "color", "none"))));
            other.start();
            other.join();
            b.rollback();
            for (int i = 0; i < 60; i++) {
                BrokerSession s = i % 2 == 0 ? a : b;
                s.send("b.merge", Messages.text("m" + i, Map.of("i", i, "color", i % 5 == 0 ? "red" : "blue")));
                s.commit();
            }
        }
        // a plain consumer takes the head of one shard; a selective one takes reds out of order
        List<String> consumed = new ArrayList<>();
        try (BrokerSession c = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            for (int k = 0; k < 3; k++) {
                consumed.add(Messages.body(c.receive("b.merge", 2000, false).message()));
            }
            c.commit();
            Selector red = Selector.compile("color = 'red'");
            Delivery d;
            while ((d = c.receive("b.merge", 300, false, red)) != null) {
                consumed.add(Messages.body(d.message()));
            }
            c.commit();
        }
        assertThat(consumed).contains("m10", "m55");

        List<BrowsedMessage> seen = drain(broker.browse("b.merge", null, BrowseCursor.Options.DEFAULTS));

        List<String> bodies = seen.stream().map(m -> Messages.body(m.message())).toList();
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            if (!consumed.contains("m" + i)) {
                expected.add("m" + i);
            }
        }
        assertThat(bodies).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(seen.stream().map(BrowsedMessage::shard).distinct()).containsExactlyInAnyOrder(0, 1);
        assertThat(seen)
                .isSortedAccordingTo(Comparator.comparingLong(BrowsedMessage::enqueuedAt)
                        .thenComparingInt(BrowsedMessage::shard)
                        .thenComparingLong(BrowsedMessage::seq));
        assertThat(broker.admin().queues().backlog("b.merge")).isEqualTo(seen.size());
    }

    @Test
    void browse_showsOnlyMessagesSentBeforeItOpened() {
        broker.admin().queues().create("b.snapshot", QueueOptions.DEFAULTS.withShards(1));
        send("b.snapshot", 0, 5);
        try (BrowseCursor cursor = broker.browse("b.snapshot", null, BrowseCursor.Options.DEFAULTS)) {
            send("b.snapshot", 5, 10);
            List<String> seen = new ArrayList<>();
            cursor.forEachRemaining(m -> seen.add(Messages.body(m.message())));
            assertThat(seen).containsExactly("m0", "m1", "m2", "m3", "m4");
        }
        assertThat(broker.browse("b.snapshot", 100)).hasSize(10);
    }

    @Test
    void browse_selectorMatchingNothing_readsNoRowIntoTheJvm_holdingOnePageAtMost() {
        broker.admin()
                .queues()
                .create("b.none", QueueOptions.DEFAULTS.withShards(2).withSliceSize(64));
        try (BrokerSession a = broker.openSession(BrokerSession.Mode.TRANSACTED);
                BrokerSession b = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            for (int i = 0; i < 500; i++) {
                (i % 2 == 0 ? a : b).send("b.none", Messages.text("m" + i, Map.of("i", i)));
            }
            a.commit();
            b.commit();
        }
        BrowseCursor.Options page = BrowseCursor.Options.DEFAULTS.withPage(40, 1 << 20);
        try (BrowseCursor cursor = broker.browse("b.none", Selector.compile("i > 500"), page)) {
            assertThat(cursor.hasNext()).isFalse();
            assertThatThrownBy(cursor::next).isInstanceOf(NoSuchElementException.class);
            // every message looked at, in PostgreSQL first: no row the selector leaves out is read
            assertThat(cursor.examined()).isEqualTo(500);
            assertThat(cursor.rowsRead()).isZero();
            assertThat(cursor.peakRowsHeld()).isLessThanOrEqualTo(40);
        }
        try (BrowseCursor cursor = broker.browse("b.none", Selector.compile("i >= 498"), page)) {
            assertThat(drain(cursor).stream().map(m -> m.message().properties().get("i")))
                    .containsExactly(498, 499);
            assertThat(cursor.examined()).isEqualTo(500);
            assertThat(cursor.rowsRead()).isEqualTo(2);
            assertThat(cursor.peakRowsHeld()).isLessThanOrEqualTo(40);
        }
    }

    @Test
    void browse_pagesBoundedInBytes_whenBodiesAreLarge() {
        broker.admin().queues().create("b.large", QueueOptions.DEFAULTS.withShards(1));
        int bodyBytes = 10_000;
        try (BrokerSession p = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            for (int i = 0; i < 20; i++) {
                char[] body = new char[bodyBytes];
                Arrays.fill(body, (char) ('a' + i));
                p.send("b.large", Messages.text(new String(body), Map.of("i", i)));
            }
            p.commit();
        }
        long pageBytes = 25_000;
        try (BrowseCursor cursor =
                broker.browse("b.large", null, BrowseCursor.Options.DEFAULTS.withPage(1000, pageBytes))) {
            List<BrowsedMessage> seen = drain(cursor);
            assertThat(seen.stream().map(m -> m.message().properties().get("i")))
                    .containsExactlyElementsOf(
                            java.util.stream.IntStream.range(0, 20).boxed().toList());
            long largestRow = seen.stream()
                    .mapToLong(m -> m.message().body().length + 200L)
                    .max()
                    .orElseThrow();
            assertThat(cursor.peakBytesHeld()).isLessThanOrEqualTo(pageBytes + largestRow);
            assertThat(cursor.pagesRead()).isGreaterThanOrEqualTo(20 / 3);
        }
    }

    @Test
    void browse_mergesTheMemorySource_filteredBySelector() {
        broker.admin().queues().create("b.memory", QueueOptions.DEFAULTS.withShards(1));
        send("b.memory", 0, 3);
        MemorySource memory = () -> List.of(
                        inMemory("np-early", "red", 1),
                        inMemory("np-blue", "blue", 2),
                        inMemory("np-late", "red", Long.MAX_VALUE))
                .iterator();
        BrowseCursor.Options options = BrowseCursor.Options.DEFAULTS.withMemory(memory);
        try (BrowseCursor cursor = broker.browse("b.memory", Selector.compile("color = 'red'"), options)) {
            String order =
                    drain(cursor).stream().map(m -> Messages.body(m.message())).collect(Collectors.joining(","));
            assertThat(order).isEqualTo("np-early,m0,m1,m2,np-late");
        }
    }

    @Test
    void close_endsTheCursor_andIsSafeTwice() {
        broker.admin().queues().create("b.close", QueueOptions.DEFAULTS.withShards(1));
        send("b.close", 0, 3);
        BrowseCursor cursor = broker.browse("b.close", null, BrowseCursor.Options.DEFAULTS);
        assertThat(cursor.hasNext()).isTrue();
        cursor.close();
        cursor.close();
        assertThat(cursor.hasNext()).isFalse();
        assertThatThrownBy(cursor::next).isInstanceOf(NoSuchElementException.class);
    }

    private void send(String queue, int from, int to) {
        try (BrokerSession p = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            for (int i = from; i < to; i++) {
                p.send(queue, Messages.text("m" + i, Map.of("i", i, "color", "red")));
            }
            p.commit();
        }
    }

    /** A message kept in memory only, enqueued at {@code at} (epoch millis). */
    private static BrowsedMessage inMemory(String body, String color, long at) {
        BrokerMessage m = Messages.text(body, Map.of("color", color));
        return new BrowsedMessage(MemorySource.SHARD, 0, at, m);
    }

    private static List<BrowsedMessage> drain(BrowseCursor cursor) {
        List<BrowsedMessage> out = new ArrayList<>();
        try (cursor) {
            cursor.forEachRemaining(out::add);
        }
        return out;
    }
}
