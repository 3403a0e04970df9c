package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.Engines;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.cache.MessageCache;
import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.security.MessageDigest;
import java.util.BitSet;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * 1,000 messages of 1 MiB through one queue with a consumer keeping up (at most 4 in flight):
 * every body arrives intact, each body is read from PostgreSQL exactly once (on its delivery,
 * never with a neighbour's read-ahead) and the cache stays within its bound, holding no large
 * body. About 1 GiB goes through a durable PostgreSQL, hence the tag; the build runs tagged tests
 * too (surefire has no group filter).
 */
@PgTest
@Tag("long")
class LargeBodyFlowTest {
    static final int MESSAGES = 1000;
    static final int BODY = 1 << 20;
    static final int CACHE_MAX_BYTES = 4 << 20;

    @Test
    void largeBodies_areReadOncePerDelivery_andTheCacheStaysBounded_whenTheConsumerKeepsUp(TestDatabase db)
            throws Exception {
        try (Broker broker = Broker.start(db.brokerConfig()
                .set(BrokerProperty.HEARTBEAT_MS, 200)
                .set(BrokerProperty.CACHE_MAX_BYTES, CACHE_MAX_BYTES)
                .build())) {
            broker.admin()
                    .queues()
                    .create("large.flow", QueueOptions.DEFAULTS.withShards(1).withSliceSize(32));
            MessageCache cache = Engines.of(broker).cache();
            long bodiesBefore = broker.stats().bodiesRead();
            long rowsBefore = broker.stats().messageRowsRead();
            Semaphore inFlight = new Semaphore(4);
            CompletableFuture<Void> producer = CompletableFuture.runAsync(() -> {
                try (BrokerSession p = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
                    for (int i = 0; i < MESSAGES; i++) {
                        inFlight.acquireUninterruptibly();
                        p.send("large.flow", message(i));
                    }
                }
            });
            BitSet seen = new BitSet(MESSAGES);
            long largestWeight = 0;
            try (BrokerSession consumer = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
                for (int n = 0; n < MESSAGES; n++) {
                    Delivery d = consumer.receive("large.flow", 60_000, false);
                    assertThat(d).as("message %d of %d", n + 1, MESSAGES).isNotNull();
                    int i = (Integer) d.message().properties().get("i");
                    assertThat(seen.get(i)).as("message %d delivered twice", i).isFalse();
                    seen.set(i);
                    assertThat(sha256(d.message().body()))
                            .as("body of message %d", i)
                            .isEqualTo(sha256(body(i)));
                    largestWeight = Math.max(largestWeight, cache.weightedSize());
                    inFlight.release();
                }
                assertThat(consumer.receive("large.flow", -1, false)).isNull();
            }
            producer.get(60, TimeUnit.SECONDS);

            assertThat(seen.cardinality()).isEqualTo(MESSAGES);
            // Every body had to come from PostgreSQL (the cache never holds one over 64 KiB), so
            // exactly one read per message also means that no body was read twice.
            long bodies = broker.stats().bodiesRead() - bodiesBefore;
            long rows = broker.stats().messageRowsRead() - rowsBefore;
            assertThat(bodies).isEqualTo(MESSAGES);
            assertThat(bodies).isLessThanOrEqualTo((long) (MESSAGES * 1.1));
            assertThat(rows).isLessThanOrEqualTo((long) (MESSAGES * 1.1));
            assertThat(largestWeight).isLessThanOrEqualTo(cache.maxBytes()).isLessThan(BODY);
        }
    }

    static BrokerMessage message(int i) {
        return io.shardq.broker.testing.Messages.bytes("ID:large-" + i, Map.of("i", i), body(i));
    }

    static byte[] body(int i) {
        byte[] b = new byte[BODY];
        new SplittableRandom(i).nextBytes(b);
        return b;
    }

    static String sha256(byte[] b) throws Exception {
        return java.util.HexFormat.of()
                .formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    }
}
