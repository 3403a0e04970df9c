package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Leases are balanced by backlog, not only by count: two shards carry all the messages, and the
 * instance that holds both while the other holds the two empty ones gives one of them away, so
 * both instances consume. (Before, with its fair share of empty shards the second instance was not
 * "hungry", and one instance did all the work: the demo's known limit.)
 */
@PgTest
class LeaseBalancerTest {

    @Test
    void anIdleInstance_getsAShardWithBacklog_fromTheOneHoldingBothBusyShards(TestDatabase db) throws Exception {
        try (Broker a = Broker.start(config(db));
                Broker b = Broker.start(config(db))) {
            a.admin().queues().create("busy.q", QueueOptions.DEFAULTS.withShards(4));
            // a backlog on two shards only: two producing threads of one instance, one shard each
            List<Thread> producers = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                int thread = t;
                producers.add(new Thread(() -> {
                    try (BrokerSession p = a.openSession(BrokerSession.Mode.TRANSACTED)) {
                        for (int i = 0; i < 3000; i++) {
                            p.send("busy.q", Messages.text("m" + thread + "-" + i));
                            if (i % 500 == 499) {
                                p.commit();
                            }
                        }
                        p.commit();
                    }
                }));
            }
            producers.forEach(Thread::start);
            for (Thread t : producers) {
                t.join();
            }
            List<Integer> busy = new ArrayList<>();
            for (var s : a.admin().queues().shards("busy.q")) {
                if (s.backlog() > 0) {
                    busy.add(s.shardNo());
                }
            }
            assertThat(busy).as("shards with a backlog").hasSize(2);
            Set<String> consumed = ConcurrentHashMap.newKeySet();
            AtomicBoolean stop = new AtomicBoolean();
            Thread ca = consumer(a, consumed, stop);
            Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> leasedBy(db, a.instanceId()).size() == 4);
            Thread cb = consumer(b, consumed, stop);
            try {
                Awaitility.await()
                        .atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(50))
                        .until(() -> {
                            List<Integer> ofB = leasedBy(db, b.instanceId());
                            List<Integer> ofA = leasedBy(db, a.instanceId());
                            return busy.stream().anyMatch(ofB::contains)
                                    && busy.stream().anyMatch(ofA::contains);
                        });
            } finally {
                stop.set(true);
                ca.join(30_000);
                cb.join(30_000);
            }
        }
    }

    private static Thread consumer(Broker broker, Set<String> consumed, AtomicBoolean stop) {
        Thread t = new Thread(() -> {
            try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                while (!stop.get()) {
                    Delivery d = s.receive("busy.q", 100, false);
                    if (d != null) {
                        assertThat(consumed.add(Messages.body(d.message()))).isTrue();
                        s.commit();
                        Thread.sleep(2); // a consumer slower than the backlog: the work lasts
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static BrokerConfig config(TestDatabase db) {
        return db.brokerConfig()
                .set(BrokerProperty.HEARTBEAT_MS, 200)
                .set(BrokerProperty.LEASE_TTL_MS, 2000)
                .build();
    }

    /** Shards whose live lease {@code instance} holds. */
    static List<Integer> leasedBy(TestDatabase db, long instance) throws Exception {
        try (Connection c = db.connect();
                PreparedStatement ps = c.prepareStatement("SELECT shard_no FROM shardq.cursor"
                        + " WHERE lease_instance = ? AND lease_until > now() ORDER BY 1")) {
            ps.setLong(1, instance);
            List<Integer> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getInt(1));
                }
            }
            return out;
        }
    }
}
