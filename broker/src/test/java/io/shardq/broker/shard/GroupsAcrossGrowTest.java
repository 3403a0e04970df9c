package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Message groups keep their shard when the destination grows (V014's recorded assignment): every
 * message of a group, sent before and after a grow from 4 to 8 shards, is stored on one shard and
 * delivered in send order, beside messages without a group.
 */
@PgTest
class GroupsAcrossGrowTest {
    static final int GROUPS = 40;
    static final int PER_GROUP = 6;

    @Test
    void groupsKeepTheirShard_acrossAGrow_andArriveInOrder(TestDatabase db) throws Exception {
        try (Broker broker = Broker.start(db.brokerConfig().build())) {
            broker.admin().queues().create("grow.groups", QueueOptions.DEFAULTS.withShards(4));
            broker.admin().setDeliveryPolicy("grow.groups", null, null, null, true);
            send(broker, 1, PER_GROUP / 2);
            assertThat(broker.admin()
                            .queues()
                            .alter("grow.groups", 8, null, null, null)
                            .groupMap())
                    .as("the assignment before the grow, recorded")
                    .containsExactly(0, 1, 2, 3);
            send(broker, PER_GROUP / 2 + 1, PER_GROUP);
            try (BrokerSession p = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                for (int i = 0; i < 64; i++) {
                    p.send("grow.groups", Messages.text("free:" + i, Map.of()));
                    p.commit();
                }
            }

            Map<String, Set<Integer>> shardsOf = new HashMap<>();
            Map<String, List<Integer>> orderOf = new HashMap<>();
            int total = GROUPS * PER_GROUP + 64;
            int received = 0;
            try (BrokerSession c = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
                long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(120);
                while (received < total && System.nanoTime() < deadline) {
                    Delivery d = c.receive("grow.groups", 200, false);
                    if (d == null) {
                        continue;
                    }
                    received++;
                    String[] text = new String(d.message().body(), StandardCharsets.UTF_8).split(":");
                    if (text[0].startsWith("g")) {
                        shardsOf.computeIfAbsent(text[0], k -> new HashSet<>()).add(d.shard());
                        orderOf.computeIfAbsent(text[0], k -> new ArrayList<>()).add(Integer.parseInt(text[1]));
                    }
                }
            }
            assertThat(received).isEqualTo(total);
            assertThat(shardsOf).hasSize(GROUPS);
            List<Integer> inOrder = new ArrayList<>();
            for (int i = 1; i <= PER_GROUP; i++) {
                inOrder.add(i);
            }
            shardsOf.forEach((g, shards) ->
                    assertThat(shards).as("shards of group %s", g).hasSize(1));
            shardsOf.forEach((g, shards) ->
                    assertThat(shards.iterator().next()).as("group %s", g).isLessThan(4));
            orderOf.forEach(
                    (g, seqs) -> assertThat(seqs).as("order of group %s", g).isEqualTo(inOrder));
        }
    }

    private static void send(Broker broker, int fromSeq, int toSeq) {
        try (BrokerSession p = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            for (int seq = fromSeq; seq <= toSeq; seq++) {
                for (int g = 0; g < GROUPS; g++) {
                    p.send("grow.groups", Messages.text("g" + g + ":" + seq, Map.of(BrokerSession.GROUP_ID, "g" + g)));
                }
                p.commit();
            }
        }
    }
}
