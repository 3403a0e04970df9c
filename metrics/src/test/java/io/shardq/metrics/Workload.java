package io.shardq.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.CacheOptions;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.SubscriptionSpec;
import io.shardq.broker.kv.Codec;
import io.shardq.broker.kv.KvCache;
import io.shardq.broker.shard.BrokerConsumer;
import io.shardq.broker.shard.BrokerSession;
import io.shardq.broker.testing.Messages;

/**
 * A known workload: on queue {@code orders} (one shard, two attempts) send 10, receive and commit
 * 3, roll back 2 twice (2 redeliveries, then 2 dead letters), receive and commit 1 more (backlog
 * 4), plus one message due in an hour (scheduled); on topic {@code prices} publish 5 that
 * subscription {@code fast} consumes and {@code slow} does not (lag 5); on cache {@code rates}
 * 2 puts, 3 hits, 2 misses and one load.
 */
final class Workload {
    static final int SENT = 10;

    private Workload() {}

    static void run(Broker broker) {
        broker.admin()
                .queues()
                .create("orders", QueueOptions.DEFAULTS.withShards(1).withMaxAttempts(2));
        broker.admin().topics().create("prices", QueueOptions.DEFAULTS.withShards(1));
        try (BrokerSession p = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            for (int i = 0; i < SENT; i++) {
                p.send("orders", Messages.text("order " + i));
            }
            p.commit();
            p.send("orders", Messages.text("later", 0, System.currentTimeMillis() + 3_600_000));
            p.commit();
        }
        try (BrokerSession c = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            receive(c, 3);
            c.commit();
            receive(c, 2);
            c.rollback();
            receive(c, 2); // redelivered
            c.rollback(); // second attempt failed: dead letters at the next take
            receive(c, 1);
            c.commit();
        }
        try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            BrokerConsumer fast = s.subscribe("prices", spec("fast"));
            s.subscribe("prices", spec("slow")).close();
            try (BrokerSession p = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                for (int i = 0; i < 5; i++) {
                    p.send("prices", Messages.text("price " + i));
                }
                p.commit();
            }
            for (int i = 0; i < 5; i++) {
                assertThat(fast.receive(5000, false)).isNotNull();
            }
            s.commit();
            fast.close();
        }
        broker.admin().caches().create("rates", CacheOptions.DEFAULTS);
        KvCache<String, String> rates = broker.cache("rates", Codec.utf8(), Codec.utf8());
        rates.put("EUR", "1.08");
        rates.put("GBP", "0.86");
        for (int i = 0; i < 3; i++) {
            assertThat(rates.get(i == 2 ? "GBP" : "EUR")).isNotNull();
        }
        assertThat(rates.get("JPY")).isNull();
        assertThat(rates.get("CHF", k -> "0.94")).isEqualTo("0.94"); // a miss, then a load
    }

    private static SubscriptionSpec spec(String name) {
        return new SubscriptionSpec(SubscriptionSpec.Kind.SHARED_DURABLE, name, null, null, false, "metrics-test");
    }

    private static void receive(BrokerSession c, int n) {
        for (int i = 0; i < n; i++) {
            assertThat(c.receive("orders", 5000, false)).isNotNull();
        }
    }
}
