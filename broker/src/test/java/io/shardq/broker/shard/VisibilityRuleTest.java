package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The visibility rule: a consumer never skips a message because a transaction holding a lower
 * sequence number committed later. Producers reserve sequence numbers at send (max batch 1),
 * then sleep a random time before committing or rolling back, so without the rule later
 * numbers would commit first; a consumer races them the whole time.
 */
@PgTest
class VisibilityRuleTest {

    @Test
    void dequeue_neverSkips_whenLowerSeqCommitsLate(TestDatabase db) throws Exception {
        try (Broker broker = Broker.start(db.brokerConfig()
                .set(BrokerProperty.ENQUEUE_MAX_BATCH, 1)
                .set(BrokerProperty.HEARTBEAT_MS, 200)
                .build())) {
            broker.admin()
                    .queues()
                    .create("vis", QueueOptions.DEFAULTS.withShards(2).withSliceSize(16));
            int producers = 6;
            int transactionsEach = 25;
            Set<String> committed = ConcurrentHashMap.newKeySet();
            Set<String> rolledBack = ConcurrentHashMap.newKeySet();
            ExecutorService pool = Executors.newFixedThreadPool(producers + 1);
            CountDownLatch go = new CountDownLatch(1);
            AtomicBoolean producing = new AtomicBoolean(true);
            List<Delivery> seen = Collections.synchronizedList(new ArrayList<>());

            Future<?> consumer = pool.submit(() -> {
                try (BrokerSession s = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
                    go.await();
                    while (producing.get() || seen.size() < committed.size()) {
                        Delivery d = s.receive("vis", 50, false);
                        if (d != null) {
                            seen.add(d);
                        }
                    }
                }
                return null;
            });
            List<Future<?>> sends = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                int producer = p;
                sends.add(pool.submit(() -> {
                    ThreadLocalRandom r = ThreadLocalRandom.current();
                    try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                        go.await();
                        for (int t = 0; t < transactionsEach; t++) {
                            List<String> ids = new ArrayList<>();
                            for (int k = 0; k < 1 + r.nextInt(3); k++) {
                                String id = producer + "-" + t + "-" + k;
                                s.send("vis", Messages.text(id));
                                ids.add(id);
                                Thread.sleep(r.nextInt(3)); // reserved: later numbers may wait on us
                            }
                            Thread.sleep(r.nextInt(8));
                            if (r.nextInt(5) == 0) {
                                s.rollback();
                                rolledBack.addAll(ids);
                            } else {
                                s.commit();
                                committed.addAll(ids);
                            }
                        }
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> f : sends) {
                f.get(120, TimeUnit.SECONDS);
            }
            producing.set(false);
            consumer.get(120, TimeUnit.SECONDS);
            pool.shutdown();

            // exactly the committed messages, once each
            List<String> bodies =
                    seen.stream().map(d -> Messages.body(d.message())).toList();
            assertThat(bodies).doesNotHaveDuplicates();
            assertThat(new HashSet<>(bodies)).isEqualTo(committed);
            assertThat(bodies).doesNotContainAnyElementsOf(rolledBack);
            // per shard: sequence numbers 1, 2, 3, ... with no gap and in order: nothing skipped
            Map<Integer, List<Long>> byShard = new HashMap<>();
            for (Delivery d : seen) {
                byShard.computeIfAbsent(d.shard(), k -> new ArrayList<>()).add(d.seq());
            }
            for (List<Long> seqs : byShard.values()) {
                for (int i = 0; i < seqs.size(); i++) {
                    assertThat(seqs.get(i)).isEqualTo(i + 1L);
                }
            }
            assertThat(broker.admin().queues().backlog("vis")).isZero();
        }
    }
}
