package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.SubscriptionSpec;
import io.shardq.broker.SubscriptionSpec.Kind;
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
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Topics at the sizes issue 10 names: 10 subscriptions × 100,000 messages, and 1,000 subscriptions. */
@PgTest
@Tag("long")
class TopicScaleTest {

    static long count(TestDatabase db, String sql) throws SQLException {
        try (Connection c = db.connect();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void tenDurableSubscriptions_fourPublishers_100kMessages_eachExactlyOnceInPublisherOrder(TestDatabase db)
            throws Exception {
        int publishers = 4;
        int perPublisher = 25_000;
        int subs = 10;
        try (Broker broker = Broker.start(db.brokerConfig()
                .set(BrokerProperty.HEARTBEAT_MS, 200)
                .set(BrokerProperty.POOL_SIZE, 40)
                .build())) {
            broker.admin().topics().create("scale.ten", QueueOptions.DEFAULTS.withShards(4));
            for (int i = 0; i < subs; i++) {
                broker.admin().topics().addSubscriber("scale.ten", "s" + i, null);
            }
            List<Thread> threads = new ArrayList<>();
            for (int p = 0; p < publishers; p++) {
                int pub = p;
                threads.add(new Thread(() -> {
                    try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                        for (int i = 0; i < perPublisher; i++) {
                            s.send("scale.ten", Messages.text(pub + ":" + i));
                            if (i % 100 == 99) {
                                s.commit();
                            }
                        }
                        s.commit();
                    }
                }));
            }
            threads.forEach(Thread::start);
            for (Thread t : threads) {
                t.join();
            }
            int id = broker.admin().require("scale.ten").id();
            // stored once: one row per message, whatever the number of subscriptions
            assertThat(count(db, "select count(*) from shardq.m_" + id)).isEqualTo((long) publishers * perPublisher);
            Map<String, String> failures = new ConcurrentHashMap<>();
            List<Thread> consumers = new ArrayList<>();
            for (int i = 0; i < subs; i++) {
                String name = "s" + i;
                consumers.add(new Thread(() -> {
                    int[] last = new int[publishers];
                    java.util.Arrays.fill(last, -1);
                    long received = 0;
                    try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED);
                            BrokerConsumer c = s.subscribe(
                                    "scale.ten",
                                    new SubscriptionSpec(Kind.SHARED_DURABLE, name, null, null, false, "c"))) {
                        Delivery d;
                        while (received < (long) publishers * perPublisher && (d = c.receive(10_000, false)) != null) {
                            String[] parts = Messages.body(d.message()).split(":");
                            int pub = Integer.parseInt(parts[0]);
                            int seq = Integer.parseInt(parts[1]);
                            if (seq != last[pub] + 1) {
                                failures.putIfAbsent(name, "publisher " + pub + ": " + seq + " after " + last[pub]);
                            }
                            last[pub] = seq;
                            received++;
                            if (received % 100 == 0) {
                                s.commit();
                            }
                        }
                        s.commit();
                        assertThat(c.receive(-1, false)).isNull();
                    }
                    if (received != (long) publishers * perPublisher) {
                        failures.putIfAbsent(name, "received " + received);
                    }
                }));
            }
            consumers.forEach(Thread::start);
            for (Thread t : consumers) {
                t.join();
            }
            assertThat(failures).isEmpty();
            broker.admin().topics().subscriptions("scale.ten").forEach(st -> assertThat(st.lag())
                    .isZero());
        }
    }

    @Test
    void aThousandSubscriptions_storagePerMessage_isAFixedCostPlusTheBitmap(TestDatabase db) throws Exception {
        int subs = 1000;
        int groups = 100; // subscription i wants group i % 100: each message goes to 10 subscriptions
        int messages = 10_000;
        try (Broker broker = Broker.start(
                db.brokerConfig().set(BrokerProperty.HEARTBEAT_MS, 200).build())) {
            broker.admin().topics().create("scale.k", QueueOptions.DEFAULTS.withShards(2));
            broker.admin().queues().create("scale.q", QueueOptions.DEFAULTS.withShards(2));
            for (int i = 0; i < subs; i++) {
                broker.admin().topics().addSubscriber("scale.k", "k" + i, "g = " + (i % groups));
            }
            long started = System.nanoTime();
            try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                for (int i = 0; i < messages; i++) {
                    byte[] body = new byte[512];
                    s.send("scale.k", Messages.bytes("ID:" + i, Map.of("g", i % groups), body));
                    s.send("scale.q", Messages.bytes("ID:" + i, Map.of("g", i % groups), body));
                    if (i % 100 == 99) {
                        s.commit();
                    }
                }
                s.commit();
            }
            long publishNanos = System.nanoTime() - started;
            int topic = broker.admin().require("scale.k").id();
            int queue = broker.admin().require("scale.q").id();
            double topicRow =
                    count(db, "select sum(pg_column_size(m.*)) from shardq.m_" + topic + " m") / (double) messages;
            double queueRow =
                    count(db, "select sum(pg_column_size(m.*)) from shardq.m_" + queue + " m") / (double) messages;
            long maxBitmap = count(db, "select max(octet_length(subscribers)) from shardq.m_" + topic);
            double avgBitmap =
                    count(db, "select sum(octet_length(subscribers)) from shardq.m_" + topic) / (double) messages;
            System.out.printf(
                    "1,000 subscriptions: %.1f bytes per stored topic row (queue row %.1f, bitmap avg %.1f, max %d);"
                            + " publishing %d messages to the topic and the queue took %d ms%n",
                    topicRow, queueRow, avgBitmap, maxBitmap, messages, publishNanos / 1_000_000);
            assertThat(maxBitmap).isLessThanOrEqualTo(125);
            // a small fixed cost plus the bitmap: its length header and alignment, nothing per subscription
            assertThat(topicRow - queueRow).isLessThanOrEqualTo(avgBitmap + 8);
            // deliver: every subscription gets its 100 messages, exactly once
            Map<String, Integer> perSub = new HashMap<>();
            try (BrokerSession s = broker.openSession(BrokerSession.Mode.CLIENT_ACKNOWLEDGE)) {
                for (int i = 0; i < subs; i++) {
                    try (BrokerConsumer c = s.subscribe(
                            "scale.k", new SubscriptionSpec(Kind.SHARED_DURABLE, "k" + i, null, null, false, "c"))) {
                        int got = 0;
                        for (int k = 0; k < messages / groups; k++) {
                            Delivery d = c.receive(10_000, false);
                            assertThat(d)
                                    .as("subscription k%s message %s", i, k)
                                    .isNotNull();
                            assertThat(d.message().properties().get("g")).isEqualTo(i % groups);
                            got++;
                        }
                        s.acknowledge();
                        assertThat(c.receive(-1, false)).isNull();
                        perSub.put("k" + i, got);
                    }
                }
            }
            assertThat(perSub).hasSize(subs).allSatisfy((k, v) -> assertThat(v).isEqualTo(messages / groups));
        }
    }
}
