package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Message groups (a destination's delivery policy): 100 groups over 4 consumers; each group's
 * messages arrive in order, each exactly once, and closing a consumer part-way moves its groups to
 * the others without loss or reordering.
 */
@PgTest
class MessageGroupsTest {
    static final int GROUPS = 100;
    static final int PER_GROUP = 10;

    record Got(int consumer, long index) {}

    @Test
    void hundredGroupsOverFourConsumers_inOrder_once_andAClosedConsumersGroupsMove(TestDatabase db) throws Exception {
        try (Broker broker = Broker.start(db.brokerConfig().build())) {
            broker.admin().queues().create("groups.q", QueueOptions.DEFAULTS.withShards(8));
            assertThat(broker.admin()
                            .setDeliveryPolicy("groups.q", null, null, null, true)
                            .messageGroups())
                    .isTrue();
            try (BrokerSession p = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                for (int seq = 1; seq <= PER_GROUP; seq++) {
                    for (int g = 0; g < GROUPS; g++) {
                        p.send(
                                "groups.q",
                                Messages.text(
                                        "g" + g + ":" + seq,
                                        Map.of(BrokerSession.GROUP_ID, "g" + g, "JMSXGroupSeq", seq)));
                    }
                    p.commit();
                }
            }
            int total = GROUPS * PER_GROUP;
            Map<String, Got> got = new ConcurrentHashMap<>();
            AtomicLong order = new AtomicLong();
            AtomicInteger twice = new AtomicInteger();
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                List<Future<Integer>> consumers = new ArrayList<>();
                for (int id = 0; id < 4; id++) {
                    int me = id;
                    consumers.add(pool.submit(() -> {
                        int mine = 0;
                        try (BrokerSession c = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
                            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
                            while (got.size() < total && System.nanoTime() < deadline) {
                                if (me == 0 && mine == 100) {
                                    return mine; // closes part-way: its groups move to the others
                                }
                                Delivery d = c.receive("groups.q", 200, false);
                                if (d == null) {
                                    continue;
                                }
                                String text = new String(d.message().body(), StandardCharsets.UTF_8);
                                if (got.putIfAbsent(text, new Got(me, order.incrementAndGet())) != null) {
                                    twice.incrementAndGet();
                                }
                                mine++;
                            }
                        }
                        return mine;
                    }));
                }
                List<Integer> counts = new ArrayList<>();
                for (Future<Integer> f : consumers) {
                    counts.add(f.get(180, TimeUnit.SECONDS));
                }
                assertThat(counts.get(0)).isEqualTo(100);
                System.out.println("MessageGroupsTest: messages per consumer " + counts);
            } finally {
                pool.shutdownNow();
            }
            assertThat(twice.get()).isZero();
            assertThat(got).hasSize(total);
            int moved = 0;
            for (int g = 0; g < GROUPS; g++) {
                long last = 0;
                boolean byZero = false;
                boolean afterZero = false;
                for (int seq = 1; seq <= PER_GROUP; seq++) {
                    Got x = got.get("g" + g + ":" + seq);
                    assertThat(x.index())
                            .as("g%d:%d after g%d:%d", g, seq, g, seq - 1)
                            .isGreaterThan(last);
                    last = x.index();
                    byZero |= x.consumer() == 0;
                    afterZero |= byZero && x.consumer() != 0;
                }
                moved += afterZero ? 1 : 0;
            }
            System.out.println("MessageGroupsTest: groups that moved from the closed consumer: " + moved);
        }
    }
}
