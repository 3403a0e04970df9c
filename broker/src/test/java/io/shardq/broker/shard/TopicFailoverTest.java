package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.ShardQException;
import io.shardq.broker.SubscriptionSpec;
import io.shardq.broker.SubscriptionSpec.Kind;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.ReplicatedPostgres;
import io.shardq.broker.testing.ReplicatedPostgres.Replication;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A topic with two durable subscriptions, each consumed in its own instance, across two failovers
 * to a synchronous standby: every committed publish reaches each subscription exactly once (a
 * publish in doubt at most once, a consumption in doubt either consumed or delivered again), and
 * nothing is delivered that was not published.
 */
@Tag("fault")
class TopicFailoverTest {
    static final String TOPIC = "failover.t";

    private final Set<String> committed = ConcurrentHashMap.newKeySet();
    private final Set<String> inDoubt = ConcurrentHashMap.newKeySet();
    private final Map<String, Map<String, Integer>> consumed = new ConcurrentHashMap<>();
    private final Map<String, Set<String>> consumedInDoubt = new ConcurrentHashMap<>();
    private final List<String> unexpected = Collections.synchronizedList(new ArrayList<>());
    private final AtomicBoolean publishing = new AtomicBoolean(true);
    private final AtomicBoolean consuming = new AtomicBoolean(true);

    @Test
    void durableSubscriptions_acrossFailovers_getEveryCommittedPublishOnce() throws Exception {
        try (ReplicatedPostgres pg = ReplicatedPostgres.start("shardq-topic-failover", Replication.SYNCHRONOUS)) {
            BrokerConfig config = BrokerConfig.builder()
                    .isolated()
                    .set(BrokerProperty.JDBC_URL, pg.jdbcUrl())
                    .set(BrokerProperty.JDBC_USER, "postgres")
                    .set(BrokerProperty.HEARTBEAT_MS, 200)
                    .set(BrokerProperty.LEASE_TTL_MS, 3000)
                    .set(BrokerProperty.POOL_TIMEOUT_MS, 2000)
                    .build();
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try (Broker a = Broker.start(config);
                    Broker b = Broker.start(config)) {
                a.admin().topics().create(TOPIC, QueueOptions.DEFAULTS.withShards(2));
                for (String client : List.of("ca", "cb")) {
                    consumed.put(client, new ConcurrentHashMap<>());
                    consumedInDoubt.put(client, ConcurrentHashMap.newKeySet());
                }
                // the subscriptions exist before the first publish
                for (Broker x : List.of(a, b)) {
                    String client = x == a ? "ca" : "cb";
                    try (BrokerSession s = x.openSession(BrokerSession.Mode.TRANSACTED)) {
                        s.subscribe(TOPIC, durable(client)).close();
                    }
                }
                List<Future<?>> consumers =
                        List.of(pool.submit(() -> consume(a, "ca")), pool.submit(() -> consume(b, "cb")));
                List<Future<?>> publishers =
                        List.of(pool.submit(() -> publish(a, 0)), pool.submit(() -> publish(b, 1)));
                for (int f = 0; f < 2; f++) {
                    awaitMore(500);
                    pg.failover();
                    awaitMore(500);
                    pg.rebuildStandby();
                }
                publishing.set(false);
                for (Future<?> p : publishers) {
                    p.get(2, TimeUnit.MINUTES);
                }
                try {
                    Awaitility.await()
                            .atMost(Duration.ofMinutes(2))
                            .pollInterval(Duration.ofMillis(200))
                            .until(() -> everyCommittedPublishConsumed("ca") && everyCommittedPublishConsumed("cb"));
                } catch (org.awaitility.core.ConditionTimeoutException e) {
                    throw new AssertionError(
                            "not every committed publish consumed: " + committed.size() + " committed, "
                                    + inDoubt.size() + " in doubt, consumed "
                                    + consumed.get("ca").size() + " / "
                                    + consumed.get("cb").size() + ", missing e.g. " + missing("ca") + " / "
                                    + missing("cb") + "; subscriptions "
                                    + a.admin().topics().subscriptions(TOPIC)
                                    + "; unexpected " + unexpected,
                            e);
                }
                consuming.set(false);
                for (Future<?> c : consumers) {
                    c.get(2, TimeUnit.MINUTES);
                }
            } finally {
                pool.shutdownNow();
            }
            assertThat(unexpected).isEmpty();
            for (String client : List.of("ca", "cb")) {
                Map<String, Integer> got = consumed.get(client);
                assertThat(got.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey))
                        .as("delivered twice to %s", client)
                        .isEmpty();
                assertThat(got.keySet().stream().filter(id -> !committed.contains(id) && !inDoubt.contains(id)))
                        .as("delivered to %s but never published", client)
                        .isEmpty();
            }
            assertThat(committed).hasSizeGreaterThan(1000);
            System.out.printf(
                    "TopicFailoverTest: 2 failovers, %d publishes committed, %d in doubt; consumed %d and %d%n",
                    committed.size(),
                    inDoubt.size(),
                    consumed.get("ca").size(),
                    consumed.get("cb").size());
        }
    }

    private static SubscriptionSpec durable(String client) {
        return new SubscriptionSpec(Kind.DURABLE, "sub", client, null, false, "conn-" + client);
    }

    private boolean everyCommittedPublishConsumed(String client) {
        for (String id : committed) {
            if (!consumed.get(client).containsKey(id)
                    && !consumedInDoubt.get(client).contains(id)) {
                return false;
            }
        }
        return true;
    }

    private List<String> missing(String client) {
        List<String> m = new ArrayList<>();
        for (String id : committed) {
            if (!consumed.get(client).containsKey(id)
                    && !consumedInDoubt.get(client).contains(id)) {
                m.add(id);
            }
        }
        Collections.sort(m);
        return m.subList(0, Math.min(10, m.size()));
    }

    private void awaitMore(int n) {
        int before = committed.size();
        Awaitility.await()
                .atMost(Duration.ofMinutes(2))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> committed.size() >= before + n);
    }

    private Void publish(Broker broker, int producer) {
        int tx = 0;
        while (publishing.get()) {
            List<String> batch = new ArrayList<>();
            try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                while (publishing.get()) {
                    batch.clear();
                    for (int i = 0; i < 5; i++) {
                        String id = producer + ":" + tx + ":" + i;
                        s.send(TOPIC, Messages.text(id));
                        batch.add(id);
                    }
                    tx++;
                    s.commit();
                    committed.addAll(batch);
                    batch.clear();
                }
            } catch (ShardQException e) {
                if (e.kind() == ErrorKind.IN_DOUBT) {
                    inDoubt.addAll(batch);
                } else if (!expected(e)) {
                    unexpected.add("publisher: " + e);
                }
                pause();
            }
        }
        return null;
    }

    private Void consume(Broker broker, String client) {
        while (consuming.get()) {
            List<String> batch = new ArrayList<>();
            try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                BrokerConsumer c = s.subscribe(TOPIC, durable(client));
                while (consuming.get()) {
                    batch.clear();
                    Delivery d = c.receive(100, false);
                    while (d != null) {
                        batch.add(Messages.body(d.message()));
                        d = batch.size() < 5 ? c.receive(-1, false) : null;
                    }
                    if (batch.isEmpty()) {
                        continue;
                    }
                    s.commit();
                    for (String id : batch) {
                        consumed.get(client).merge(id, 1, Integer::sum);
                    }
                    batch.clear();
                }
            } catch (ShardQException e) {
                if (e.kind() == ErrorKind.IN_DOUBT) {
                    consumedInDoubt.get(client).addAll(batch);
                } else if (!expected(e)) {
                    unexpected.add("consumer " + client + ": " + e);
                }
                pause();
            }
        }
        return null;
    }

    /** What an application sees while PostgreSQL fails over: connection errors, rollbacks, a full pool. */
    private static boolean expected(ShardQException e) {
        return e.kind() == ErrorKind.CONNECTION
                || e.kind() == ErrorKind.ROLLED_BACK
                || e.kind() == ErrorKind.RESOURCE_EXHAUSTED
                || e.kind() == ErrorKind.DATABASE;
    }

    private static void pause() {
        try {
            Thread.sleep(50); // back-off of a retrying client, not a wait for a condition
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
