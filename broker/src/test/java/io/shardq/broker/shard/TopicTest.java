package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.Engines;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.ShardQException;
import io.shardq.broker.SubscriptionSpec;
import io.shardq.broker.SubscriptionSpec.Kind;
import io.shardq.broker.SubscriptionStats;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Topics in the engine: one stored copy, subscriber bitmaps, subscription rules, bit reuse, expiry. */
@PgTest
class TopicTest {
    Broker broker;
    TestDatabase db;

    @BeforeEach
    void start(TestDatabase db) {
        this.db = db;
        broker = Broker.start(
                db.brokerConfig().set(BrokerProperty.HEARTBEAT_MS, 200).build());
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    static SubscriptionSpec durable(String clientId, String name) {
        return new SubscriptionSpec(Kind.DURABLE, name, clientId, null, false, "conn-" + clientId);
    }

    static SubscriptionSpec shared(String name, String selector) {
        return new SubscriptionSpec(Kind.SHARED_DURABLE, name, null, selector, false, "conn");
    }

    static void publish(Broker b, String topic, String prefix, int n, Map<String, Object> props) {
        try (BrokerSession s = b.openSession(BrokerSession.Mode.TRANSACTED)) {
            for (int i = 0; i < n; i++) {
                s.send(topic, Messages.text(prefix + i, props));
                if (i % 10 == 9) {
                    s.commit();
                }
            }
            s.commit();
        }
    }

    /** Receives until nothing comes for a while; commits every 7 messages. */
    static List<String> drain(BrokerConsumer c, BrokerSession s) {
        List<String> got = new ArrayList<>();
        Delivery d;
        while ((d = c.receive(500, false)) != null) {
            got.add(Messages.body(d.message()));
            if (got.size() % 7 == 0) {
                s.commit();
            }
        }
        s.commit();
        return got;
    }

    long storedRows(String topic) throws SQLException {
        int id = broker.admin().require(topic).id();
        try (Connection c = db.connect();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("select count(*) from shardq.m_" + id)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void everyDurableSubscription_getsEveryMessageOnce_inPublisherOrder_storedOnce() throws Exception {
        broker.admin()
                .topics()
                .create("t.all", QueueOptions.DEFAULTS.withShards(2).withSliceSize(64));
        int subs = 3;
        List<BrokerSession> sessions = new ArrayList<>();
        List<BrokerConsumer> consumers = new ArrayList<>();
        for (int i = 0; i < subs; i++) {
            BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED);
            sessions.add(s);
            consumers.add(s.subscribe("t.all", durable("client" + i, "sub")));
        }
        Thread p1 = new Thread(() -> publish(broker, "t.all", "a", 300, Map.of()));
        Thread p2 = new Thread(() -> publish(broker, "t.all", "b", 300, Map.of()));
        p1.start();
        p2.start();
        p1.join();
        p2.join();
        assertThat(storedRows("t.all")).isEqualTo(600); // once, not once per subscription
        for (int i = 0; i < subs; i++) {
            List<String> got = drain(consumers.get(i), sessions.get(i));
            assertThat(got).hasSize(600).doesNotHaveDuplicates();
            for (String prefix : List.of("a", "b")) {
                List<Integer> order = got.stream()
                        .filter(x -> x.startsWith(prefix))
                        .map(x -> Integer.parseInt(x.substring(1)))
                        .toList();
                assertThat(order).isSorted().hasSize(300);
            }
        }
        sessions.forEach(BrokerSession::close);
        for (SubscriptionStats st : broker.admin().topics().subscriptions("t.all")) {
            assertThat(st.lag()).as(st.name()).isZero();
            assertThat(st.kind()).isEqualTo("durable");
        }
    }

    @Test
    void aTopicsMessages_leaveTheCache_onceEveryLocalSubscriptionConsumedThem() {
        broker.admin().topics().create("t.cache", QueueOptions.DEFAULTS.withShards(1));
        try (BrokerSession a = broker.openSession(BrokerSession.Mode.TRANSACTED);
                BrokerSession b = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            BrokerConsumer ca = a.subscribe("t.cache", durable("ca", "sub"));
            BrokerConsumer cb = b.subscribe("t.cache", durable("cb", "sub"));
            publish(broker, "t.cache", "m", 20, Map.of());
            int dest = broker.requireDestination("t.cache", false).id();
            var cache = Engines.of(broker).cache();
            assertThat(cb.receive(5000, false)).isNotNull(); // b at work: it holds the shard, at position 0
            assertThat(drain(ca, a)).hasSize(20);
            // the other subscription has not consumed them: they stay cached for it
            for (long seq = 1; seq <= 20; seq++) {
                assertThat(cache.contains(dest, 0, seq)).as("seq %d", seq).isTrue();
            }
            assertThat(drain(cb, b)).hasSize(19);
            for (long seq = 1; seq <= 20; seq++) {
                assertThat(cache.contains(dest, 0, seq)).as("seq %d", seq).isFalse();
            }
        }
    }

    @Test
    void disjointSelectors_disjointSets_bitmapsMatch_andUnwantedMessagesAreNotStored() throws Exception {
        broker.admin().topics().create("t.sel", QueueOptions.DEFAULTS.withShards(1));
        broker.admin().topics().addSubscriber("t.sel", "eu", "region = 'EU'");
        broker.admin().topics().addSubscriber("t.sel", "us", "region = 'US'");
        broker.admin().topics().addSubscriber("t.sel", "big", "amount > 100");
        for (String region : List.of("EU", "US", "APAC")) {
            for (int amount : List.of(10, 500)) {
                publish(broker, "t.sel", region + amount + "-", 5, Map.of("region", region, "amount", amount));
            }
        }
        Map<String, List<String>> got = new HashMap<>();
        for (String sub : List.of("eu", "us", "big")) {
            try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                got.put(sub, drain(s.subscribe("t.sel", shared(sub, null)), s));
            }
        }
        assertThat(got.get("eu")).hasSize(10).allMatch(x -> x.startsWith("EU"));
        assertThat(got.get("us")).hasSize(10).allMatch(x -> x.startsWith("US"));
        assertThat(got.get("big")).hasSize(15).allMatch(x -> x.contains("500-"));
        assertThat(got.get("eu")).doesNotContainAnyElementsOf(got.get("us"));
        // APAC10 matches nobody: never stored. 30 published, 25 stored.
        assertThat(storedRows("t.sel")).isEqualTo(25);
        Map<String, Integer> bits = new HashMap<>();
        broker.admin().topics().subscriptions("t.sel").forEach(st -> bits.put(st.name(), st.bit()));
        int id = broker.admin().require("t.sel").id();
        try (Connection c = db.connect();
                Statement st = c.createStatement();
                ResultSet rs =
                        st.executeQuery("select get_bit(subscribers, " + bits.get("eu") + "), get_bit(subscribers, "
                                + bits.get("us") + "), get_bit(subscribers, "
                                + bits.get("big") + "), seq from shardq.m_" + id + " order by seq")) {
            int eu = 0;
            int us = 0;
            int big = 0;
            // get_bit numbers the bits of a byte from the least significant, as ShardQ's bitmaps do
            while (rs.next()) {
                eu += rs.getInt(1);
                us += rs.getInt(2);
                big += rs.getInt(3);
                assertThat(rs.getInt(1) + rs.getInt(2))
                        .as("eu and us are disjoint")
                        .isLessThanOrEqualTo(1);
            }
            assertThat(List.of(eu, us, big)).containsExactly(10, 10, 15);
        }
    }

    @Test
    void aReusedBit_neverInheritsTheOldSubscriptionsMessages() throws Exception {
        broker.admin().topics().create("t.reuse", QueueOptions.DEFAULTS.withShards(2));
        broker.admin().topics().addSubscriber("t.reuse", "old", null);
        publish(broker, "t.reuse", "old", 20, Map.of());
        int oldBit = broker.admin().topics().subscriptions("t.reuse").get(0).bit();
        broker.admin().topics().removeSubscriber("t.reuse", "old", null, false);
        broker.admin().topics().addSubscriber("t.reuse", "new", null);
        assertThat(broker.admin().topics().subscriptions("t.reuse").get(0).bit())
                .isEqualTo(oldBit);
        publish(broker, "t.reuse", "new", 5, Map.of());
        try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            assertThat(drain(s.subscribe("t.reuse", shared("new", null)), s))
                    .containsExactlyInAnyOrder("new0", "new1", "new2", "new3", "new4");
        }
    }

    @Test
    void aPublisherWithAStaleView_stillStampsANewSubscription() throws Exception {
        db.assumeNotCitus("it disables a catalog trigger, a command Citus refuses on its tables");
        broker.admin().topics().create("t.stale", QueueOptions.DEFAULTS.withShards(1));
        broker.admin().topics().addSubscriber("t.stale", "first", null);
        try (Broker other = Broker.start(
                db.brokerConfig().set(BrokerProperty.HEARTBEAT_MS, 200).build())) {
            publish(other, "t.stale", "x", 3, Map.of()); // the other instance knows one subscription
            try (Connection c = db.connect();
                    Statement st = c.createStatement()) {
                // no catalog NOTIFY: the other instance cannot learn of the next subscription but by the guard
                st.execute("alter table shardq.destination disable trigger user");
            }
            broker.admin().topics().addSubscriber("t.stale", "second", null);
            publish(other, "t.stale", "y", 3, Map.of());
        }
        try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            assertThat(drain(s.subscribe("t.stale", shared("second", null)), s))
                    .containsExactlyInAnyOrder("y0", "y1", "y2");
            assertThat(drain(s.subscribe("t.stale", shared("first", null)), s)).hasSize(6);
        }
    }

    @Test
    void unsharedDurable_oneConsumerAtATime_unsubscribeRefusedWhileActive() {
        broker.admin().topics().create("t.rules", QueueOptions.DEFAULTS.withShards(1));
        try (BrokerSession s = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE);
                Broker other = Broker.start(
                        db.brokerConfig().set(BrokerProperty.HEARTBEAT_MS, 200).build());
                BrokerSession s2 = other.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
            BrokerConsumer c = s.subscribe("t.rules", durable("app", "orders"));
            assertThatThrownBy(() -> s2.subscribe("t.rules", durable("app", "orders")))
                    .isInstanceOf(ShardQException.class)
                    .hasMessageContaining("active consumer")
                    .extracting(e -> ((ShardQException) e).kind())
                    .isEqualTo(ErrorKind.ILLEGAL_STATE);
            assertThatThrownBy(() -> other.unsubscribe("app", "orders"))
                    .extracting(e -> ((ShardQException) e).kind())
                    .isEqualTo(ErrorKind.ILLEGAL_STATE);
            // shared and unshared may not share a name
            assertThatThrownBy(() -> s2.subscribe(
                            "t.rules", new SubscriptionSpec(Kind.SHARED_DURABLE, "orders", "app", null, false, "c")))
                    .hasMessageContaining("durable subscription");
            c.close();
            publish(broker, "t.rules", "kept", 2, Map.of());
            BrokerConsumer again = s2.subscribe("t.rules", durable("app", "orders"));
            // the shard's lease passes from the first instance (its last consumer closed) to the
            // other: a deadline, not a claim on how fast
            assertThat(Messages.body(again.receive(30_000, false).message())).isEqualTo("kept0");
            again.close();
            other.unsubscribe("app", "orders");
            assertThatThrownBy(() -> other.unsubscribe("app", "orders"))
                    .extracting(e -> ((ShardQException) e).kind())
                    .isEqualTo(ErrorKind.UNKNOWN_DESTINATION);
        }
    }

    @Test
    void changingTheSelector_makesANewSubscription() {
        broker.admin().topics().create("t.change", QueueOptions.DEFAULTS.withShards(1));
        try (BrokerSession s = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
            s.subscribe("t.change", durable("app", "s")).close();
            publish(broker, "t.change", "before", 3, Map.of("k", 1));
            BrokerConsumer c =
                    s.subscribe("t.change", new SubscriptionSpec(Kind.DURABLE, "s", "app", "k = 2", false, "conn-app"));
            publish(broker, "t.change", "after", 2, Map.of("k", 2));
            assertThat(Messages.body(c.receive(2000, false).message())).isEqualTo("after0");
            assertThat(Messages.body(c.receive(2000, false).message())).isEqualTo("after1");
            assertThat(c.receive(200, false)).isNull();
        }
    }

    @Test
    void nonDurable_receivesWhileItExists_andGoesWithItsConsumer() throws Exception {
        broker.admin().topics().create("t.nd", QueueOptions.DEFAULTS.withShards(2));
        try (BrokerSession s = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
            BrokerConsumer c =
                    s.subscribe("t.nd", new SubscriptionSpec(Kind.NON_DURABLE, null, null, null, false, "conn-1"));
            assertThat(broker.admin().topics().subscriptions("t.nd"))
                    .singleElement()
                    .satisfies(st -> {
                        assertThat(st.kind()).isEqualTo("non-durable");
                        assertThat(st.consumers()).isEqualTo(1);
                    });
            publish(broker, "t.nd", "m", 4, Map.of());
            List<String> got = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                got.add(Messages.body(c.receive(2000, false).message()));
            }
            assertThat(got).containsExactlyInAnyOrder("m0", "m1", "m2", "m3");
            c.close();
        }
        assertThat(broker.admin().topics().subscriptions("t.nd")).isEmpty();
        publish(broker, "t.nd", "late", 4, Map.of());
        assertThat(storedRows("t.nd")).isEqualTo(4); // nobody wants the late ones: not stored
    }

    @Test
    void noLocal_leavesOutWhatTheSubscribersOwnConnectionPublished() {
        broker.admin().topics().create("t.local", QueueOptions.DEFAULTS.withShards(1));
        try (BrokerSession mine = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE);
                BrokerSession theirs = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
            mine.origin(null, "conn-mine");
            theirs.origin(null, "conn-theirs");
            BrokerConsumer c = mine.subscribe(
                    "t.local", new SubscriptionSpec(Kind.NON_DURABLE, null, null, null, true, "conn-mine"));
            mine.send("t.local", Messages.text("own"));
            theirs.send("t.local", Messages.text("foreign"));
            assertThat(Messages.body(c.receive(2000, false).message())).isEqualTo("foreign");
            assertThat(c.receive(200, false)).isNull();
        }
    }

    @Test
    void aStoppedSubscription_holdsRetirement_untilThePolicyExpiresIt() throws Exception {
        broker.admin()
                .topics()
                .create("t.hold", QueueOptions.DEFAULTS.withShards(1).withSliceSize(16));
        broker.admin().topics().addSubscriber("t.hold", "busy", null);
        broker.admin().topics().addSubscriber("t.hold", "stopped", null);
        publish(broker, "t.hold", "m", 100, Map.of());
        try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            assertThat(drain(s.subscribe("t.hold", shared("busy", null)), s)).hasSize(100);
        }
        Map<String, SubscriptionStats> stats = byName(broker.admin().topics().subscriptions("t.hold"));
        assertThat(stats.get("stopped").holdsRetirement()).isTrue();
        assertThat(stats.get("stopped").lag()).isEqualTo(100);
        assertThat(stats.get("stopped").oldestAgeMillis()).isNotNull();
        assertThat(stats.get("busy").holdsRetirement()).isFalse();
        // no policy: nothing expires however long we look
        assertThat(stats.get("stopped").expiredSeqs()).isZero();
        broker.admin().topics().alter("t.hold", null, null, null, null, 10L, null);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (byName(broker.admin().topics().subscriptions("t.hold"))
                        .get("stopped")
                        .expiredSeqs()
                == 0) {
            assertThat(System.nanoTime()).as("the leader applies the policy").isLessThan(deadline);
            Thread.sleep(50);
        }
        SubscriptionStats stopped =
                byName(broker.admin().topics().subscriptions("t.hold")).get("stopped");
        assertThat(stopped.expiredSeqs()).isEqualTo(90);
        assertThat(stopped.lag()).isEqualTo(10);
        assertThat(stopped.expiredAt()).isNotNull();
        try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            assertThat(drain(s.subscribe("t.hold", shared("stopped", null)), s))
                    .containsExactly("m90", "m91", "m92", "m93", "m94", "m95", "m96", "m97", "m98", "m99");
        }
    }

    @Test
    void theAgePolicy_expiresOnlyMessagesOlderThanIt() throws Exception {
        db.assumeNotCitus("it disables a trigger, a command Citus refuses on its tables");
        broker.admin().topics().create("t.age", QueueOptions.DEFAULTS.withShards(1));
        broker.admin().topics().addSubscriber("t.age", "slow", null);
        publish(broker, "t.age", "m", 8, Map.of());
        int id = broker.admin().require("t.age").id();
        try (Connection c = db.connect();
                Statement st = c.createStatement()) {
            // the first five were published an hour ago (raw writes are refused: the test lifts that)
            st.execute("alter table shardq.m_" + id + " disable trigger refuse_raw_write");
            st.execute("update shardq.m_" + id + " set enqueued_at = enqueued_at - 3600000 where seq <= 5");
            st.execute("alter table shardq.m_" + id + " enable trigger refuse_raw_write");
        }
        assertThat(byName(broker.admin().topics().subscriptions("t.age"))
                        .get("slow")
                        .oldestAgeMillis())
                .isGreaterThanOrEqualTo(3_600_000L);
        broker.admin().topics().alter("t.age", null, null, null, null, null, 600L);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (byName(broker.admin().topics().subscriptions("t.age"))
                        .get("slow")
                        .expiredSeqs()
                == 0) {
            assertThat(System.nanoTime()).as("the leader applies the policy").isLessThan(deadline);
            Thread.sleep(50);
        }
        assertThat(byName(broker.admin().topics().subscriptions("t.age"))
                        .get("slow")
                        .expiredSeqs())
                .isEqualTo(5);
        try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            assertThat(drain(s.subscribe("t.age", shared("slow", null)), s)).containsExactly("m5", "m6", "m7");
        }
    }

    @Test
    void nonPersistentMessages_reachTheSubscriptionsServedHere_andAreNeverStored() throws Exception {
        broker.admin().topics().create("t.np", QueueOptions.DEFAULTS.withShards(1));
        broker.admin().topics().addSubscriber("t.np", "elsewhere", null); // no consumer in this instance
        try (BrokerSession s = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE);
                BrokerSession p = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
            BrokerConsumer all =
                    s.subscribe("t.np", new SubscriptionSpec(Kind.NON_DURABLE, null, null, null, false, "a"));
            BrokerConsumer some =
                    s.subscribe("t.np", new SubscriptionSpec(Kind.NON_DURABLE, null, null, "k = 1", false, "a"));
            p.send("t.np", Messages.nonPersistent("fleeting"));
            assertThat(Messages.body(all.receive(2000, false).message())).isEqualTo("fleeting");
            assertThat(some.receive(200, false)).isNull(); // its selector does not match
            assertThat(all.receive(200, false)).isNull(); // one copy per subscription
        }
        assertThat(storedRows("t.np")).isZero();
        assertThat(byName(broker.admin().topics().subscriptions("t.np"))
                        .get("elsewhere")
                        .lag())
                .isZero();
    }

    @Test
    void idleConsumersThatDoNotWait_backOffFromPollingTheHeads() {
        broker.admin().topics().create("t.idle", QueueOptions.DEFAULTS.withShards(2));
        try (BrokerSession s = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
            List<BrokerConsumer> idle = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                idle.add(s.subscribe("t.idle", shared("idle" + i, null)));
            }
            for (BrokerConsumer c : idle) {
                assertThat(c.receive(-1, false)).isNull(); // takes the leases
            }
            long before = broker.stats().dequeueSqlReads.sum();
            for (int round = 0; round < 50; round++) {
                for (BrokerConsumer c : idle) {
                    assertThat(c.receive(-1, false)).isNull();
                }
            }
            // 1,000 receiveNoWait calls: each used to read the shard heads; now the reads back off
            // (20 ms doubling) and one read serves every subscription of the topic
            assertThat(broker.stats().dequeueSqlReads.sum() - before).isLessThan(100);
        }
    }

    private static Map<String, SubscriptionStats> byName(List<SubscriptionStats> all) {
        Map<String, SubscriptionStats> m = new HashMap<>();
        all.forEach(s -> m.put(s.name(), s));
        return m;
    }
}
