package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.ShardQException;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.SameElements;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

/**
 * P producers and C consumers in transacted sessions, N messages in all, B per commit. Records
 * what was committed on both sides so tests can assert exact accounting and per-producer order.
 * Producers and consumers pick their broker with a function, so a test can spread them over
 * instances and close one mid-run (sessions that fail then just stop).
 */
final class Workload {
    final String queue;
    final int producers;
    final int consumers;
    final int messages;
    final int batch;
    /** producer -> message numbers in commit order. */
    final Map<Integer, List<Integer>> sent = new ConcurrentHashMap<>();
    /** "p:n" -> how many times a committed receive saw it. */
    final Map<String, Integer> received = new ConcurrentHashMap<>();
    /** producer -> numbers in the order consumers committed them, per consumer session. */
    final List<List<String>> receivedByConsumer = Collections.synchronizedList(new ArrayList<>());

    final AtomicLong committedReceives = new AtomicLong();
    final AtomicInteger failedProducers = new AtomicInteger();
    final AtomicInteger failedConsumers = new AtomicInteger();
    /** Why sessions failed, for assertion messages. */
    final List<String> failures = Collections.synchronizedList(new ArrayList<>());
    /** Consumer commits the broker rolled back (their messages were delivered again). */
    final AtomicInteger rolledBackCommits = new AtomicInteger();

    /**
     * Bounds how far producers may run ahead of consumers (null: unbounded). A producer takes a
     * permit per message before it sends; a consumer's commit gives them back. A test about what
     * happens when consumers keep up uses it, so that on a busy machine the outcome does not depend
     * on which side the scheduler favoured.
     */
    private java.util.concurrent.Semaphore ahead;

    Workload maxAhead(int messages) {
        this.ahead = new java.util.concurrent.Semaphore(messages);
        return this;
    }

    Workload(String queue, int producers, int consumers, int messages, int batch) {
        this.queue = queue;
        this.producers = producers;
        this.consumers = consumers;
        this.messages = messages;
        this.batch = batch;
    }

    void run(IntFunction<Broker> producerBroker, IntFunction<Broker> consumerBroker, Runnable midRun) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(producers + consumers);
        List<Future<?>> producing = new ArrayList<>();
        int perProducer = messages / producers;
        AtomicLong totalSent = new AtomicLong();
        for (int p = 0; p < producers; p++) {
            int producer = p;
            producing.add(pool.submit(() -> {
                List<Integer> mine = Collections.synchronizedList(new ArrayList<>());
                sent.put(producer, mine);
                try (BrokerSession s = producerBroker.apply(producer).openSession(BrokerSession.Mode.TRANSACTED)) {
                    List<Integer> tx = new ArrayList<>();
                    for (int n = 0; n < perProducer; n++) {
                        if (ahead != null) {
                            ahead.acquire();
                        }
                        s.send(queue, Messages.text(producer + ":" + n));
                        tx.add(n);
                        if (tx.size() == batch || n == perProducer - 1) {
                            s.commit();
                            mine.addAll(tx);
                            totalSent.addAndGet(tx.size());
                            tx.clear();
                        }
                    }
                } catch (ShardQException e) {
                    failedProducers.incrementAndGet();
                    failures.add("producer " + producer + ": " + e);
                }
                return null;
            }));
        }
        List<Future<?>> consuming = new ArrayList<>();
        AtomicInteger producersDone = new AtomicInteger();
        for (int c = 0; c < consumers; c++) {
            int consumer = c;
            consuming.add(pool.submit(() -> {
                List<String> order = Collections.synchronizedList(new ArrayList<>());
                receivedByConsumer.add(order);
                try (BrokerSession s = consumerBroker.apply(consumer).openSession(BrokerSession.Mode.TRANSACTED)) {
                    List<String> tx = new ArrayList<>();
                    while (true) {
                        Delivery d = s.receive(queue, 200, false);
                        if (d != null) {
                            tx.add(Messages.body(d.message()));
                        }
                        boolean idle = d == null;
                        if (tx.size() == batch || (idle && !tx.isEmpty())) {
                            try {
                                s.commit();
                            } catch (ShardQException e) {
                                if (e.kind() != io.shardq.broker.ErrorKind.ROLLED_BACK) {
                                    throw e;
                                }
                                // as a JMS application would: a commit the broker rolled back (a lease
                                // that moved to the other instance) is delivered again; go on receiving
                                rolledBackCommits.incrementAndGet();
                                tx.clear();
                                continue;
                            }
                            for (String id : tx) {
                                received.merge(id, 1, Integer::sum);
                            }
                            order.addAll(tx);
                            committedReceives.addAndGet(tx.size());
                            if (ahead != null) {
                                ahead.release(tx.size());
                            }
                            tx.clear();
                        }
                        if (idle && producersDone.get() == producers && committedReceives.get() >= totalSent.get()) {
                            return null;
                        }
                    }
                } catch (ShardQException e) {
                    failedConsumers.incrementAndGet();
                    failures.add("consumer " + consumer + ": " + e);
                }
                return null;
            }));
        }
        if (midRun != null) {
            midRun.run();
        }
        for (Future<?> f : producing) {
            f.get(10, TimeUnit.MINUTES);
            producersDone.incrementAndGet();
        }
        for (Future<?> f : consuming) {
            f.get(10, TimeUnit.MINUTES);
        }
        pool.shutdown();
    }

    /** Every committed send received exactly once; nothing else received. */
    void assertExactlyOnce() {
        if (!failures.isEmpty()) {
            System.out.println("Workload: sessions that failed: " + failures);
        }
        List<String> expected = new ArrayList<>();
        sent.forEach((p, ns) -> ns.forEach(n -> expected.add(p + ":" + n)));
        SameElements.assertCounts("committed receives of committed sends", received, expected);
    }

    /** Within one consumer's committed stream, each producer's messages appear in send order. */
    void assertPerProducerOrder() {
        for (List<String> stream : receivedByConsumer) {
            Map<String, Integer> last = new HashMap<>();
            for (String id : stream) {
                String[] parts = id.split(":");
                int n = Integer.parseInt(parts[1]);
                Integer prev = last.put(parts[0], n);
                assertThat(prev == null || prev < n)
                        .as("producer %s: %s after %s", parts[0], n, prev)
                        .isTrue();
            }
        }
    }
}
