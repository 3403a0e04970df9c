package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.SubscriptionSpec;
import io.shardq.broker.SubscriptionSpec.Kind;
import io.shardq.broker.testing.ChildJvm;
import io.shardq.broker.testing.ClaimAndHangMain;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A shared durable subscription consumed by four consumers in three instances, one of them a JVM
 * killed with messages in flight: every message reaches exactly one surviving consumer.
 */
@PgTest
@Tag("fault")
class TopicFailureTest {

    @Test
    void aKilledInstancesInFlightMessages_goToTheOtherConsumersOfTheSharedSubscription(TestDatabase db)
            throws Exception {
        var config = db.brokerConfig()
                .set(BrokerProperty.HEARTBEAT_MS, 200)
                .set(BrokerProperty.LEASE_TTL_MS, 2000)
                .build();
        int n = 300;
        try (Broker a = Broker.start(config);
                Broker b = Broker.start(config)) {
            a.admin().topics().create("t.crash", QueueOptions.DEFAULTS.withShards(2));
            a.admin().topics().addSubscriber("t.crash", "workers", null);
            for (int t = 0; t < 2; t++) { // two publishing threads: both shards get messages
                int from = t;
                Thread p = new Thread(() -> {
                    try (BrokerSession s = a.openSession(BrokerSession.Mode.TRANSACTED)) {
                        for (int i = from; i < n; i += 2) {
                            s.send("t.crash", Messages.text("m" + i));
                        }
                        s.commit();
                    }
                });
                p.start();
                p.join();
            }
            try (ChildJvm victim = ChildJvm.start(ClaimAndHangMain.class, db.jdbcUrl(), "t.crash", "40", "workers")) {
                assertThat(victim.awaitLine("CLAIMED")).isEqualTo("CLAIMED 40");
                // the victim's consumer is open while it holds 40 messages in an open transaction
                assertThat(a.admin().topics().subscriptions("t.crash").get(0).consumers())
                        .isEqualTo(1);
            } // killed
            List<String> got = Collections.synchronizedList(new ArrayList<>());
            AtomicBoolean done = new AtomicBoolean();
            List<Thread> consumers = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                Broker owner = i == 0 ? a : b;
                Thread t = new Thread(() -> {
                    try (BrokerSession s = owner.openSession(BrokerSession.Mode.TRANSACTED);
                            BrokerConsumer c = s.subscribe(
                                    "t.crash",
                                    new SubscriptionSpec(Kind.SHARED_DURABLE, "workers", null, null, false, "x"))) {
                        while (!done.get()) {
                            Delivery d = c.receive(200, false);
                            if (d != null) {
                                s.commit();
                                got.add(Messages.body(d.message()));
                            }
                        }
                    }
                });
                t.start();
                consumers.add(t);
            }
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
            while (got.size() < n && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            done.set(true);
            for (Thread t : consumers) {
                t.join(30_000);
            }
            assertThat(got).hasSize(n).doesNotHaveDuplicates();
            assertThat(a.admin().topics().subscriptions("t.crash").get(0).lag()).isZero();
        }
    }
}
