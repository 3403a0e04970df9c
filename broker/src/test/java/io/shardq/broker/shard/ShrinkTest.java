package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.Engines;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.QueueStats;
import io.shardq.broker.ShardQException;
import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Online shrinking (issue 23, item 4; V015): {@code alter_queue(shards => N)} with N below the
 * shard count makes the shards from N up draining; producers of every instance move to the active
 * shards at a transaction boundary, consumers empty the draining shards, and the maintenance leader
 * retires them, dropping their storage. Two broker instances run in this one JVM (each its own
 * engine, pool, heartbeat and LISTEN connection, as two processes would have). Checked: nothing
 * lost or duplicated, each producer thread's messages in send order (one consumer session, so the
 * order of arrival is one sequence), no draining shard written after it began to drain, the
 * destination back to N shards of storage; a draining shard without consumers stays draining and
 * says so; message groups keep their order across a grow and a shrink.
 */
@PgTest
class ShrinkTest {

    @Test
    void shrinking8To3_underTraffic_onTwoInstances_losesNothing_keepsOrder_andRetiresTheDrainedShards(TestDatabase db)
            throws Exception {
        try (Broker a = Broker.start(config(db));
                Broker b = Broker.start(config(db))) {
            a.admin().queues().create("shrink.q", QueueOptions.DEFAULTS.withShards(8));
            PausableConsumer consumer = new PausableConsumer(a, "shrink.q");
            EnqueueOwnershipTest.Producers pa = new EnqueueOwnershipTest.Producers(a, "shrink.q", "A", 4, true);
            EnqueueOwnershipTest.Producers pb = new EnqueueOwnershipTest.Producers(b, "shrink.q", "B", 4, true);
            Awaitility.await()
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> {
                        long[] h = ShardColumn.NEXT_SEQ.longs(db, "shrink.q");
                        for (long x : h) {
                            if (x <= 1) {
                                return false;
                            }
                        }
                        return consumer.count() >= 200;
                    });
            // a backlog on every shard when the shrink begins: the producers that leave a draining
            // shard write their next messages to an active one while their earlier ones still wait
            consumer.pause();
            long target = ShardColumn.NEXT_SEQ.longs(db, "shrink.q")[0] + 30;
            Awaitility.await()
                    .atMost(Duration.ofSeconds(60))
                    .until(() -> ShardColumn.NEXT_SEQ.longs(db, "shrink.q")[0] > target);
            DestinationInfo d = a.admin().queues().alter("shrink.q", 3, null, null, null);
            assertThat(d.shardCount())
                    .as("storage stays until the drained shards are retired")
                    .isEqualTo(8);
            assertThat(d.activeShards()).isEqualTo(3);
            assertThat(d.shrinking()).isTrue();
            long[] drainHeads = ShardColumn.DRAIN_HEAD.longs(db, "shrink.q");
            assertThat(a.admin().queues().shards("shrink.q"))
                    .extracting(QueueStats.ShardStats::draining)
                    .containsExactly(false, false, false, true, true, true, true, true);
            assertThat(ShardColumn.OWNER_INSTANCE.values(db, "shrink.q").subList(3, 8))
                    .as("no draining shard is owned for enqueue")
                    .containsOnlyNulls();
            // the producers of both instances keep sending, to the active shards only
            int sentA = pa.total();
            int sentB = pb.total();
            Awaitility.await()
                    .atMost(Duration.ofSeconds(60))
                    .until(() -> pa.total() > sentA + 200 && pb.total() > sentB + 200);
            long[] heads = ShardColumn.NEXT_SEQ.longs(db, "shrink.q");
            for (int s = 3; s < 8; s++) {
                assertThat(heads[s] - 1).as("head of draining shard %d", s).isEqualTo(drainHeads[s]);
            }
            consumer.resume();
            Awaitility.await()
                    .atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> a.admin().require("shrink.q").shardCount() == 3);
            DestinationInfo after = a.admin().require("shrink.q");
            assertThat(after.shrinking()).isFalse();
            assertThat(after.activeShards()).isEqualTo(3);
            pa.stop();
            pb.stop();
            consumer.drain(a, "shrink.q");
            consumer.assertExactlyOnceInOrder(pa, pb);
            assertThat(storage(db, "shrink.q"))
                    .as("shard rows, cursors, shard tables")
                    .containsExactly(3L, 3L, 3L);
            assertThat(consumer.shardsSeen())
                    .as("every shard was consumed from")
                    .hasSize(8);
            System.out.println("SHRINK: transactions rolled back because their shard began to drain: A "
                    + pa.rolledBack.get() + ", B " + pb.rolledBack.get());
        }
    }

    @Test
    void aDrainingShardWithoutConsumers_staysDraining_andIsRetiredOnceDrained(TestDatabase db) throws Exception {
        try (Broker broker = Broker.start(config(db))) {
            broker.admin().queues().create("shrink.idle", QueueOptions.DEFAULTS.withShards(4));
            try (BrokerSession p = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                p.spreadShards();
                for (int i = 0; i < 40; i++) {
                    p.send("shrink.idle", Messages.text("early-" + i));
                    p.commit();
                }
            }
            assertThat(ShardColumn.NEXT_SEQ.longs(db, "shrink.idle")).containsOnly(11L);
            broker.admin().queues().alter("shrink.idle", 2, null, null, null);
            try (BrokerSession p = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                for (int i = 0; i < 20; i++) {
                    p.send("shrink.idle", Messages.text("late-" + i));
                    p.commit();
                }
            }
            long[] heads = ShardColumn.NEXT_SEQ.longs(db, "shrink.idle");
            assertThat(heads[2]).as("draining shards take nothing more").isEqualTo(11L);
            assertThat(heads[3]).isEqualTo(11L);
            assertThat(heads[0] + heads[1]).isEqualTo(11L + 11L + 20L);
            // the leader's step: nothing to lift or retire while the draining shards hold messages
            assertThat(shrinkStep(db, "shrink.idle")).isEmpty();
            DestinationInfo d = broker.admin().require("shrink.idle");
            assertThat(d.shardCount()).isEqualTo(4);
            assertThat(d.shrinking()).isTrue();
            assertThat(broker.admin().queues().shards("shrink.idle"))
                    .extracting(QueueStats.ShardStats::draining)
                    .containsExactly(false, false, true, true);
            assertThat(broker.admin().queues().backlog("shrink.idle")).isEqualTo(60);

            // a consumer comes: the early messages (all of the draining shards') come before the late ones
            List<String> got = new ArrayList<>();
            try (BrokerSession c = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
                long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(120);
                while (got.size() < 60 && System.nanoTime() < deadline) {
                    Delivery x = c.receive("shrink.idle", 200, false);
                    if (x != null) {
                        got.add(Messages.body(x.message()));
                    }
                }
            }
            assertThat(got).hasSize(60).doesNotHaveDuplicates();
            List<String> late = got.stream().filter(s -> s.startsWith("late-")).toList();
            List<String> inOrder = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                inOrder.add("late-" + i);
            }
            assertThat(late).as("one session's messages in send order").isEqualTo(inOrder);
            Awaitility.await()
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> broker.admin().require("shrink.idle").shardCount() == 2);
            assertThat(storage(db, "shrink.idle")).containsExactly(2L, 2L, 2L);
            assertThat(broker.admin().queues().shards("shrink.idle"))
                    .hasSize(2)
                    .noneMatch(QueueStats.ShardStats::draining);

            // grown again: shards 2 and 3 are new (sequence numbers from 1, new slices), nothing of the old ones
            broker.admin().queues().alter("shrink.idle", 4, null, null, null);
            try (BrokerSession p = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                p.spreadShards();
                for (int i = 0; i < 40; i++) {
                    p.send("shrink.idle", Messages.text("regrown-" + i));
                    p.commit();
                }
            }
            assertThat(ShardColumn.NEXT_SEQ.longs(db, "shrink.idle")[3]).isEqualTo(11L);
            List<String> again = new ArrayList<>();
            try (BrokerSession c = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
                long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(120);
                while (again.size() < 40 && System.nanoTime() < deadline) {
                    Delivery x = c.receive("shrink.idle", 200, false);
                    if (x != null) {
                        again.add(Messages.body(x.message()));
                    }
                }
                assertThat(c.receive("shrink.idle", -1, false)).isNull();
            }
            assertThat(again).hasSize(40).doesNotHaveDuplicates().allMatch(b -> b.startsWith("regrown-"));
        }
    }

    @Test
    void aTopicShrinks_onceEverySubscriptionDrainedTheDrainingShards(TestDatabase db) throws Exception {
        try (Broker broker = Broker.start(config(db))) {
            broker.admin().topics().create("shrink.t", QueueOptions.DEFAULTS.withShards(4));
            BrokerSession fastSession = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE);
            BrokerSession slowSession = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE);
            BrokerConsumer fast = fastSession.subscribe("shrink.t", TopicTest.durable("fast", "sub"));
            BrokerConsumer slow = slowSession.subscribe("shrink.t", TopicTest.durable("slow", "sub"));
            try (BrokerSession p = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                p.spreadShards();
                for (int i = 0; i < 8; i++) {
                    p.send("shrink.t", Messages.text("early-" + i));
                    p.commit();
                }
            }
            broker.admin().topics().alter("shrink.t", 2, null, null, null, null, null);
            try (BrokerSession p = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                for (int i = 0; i < 4; i++) {
                    p.send("shrink.t", Messages.text("late-" + i));
                    p.commit();
                }
            }
            // the fast subscription gets every early message; the late ones wait behind the fences
            // while the slow subscription still needs the draining shards (the rule is per destination)
            List<String> gotFast = receive(fast, 8);
            assertThat(gotFast).hasSize(8).allMatch(b -> b.startsWith("early-"));
            assertThat(shrinkStep(db, "shrink.t")).isEmpty();
            assertThat(fast.receive(-1, false)).isNull();
            // the slow one drains: the leader lifts the fences and retires the shards
            List<String> gotSlow = receive(slow, 12);
            assertThat(gotSlow).hasSize(12).doesNotHaveDuplicates();
            assertThat(gotSlow.stream().filter(b -> b.startsWith("late-")))
                    .as("one session's messages in send order")
                    .containsExactly("late-0", "late-1", "late-2", "late-3");
            assertThat(receive(fast, 4)).containsExactly("late-0", "late-1", "late-2", "late-3");
            fastSession.close();
            slowSession.close();
            Awaitility.await()
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> broker.admin().require("shrink.t").shardCount() == 2);
        }
    }

    /** {@code n} messages of a consumer, each waited for up to two minutes in all. */
    private static List<String> receive(BrokerConsumer c, int n) {
        List<String> got = new ArrayList<>();
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(120);
        while (got.size() < n && System.nanoTime() < deadline) {
            Delivery x = c.receive(200, false);
            if (x != null) {
                got.add(Messages.body(x.message()));
            }
        }
        return got;
    }

    @Test
    void alteringWhileShrinking_isRefused_andTheSameCountIsNoChange(TestDatabase db) {
        try (Broker broker = Broker.start(config(db))) {
            broker.admin().queues().create("shrink.twice", QueueOptions.DEFAULTS.withShards(4));
            try (BrokerSession p = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                p.spreadShards();
                for (int i = 0; i < 4; i++) {
                    p.send("shrink.twice", Messages.text("m" + i));
                    p.commit();
                }
            }
            broker.admin().queues().alter("shrink.twice", 2, null, null, null);
            assertThat(broker.admin()
                            .queues()
                            .alter("shrink.twice", 2, null, null, null)
                            .shardCount())
                    .isEqualTo(4);
            org.assertj.core.api.Assertions.assertThatThrownBy(
                            () -> broker.admin().queues().alter("shrink.twice", 6, null, null, null))
                    .isInstanceOf(ShardQException.class)
                    .hasMessageContaining("is still shrinking to 2 shards: shards 2 to 3 are draining")
                    .satisfies(e -> assertThat(((ShardQException) e).kind()).isEqualTo(ErrorKind.ILLEGAL_STATE));
            org.assertj.core.api.Assertions.assertThatThrownBy(
                            () -> broker.admin().queues().alter("shrink.twice", 0, null, null, null))
                    .isInstanceOf(ShardQException.class)
                    .hasMessageContaining("shard count 0 is invalid");
        }
    }

    @Test
    void messageGroups_keepTheirOrder_acrossAGrowAndAShrink_oneConsumerAtATime(TestDatabase db) throws Exception {
        int groups = 24;
        int perStage = 4;
        try (Broker a = Broker.start(config(db));
                Broker b = Broker.start(config(db))) {
            a.admin().queues().create("shrink.groups", QueueOptions.DEFAULTS.withShards(4));
            a.admin().setDeliveryPolicy("shrink.groups", null, null, null, true);
            sendGroups(a, groups, 1, perStage);
            a.admin().queues().alter("shrink.groups", 8, null, null, null);
            sendGroups(a, groups, perStage + 1, 2 * perStage);
            DestinationInfo d = a.admin().queues().alter("shrink.groups", 3, null, null, null);
            assertThat(d.groupMap()).as("groups of shard 3 move to shard 0").containsExactly(0, 1, 2, 0);
            sendGroups(b, groups, 2 * perStage + 1, 3 * perStage);

            // two consumer sessions on each instance; each commits one message at a time and logs it
            List<String[]> log = java.util.Collections.synchronizedList(new ArrayList<>());
            Map<String, String> holder = new java.util.concurrent.ConcurrentHashMap<>();
            ConcurrentLinkedQueue<String> overlaps = new ConcurrentLinkedQueue<>();
            int total = groups * 3 * perStage;
            AtomicBoolean stop = new AtomicBoolean();
            List<Thread> threads = new ArrayList<>();
            for (int k = 0; k < 4; k++) {
                Broker broker = k % 2 == 0 ? a : b;
                String me = "c" + k;
                Thread t = new Thread(() -> {
                    try (BrokerSession c = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                        while (!stop.get() && log.size() < total) {
                            Delivery x = c.receive("shrink.groups", 100, false);
                            if (x == null) {
                                continue;
                            }
                            String[] parts = Messages.body(x.message()).split(":");
                            String was = holder.put(parts[0], me);
                            if (was != null && !was.equals(me)) {
                                overlaps.add(parts[0] + " held by " + was + " when " + me + " got " + parts[1]);
                            }
                            synchronized (log) {
                                holder.remove(parts[0], me); // released by the commit that follows
                                c.commit();
                                log.add(new String[] {parts[0], parts[1], me});
                            }
                        }
                    }
                });
                t.setDaemon(true);
                t.start();
                threads.add(t);
            }
            Awaitility.await().atMost(Duration.ofSeconds(120)).until(() -> log.size() >= total);
            stop.set(true);
            for (Thread t : threads) {
                t.join(30_000);
            }
            assertThat(overlaps).as("a group is held by one consumer at a time").isEmpty();
            Map<String, List<Integer>> order = new HashMap<>();
            Set<String> seen = new HashSet<>();
            synchronized (log) {
                for (String[] e : log) {
                    assertThat(seen.add(e[0] + ":" + e[1]))
                            .as("once: %s:%s", e[0], e[1])
                            .isTrue();
                    order.computeIfAbsent(e[0], g -> new ArrayList<>()).add(Integer.parseInt(e[1]));
                }
            }
            List<Integer> inOrder = new ArrayList<>();
            for (int i = 1; i <= 3 * perStage; i++) {
                inOrder.add(i);
            }
            assertThat(order).hasSize(groups);
            order.forEach(
                    (g, seqs) -> assertThat(seqs).as("order of group %s", g).isEqualTo(inOrder));
            Awaitility.await()
                    .atMost(Duration.ofSeconds(60))
                    .until(() -> a.admin().require("shrink.groups").shardCount() == 3);
        }
    }

    /**
     * An instance whose snapshot predates a shrink (its notification not yet read) writes a
     * draining shard (kept draining by a message of its own until the end): the commit is refused as a rollback, and the instance reads the destination
     * again at once, so the very next transaction goes to an active shard (an application that
     * sends again is not refused again and again until the notification comes).
     */
    @Test
    void aCommitRefusedByADrainingShard_refreshesTheSnapshot_soTheNextSendGoesToAnActiveShard(TestDatabase db)
            throws Exception {
        try (Broker a = Broker.start(config(db));
                Broker b = Broker.start(config(db))) {
            a.admin().queues().create("shrink.stale", QueueOptions.DEFAULTS.withShards(4));
            a.admin().setDeliveryPolicy("shrink.stale", null, null, null, true);
            String group = "g0";
            for (int i = 1; Math.floorMod(group.hashCode(), 4) != 3; i++) {
                group = "g" + i; // a group whose shard is 3, the one that will drain
            }
            DestinationRuntime rt = Engines.of(b).runtime("shrink.stale", true);
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> rt.info()
                    .messageGroups());
            DestinationInfo before = rt.info();
            // a message on shard 3 keeps it draining (not retired) until a consumer takes it
            sendOne(a, "shrink.stale", group, "zero");
            assertThat(a.admin().queues().shards("shrink.stale").get(3).backlog())
                    .isEqualTo(1);
            a.admin().queues().alter("shrink.stale", 3, null, null, null);
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> rt.info()
                    .shrinking());
            rt.refresh(before); // as if b had not read the shrink's notification yet

            String g = group;
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> sendOne(b, "shrink.stale", g, "first"))
                    .isInstanceOf(ShardQException.class)
                    .hasMessageContaining("is draining")
                    .satisfies(e -> assertThat(((ShardQException) e).kind()).isEqualTo(ErrorKind.ROLLED_BACK));
            assertThat(rt.info().shrinking())
                    .as("the refused commit read the destination again")
                    .isTrue();
            sendOne(b, "shrink.stale", g, "second");
            assertThat(a.admin().queues().shards("shrink.stale").get(3).backlog())
                    .as("nothing more on the draining shard")
                    .isEqualTo(1);
            try (BrokerSession c = a.openSession(BrokerSession.Mode.TRANSACTED)) {
                List<String> got = new ArrayList<>();
                for (int i = 0; i < 2; i++) {
                    Delivery x = c.receive("shrink.stale", 60_000, false);
                    assertThat(x).isNotNull();
                    got.add(Messages.body(x.message()));
                    c.commit();
                }
                assertThat(got)
                        .as("the group in order, the refused send not among it")
                        .containsExactly("zero", "second");
            }
            assertThat(a.admin().queues().shards("shrink.stale").stream()
                            .mapToLong(QueueStats.ShardStats::backlog)
                            .sum())
                    .as("the refused send left nothing")
                    .isZero();
        }
    }

    private static void sendOne(Broker broker, String queue, String group, String body) {
        try (BrokerSession p = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            p.send(queue, Messages.text(body, Map.of(BrokerSession.GROUP_ID, group)));
            p.commit();
        }
    }

    /**
     * One transaction per sequence number, every group; one rolled back because its shard began to
     * drain before this instance heard of the shrink is sent again.
     */
    private static void sendGroups(Broker broker, int groups, int fromSeq, int toSeq) {
        for (int seq = fromSeq; seq <= toSeq; seq++) {
            for (int attempt = 0; ; attempt++) {
                try (BrokerSession p = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                    for (int g = 0; g < groups; g++) {
                        p.send(
                                "shrink.groups",
                                Messages.text("g" + g + ":" + seq, Map.of(BrokerSession.GROUP_ID, "g" + g)));
                    }
                    p.commit();
                    break;
                } catch (ShardQException e) {
                    if (e.kind() != ErrorKind.ROLLED_BACK || attempt >= 50) {
                        throw e;
                    }
                }
            }
        }
    }

    private static BrokerConfig config(TestDatabase db) {
        return db.brokerConfig()
                .set(BrokerProperty.HEARTBEAT_MS, 200)
                .set(BrokerProperty.LEASE_TTL_MS, 2000)
                .build();
    }

    /** The leader's shrink step, run by hand: what it did. */
    private static List<String> shrinkStep(TestDatabase db, String queue) throws Exception {
        try (Connection c = db.connect();
                PreparedStatement ps = c.prepareStatement(
                        "SELECT event, shard_no FROM shardq.shrink_step(shardq.destination_id(?))")) {
            ps.setString(1, queue);
            List<String> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1) + " " + rs.getString(2));
                }
            }
            return out;
        }
    }

    /** Shard rows, cursor rows and shard tables (partitions of the destination's table) left. */
    /**
     * The destination's shard rows, cursor rows and shards with storage (tables under its message
     * table: one per shard on one server, one per shard and slot on Citus, named m_id_shard[_slot]).
     * A lookup first, then one table a query: Citus joins no distributed table with the catalog.
     */
    private static List<Long> storage(TestDatabase db, String queue) throws Exception {
        try (Connection c = db.connect()) {
            int id;
            try (PreparedStatement ps = c.prepareStatement("SELECT id FROM shardq.destination WHERE name = ?")) {
                ps.setString(1, queue);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    id = rs.getInt(1);
                }
            }
            List<Long> counts = new ArrayList<>();
            for (String sql : List.of(
                    "SELECT count(*) FROM shardq.shard WHERE destination_id = ?",
                    "SELECT count(*) FROM shardq.cursor WHERE destination_id = ?",
                    "SELECT count(DISTINCT split_part(t.relname, '_', 3)) FROM pg_inherits i"
                            + " JOIN pg_class t ON t.oid = i.inhrelid WHERE i.inhparent = ('shardq.m_' || ?)::regclass")) {
                try (PreparedStatement ps = c.prepareStatement(sql)) {
                    ps.setInt(1, id);
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        counts.add(rs.getLong(1));
                    }
                }
            }
            return counts;
        }
    }

    /** {@link EnqueueOwnershipTest.Consumer} that can be paused (a backlog builds up meanwhile). */
    static final class PausableConsumer extends EnqueueOwnershipTest.Consumer {
        PausableConsumer(Broker broker, String queue) {
            super(broker, queue);
        }

        void pause() {
            paused.set(true);
        }

        void resume() {
            paused.set(false);
        }

        synchronized Set<Integer> shardsSeen() {
            return new HashSet<>(shardsOf);
        }
    }
}
