package io.shardq.perf;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

@PgTest
class NaiveSkipLockedSystemTest {
    private static final int PRODUCERS = 2;
    private static final int CONSUMERS = 2;
    private static final int BATCHES_PER_PRODUCER = 60;
    private static final int BATCH = 10;
    private static final int TOTAL = PRODUCERS * BATCHES_PER_PRODUCER * BATCH;

    @Test
    void everyMessage_isDeliveredExactlyOnce_whenEnqueueAndDequeueRunConcurrently(TestDatabase db) throws Exception {
        NaiveSkipLockedSystem system = new NaiveSkipLockedSystem();
        system.setUp(db.dataSource(), new Settings(PRODUCERS, 64, BATCH, 2, true, false));
        ExecutorService pool = Executors.newFixedThreadPool(PRODUCERS + CONSUMERS);
        AtomicLong stamp = new AtomicLong(1);
        List<QueueSystem.Delivery> received = Collections.synchronizedList(new ArrayList<>());
        try {
            List<Future<?>> work = new ArrayList<>();
            for (int p = 0; p < PRODUCERS; p++) {
                QueueSystem.Producer producer = system.producer();
                byte[] template = Payloads.filler(64, p);
                work.add(pool.submit(() -> {
                    for (int b = 0; b < BATCHES_PER_PRODUCER; b++) {
                        List<byte[]> batch = new ArrayList<>();
                        for (int i = 0; i < BATCH; i++) {
                            long unique = stamp.getAndIncrement(); // doubles as the send stamp
                            batch.add(Payloads.stamped(template, unique, unique));
                        }
                        producer.sendBatch(batch);
                    }
                    return null;
                }));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            for (int c = 0; c < CONSUMERS; c++) {
                QueueSystem.Consumer consumer = system.consumer();
                work.add(pool.submit(() -> {
                    while (received.size() < TOTAL && System.nanoTime() < deadline) {
                        received.addAll(consumer.receiveBatch(BATCH, Duration.ofMillis(50)));
                    }
                    return null;
                }));
            }
            for (Future<?> f : work) {
                f.get(40, TimeUnit.SECONDS);
            }

            assertThat(received).hasSize(TOTAL);
            Set<String> ids = new HashSet<>();
            Set<Long> stamps = new HashSet<>();
            for (QueueSystem.Delivery d : received) {
                ids.add(d.id());
                stamps.add(d.sentMicros());
            }
            assertThat(ids).as("row ids, no duplicates").hasSize(TOTAL);
            assertThat(stamps)
                    .as("exactly the messages sent")
                    .containsExactlyInAnyOrderElementsOf(
                            LongStream.rangeClosed(1, TOTAL).boxed().toList());
            assertThat(system.backlog()).isZero();
            assertThat(system.sqlReads().getAsLong()).isGreaterThanOrEqualTo(TOTAL / BATCH);
        } finally {
            pool.shutdownNow();
            system.tearDown();
        }
    }

    @Test
    void receiveBatch_returnsEmpty_afterWaiting_whenQueueIsEmpty(TestDatabase db) throws Exception {
        NaiveSkipLockedSystem system = new NaiveSkipLockedSystem();
        system.setUp(db.dataSource(), new Settings(1, 16, 5, 1, false, false));
        try {
            QueueSystem.Consumer consumer = system.consumer();
            long before = system.sqlReads().getAsLong();
            long t0 = System.nanoTime();
            assertThat(consumer.receiveBatch(5, Duration.ofMillis(60))).isEmpty();
            assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(60));
            assertThat(system.sqlReads().getAsLong() - before).as("polls").isPositive();
        } finally {
            system.tearDown();
        }
    }

    @Test
    void receiveBatch_pollsAgainWhileWaiting_andTakesWhatArrives(TestDatabase db) throws Exception {
        NaiveSkipLockedSystem system = new NaiveSkipLockedSystem();
        system.setUp(db.dataSource(), new Settings(1, 16, 5, 1, false, false));
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (QueueSystem.Producer producer = system.producer()) {
            QueueSystem.Consumer consumer = system.consumer();
            long before = system.sqlReads().getAsLong();
            Future<List<QueueSystem.Delivery>> waiting =
                    pool.submit(() -> consumer.receiveBatch(5, Duration.ofMinutes(2)));
            // its second poll has begun, so its first found nothing: only a later one can find what is sent now
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (system.sqlReads().getAsLong() < before + 2 && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            producer.sendBatch(List.of(Payloads.stamped(Payloads.filler(64, 0), 7, 7)));

            List<QueueSystem.Delivery> got = waiting.get(90, TimeUnit.SECONDS);
            assertThat(got).extracting(QueueSystem.Delivery::sentMicros).containsExactly(7L);
        } finally {
            pool.shutdownNow();
            system.tearDown();
        }
    }

    @Test
    void tearDown_dropsTheTable(TestDatabase db) throws Exception {
        NaiveSkipLockedSystem system = new NaiveSkipLockedSystem();
        system.setUp(db.dataSource(), new Settings(1, 16, 5, 1, true, false));
        assertThat(Tables.exists(db, "shardq_perf.naive_queue")).isTrue();
        system.tearDown();
        assertThat(Tables.exists(db, "shardq_perf.naive_queue")).isFalse();
        system.tearDown(); // twice is fine
    }
}
