package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.Engines;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.cache.MessageCache;
import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The message model on the dequeue path: metadata always cached, bodies only when small, large
 * bodies read once on delivery and never read ahead, read-ahead bounded in bytes. Messages are
 * sent through an application connection where a test needs a cache miss: such sends are not
 * put in the cache (the application may still roll back), so the consumer reads them ahead.
 */
@PgTest
class MessageReaderTest {
    static final int LARGE = 1024;

    Broker broker;
    TestDatabase db;

    @BeforeEach
    void start(TestDatabase db) {
        this.db = db;
        broker = Broker.start(db.brokerConfig()
                .set(BrokerProperty.HEARTBEAT_MS, 200)
                .set(BrokerProperty.POLL_MAX_MS, 50)
                .set(BrokerProperty.CACHE_LARGE_PAYLOAD_BYTES, LARGE)
                .set(BrokerProperty.READ_AHEAD_MAX_BYTES, 3500)
                .build());
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    @Test
    void readAhead_cachesSmallBodies_andLargeOnesAsMetadataOnly() throws Exception {
        broker.admin().queues().create("reader.mixed", QueueOptions.DEFAULTS.withShards(1));
        List<byte[]> bodies = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            bodies.add(i % 2 == 0 ? ("small " + i).getBytes(StandardCharsets.UTF_8) : pattern(i, 200_000));
        }
        sendUncached("reader.mixed", bodies);
        MessageCache cache = Engines.of(broker).cache();
        int dest = broker.admin().require("reader.mixed").id();
        long bodiesBefore = broker.stats().bodiesRead();
        long rowsBefore = broker.stats().messageRowsRead();
        try (BrokerSession consumer = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            Delivery first = consumer.receive("reader.mixed", 10_000, false);
            assertThat(first.message().body()).isEqualTo(bodies.get(0));

            // one read-ahead of the other 9 rows: the small bodies came with it, the large did not
            assertThat(broker.stats().messageRowsRead() - rowsBefore).isEqualTo(10);
            assertThat(broker.stats().bodiesRead() - bodiesBefore).isEqualTo(5);
            for (int i = 1; i < 10; i++) {
                BrokerMessage cached = cache.get(dest, first.shard(), first.seq() + i);
                assertThat(cached).as("message %d cached", i).isNotNull();
                assertThat(cached.bodyLoaded()).as("body %d cached", i).isEqualTo(i % 2 == 0);
                assertThat(cached.bodySize()).isEqualTo(bodies.get(i).length);
            }
            assertThat(cache.weightedSize()).isLessThan(10L * LARGE);

            for (int i = 1; i < 10; i++) {
                Delivery d = consumer.receive("reader.mixed", 10_000, false);
                assertThat(d.message().body()).as("body %d", i).isEqualTo(bodies.get(i));
            }
            consumer.commit();
        }
        // each large body read once, on its delivery; no small one read again
        assertThat(broker.stats().bodiesRead() - bodiesBefore).isEqualTo(10);
        assertThat(broker.stats().messageRowsRead() - rowsBefore).isEqualTo(15);
    }

    @Test
    void readAhead_stopsAtMaxBytes() throws Exception {
        broker.admin().queues().create("reader.bytes", QueueOptions.DEFAULTS.withShards(1));
        List<byte[]> bodies = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            bodies.add(pattern(i, 1000)); // small (<= 1024), about 1,050 bytes with the header
        }
        sendUncached("reader.bytes", bodies);
        int dest = broker.admin().require("reader.bytes").id();
        long rowsBefore = broker.stats().messageRowsRead();
        try (BrokerSession consumer = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
            Delivery first = consumer.receive("reader.bytes", 10_000, false);
            // 3,500 bytes: rows 1-4 start below the bound, row 5 does not
            assertThat(broker.stats().messageRowsRead() - rowsBefore).isEqualTo(4);
            assertThat(Engines.of(broker).cache().contains(dest, first.shard(), first.seq() + 3))
                    .isTrue();
            assertThat(Engines.of(broker).cache().contains(dest, first.shard(), first.seq() + 4))
                    .isFalse();
            List<byte[]> got = new ArrayList<>(List.of(first.message().body()));
            for (int i = 1; i < 10; i++) {
                got.add(consumer.receive("reader.bytes", 10_000, false)
                        .message()
                        .body());
            }
            assertThat(got).zipSatisfy(bodies, (a, b) -> assertThat(a).isEqualTo(b));
        }
    }

    @Test
    void expiredLargeMessage_isDropped_withoutReadingItsBody() {
        broker.admin().queues().create("reader.expired", QueueOptions.DEFAULTS.withShards(1));
        try (BrokerSession producer = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
            producer.send("reader.expired", message(pattern(1, 100_000), 1)); // expired in 1970
            producer.send("reader.expired", Messages.text("alive"));
        }
        long bodiesBefore = broker.stats().bodiesRead();
        try (BrokerSession consumer = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
            assertThat(Messages.body(
                            consumer.receive("reader.expired", 10_000, false).message()))
                    .isEqualTo("alive");
            assertThat(consumer.receive("reader.expired", -1, false)).isNull();
        }
        assertThat(broker.stats().bodiesRead()).isEqualTo(bodiesBefore);
        assertThat(broker.admin().queues().backlog("reader.expired")).isZero();
    }

    @Test
    void deadLetter_carriesTheLargeBody_whenItWasNotLoaded() {
        broker.admin()
                .queues()
                .create("reader.poison", QueueOptions.DEFAULTS.withShards(1).withMaxAttempts(1));
        byte[] body = pattern(7, 300_000);
        try (BrokerSession producer = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
            producer.send("reader.poison", message(body, 0));
        }
        int dest = broker.admin().require("reader.poison").id();
        try (BrokerSession consumer = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            Delivery d = consumer.receive("reader.poison", 10_000, false);
            assertThat(d.message().body()).isEqualTo(body);
            consumer.rollback();
            // the cache still holds the metadata only: the dead-letter path must read the body itself
            assertThat(Engines.of(broker).cache().get(dest, d.shard(), d.seq()).bodyLoaded())
                    .isFalse();
            assertThat(consumer.receive("reader.poison", 300, false)).isNull();
            consumer.commit();
        }
        try (BrokerSession dlq = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
            Delivery dead = dlq.receive("reader.poison.DLQ", 10_000, false);
            assertThat(dead.message().body()).isEqualTo(body);
            assertThat(dead.message().properties()).containsKey(BrokerSession.DEAD_LETTER_REASON);
        }
    }

    /** Sends in an application transaction: committed, but not in this instance's cache. */
    private void sendUncached(String queue, List<byte[]> bodies) throws Exception {
        try (Connection c = db.connect()) {
            c.setAutoCommit(false);
            try (BrokerSession producer = broker.openSession(c)) {
                for (byte[] b : bodies) {
                    producer.send(queue, message(b, 0));
                }
                producer.commit();
            }
            c.commit();
        }
    }

    static BrokerMessage message(byte[] body, long expiration) {
        return new BrokerMessage(
                null,
                BrokerMessage.BodyType.BYTES,
                System.currentTimeMillis(),
                null,
                null,
                null,
                4,
                expiration,
                0,
                true,
                Map.of(),
                body);
    }

    static byte[] pattern(int seed, int size) {
        byte[] b = new byte[size];
        new java.util.Random(seed).nextBytes(b);
        return b;
    }
}
