package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.testing.Messages;
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
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;

/**
 * Producers and consumers that keep going through faults (PostgreSQL restarted, backends
 * terminated, connections cut), as a retrying application would, and the accounting that proves
 * nothing was lost or duplicated. Sends and consumer commits whose connection broke during commit
 * have an unknown outcome ({@link ErrorKind#IN_DOUBT}); the accounting allows for that and nothing
 * more: an in-doubt send may be consumed at most once, an in-doubt consumption is either consumed by
 * that commit or delivered again, never both, and at the end the queue is empty.
 */
final class FaultyWorkload {
    final String queue;
    final Set<String> committedSends = ConcurrentHashMap.newKeySet();
    /** When each committed send's commit began (nanoTime), for losses that depend on when it ran. */
    final Map<String, Long> commitStartedNanos = new ConcurrentHashMap<>();

    final Set<String> inDoubtSends = ConcurrentHashMap.newKeySet();
    final Map<String, Integer> consumed = new ConcurrentHashMap<>();
    final Set<String> inDoubtConsumed = ConcurrentHashMap.newKeySet();
    /** Where each committed consumption came from (instance, shard/seq, its transaction's batch), for a failure's message. */
    final Map<String, List<String>> consumedFrom = new ConcurrentHashMap<>();

    final AtomicLong lastConsumerCommitNanos = new AtomicLong();
    /** Each producer's and consumer's last successful commit (nanoTime), by name. */
    final Map<String, Long> workerCommitNanos = new ConcurrentHashMap<>();

    final List<String> unexpected = Collections.synchronizedList(new ArrayList<>());
    private final AtomicBoolean producing = new AtomicBoolean(true);
    private final AtomicBoolean consuming = new AtomicBoolean(true);
    /** While set, consumers receive nothing (their sessions stay open). */
    private final AtomicBoolean consumersPaused = new AtomicBoolean();

    private final List<Future<?>> producers = new ArrayList<>();
    private final List<Future<?>> consumers = new ArrayList<>();
    private ExecutorService pool;

    FaultyWorkload(String queue) {
        this.queue = queue;
    }

    /** One producer and one consumer thread per broker given, round robin, {@code pairs} in all. */
    FaultyWorkload start(int pairs, Broker... brokers) {
        pool = Executors.newFixedThreadPool(2 * pairs);
        for (int p = 0; p < pairs; p++) {
            Broker broker = brokers[p % brokers.length];
            int id = p;
            producers.add(pool.submit(() -> produce(broker, id)));
            consumers.add(pool.submit(() -> consume(broker, id)));
        }
        return this;
    }

    /** Until a consumer committed after now, and some sends committed. */
    void awaitTraffic() {
        long before = lastConsumerCommitNanos.get();
        Awaitility.await()
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> lastConsumerCommitNanos.get() > before && committedSends.size() > 50);
    }

    /** Consumers stop receiving until {@link #resumeConsumers}; producers go on. */
    void pauseConsumers() {
        consumersPaused.set(true);
    }

    void resumeConsumers() {
        consumersPaused.set(false);
    }

    /**
     * Sends committed per second over the next {@code millis} (a measurement window for the
     * report, not a wait for a condition: nothing is asserted on it).
     */
    long sendsPerSecond(long millis) throws InterruptedException {
        int before = committedSends.size();
        long t0 = System.nanoTime();
        Thread.sleep(millis);
        return Math.round((committedSends.size() - before) * 1e9 / (System.nanoTime() - t0));
    }

    /** Until {@code n} more sends have committed than when it was called. */
    void awaitMoreSends(int n) {
        int before = committedSends.size();
        Awaitility.await()
                .atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> committedSends.size() >= before + n);
    }

    /**
     * Milliseconds from {@code sinceNanos} until each producer and consumer committed after it
     * (every client resumed by itself), sorted; waits at most two minutes.
     */
    List<Long> millisUntilEveryWorkerCommits(long sinceNanos) {
        int workers = producers.size() + consumers.size();
        Awaitility.await()
                .atMost(Duration.ofMinutes(2))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> workerCommitNanos.values().stream()
                                .filter(t -> t > sinceNanos)
                                .count()
                        == workers);
        List<Long> ms = new ArrayList<>();
        workerCommitNanos.values().forEach(t -> ms.add(TimeUnit.NANOSECONDS.toMillis(t - sinceNanos)));
        Collections.sort(ms);
        return ms;
    }

    /** Milliseconds from {@code sinceNanos} until a consumer commits after it. */
    long millisUntilConsumerCommit(long sinceNanos) {
        Awaitility.await()
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> lastConsumerCommitNanos.get() > sinceNanos);
        return TimeUnit.NANOSECONDS.toMillis(lastConsumerCommitNanos.get() - sinceNanos);
    }

    private void stopProducers() throws Exception {
        producing.set(false);
        for (Future<?> f : producers) {
            f.get(2, TimeUnit.MINUTES);
        }
    }

    /** Stops the consumers and the pool; no worker met an error a fault does not explain. */
    private void stopConsumers() throws Exception {
        consuming.set(false);
        for (Future<?> f : consumers) {
            f.get(2, TimeUnit.MINUTES);
        }
        pool.shutdown();
        assertThat(unexpected).isEmpty();
    }

    /** Stops producing, lets the consumers empty the queue, stops them, and checks the accounting. */
    void finishAndVerify(Broker admin) throws Exception {
        stopProducers();
        try {
            Awaitility.await()
                    .atMost(Duration.ofMinutes(2))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> admin.admin().queues().backlog(queue) == 0 && everyCommittedSendAccountedFor());
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            List<String> missing = new ArrayList<>();
            for (String id : committedSends) {
                if (!consumed.containsKey(id) && !inDoubtConsumed.contains(id)) {
                    missing.add(id);
                }
            }
            Collections.sort(missing);
            throw new AssertionError(
                    "not drained: backlog " + admin.admin().queues().backlog(queue) + ", "
                            + missing.size() + " committed sends neither consumed nor in doubt, e.g. "
                            + missing.subList(0, Math.min(20, missing.size())) + "; " + summary() + "; stats "
                            + admin.admin().queues().stats(queue) + "; unexpected " + unexpected,
                    e);
        }
        stopConsumers();
        List<String> twice = new ArrayList<>();
        consumed.forEach((id, n) -> {
            if (n != 1) {
                twice.add(id + " x" + n + " " + consumedFrom.get(id)
                        + (inDoubtSends.contains(id) ? " (send in doubt)" : "")
                        + (inDoubtConsumed.contains(id) ? " (a consumer commit of it in doubt)" : ""));
            }
        });
        Collections.sort(twice);
        assertThat(twice).as("consumed more than once; " + summary()).isEmpty();
        for (String id : consumed.keySet()) {
            assertThat(committedSends.contains(id) || inDoubtSends.contains(id))
                    .as("%s was consumed but never sent", id)
                    .isTrue();
        }
        assertThat(everyCommittedSendAccountedFor()).isTrue();
        assertThat(committedSends).hasSizeGreaterThan(100);
    }

    /** What a failover to an asynchronous standby lost: acknowledged sends gone, acknowledged consumptions undone. */
    record Loss(int sendsCommitted, int sendsLost, int consumedTwice, List<String> lostIds) {}

    /**
     * For a fault that may lose acknowledged work (a failover to an asynchronous standby): stops
     * producing, lets the consumers empty the queue, stops them, and counts what was lost instead
     * of asserting that nothing was: committed sends never consumed, and messages consumed twice
     * (a consumption acknowledged by the old primary and not replicated, delivered again). Still
     * asserts what no loss explains: nothing consumed that was never sent, no unexpected error.
     */
    Loss finishAndCount(Broker admin) throws Exception {
        stopProducers();
        try {
            Awaitility.await()
                    .atMost(Duration.ofMinutes(2))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> admin.admin().queues().backlog(queue) == 0);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError(
                    "not drained: backlog " + admin.admin().queues().backlog(queue) + "; " + summary() + "; stats "
                            + admin.admin().queues().stats(queue),
                    e);
        }
        stopConsumers();
        for (String id : consumed.keySet()) {
            assertThat(committedSends.contains(id) || inDoubtSends.contains(id))
                    .as("%s was consumed but never sent", id)
                    .isTrue();
        }
        List<String> lost = new ArrayList<>();
        for (String id : committedSends) {
            if (!consumed.containsKey(id) && !inDoubtConsumed.contains(id)) {
                lost.add(id);
            }
        }
        int twice = (int) consumed.values().stream().filter(n -> n > 1).count();
        return new Loss(committedSends.size(), lost.size(), twice, lost);
    }

    String summary() {
        return committedSends.size() + " sends committed, " + inDoubtSends.size() + " in doubt, " + consumed.size()
                + " consumed, " + inDoubtConsumed.size() + " consumer commits in doubt";
    }

    /** Each committed send was consumed, or its consuming commit was in doubt (and took effect). */
    private boolean everyCommittedSendAccountedFor() {
        for (String id : committedSends) {
            if (!consumed.containsKey(id) && !inDoubtConsumed.contains(id)) {
                return false;
            }
        }
        return true;
    }

    private Void produce(Broker broker, int producer) {
        int tx = 0;
        while (producing.get()) {
            List<String> batch = new ArrayList<>();
            try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                while (producing.get()) {
                    batch.clear();
                    for (int i = 0; i < 5; i++) {
                        String id = producer + ":" + tx + ":" + i;
                        s.send(queue, Messages.text(id));
                        batch.add(id);
                    }
                    tx++;
                    long started = System.nanoTime();
                    s.commit();
                    for (String id : batch) {
                        commitStartedNanos.put(id, started);
                    }
                    committedSends.addAll(batch);
                    workerCommitNanos.put("producer " + producer, System.nanoTime());
                    batch.clear();
                }
            } catch (ShardQException e) {
                if (inDoubt(e)) {
                    inDoubtSends.addAll(batch);
                } else if (!expectedDuringRestart(e)) {
                    unexpected.add("producer: " + e);
                }
                pause();
            }
        }
        return null;
    }

    private Void consume(Broker broker, int consumer) {
        while (consuming.get()) {
            List<String> batch = new ArrayList<>();
            try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                while (consuming.get()) {
                    batch.clear();
                    if (consumersPaused.get()) {
                        pause();
                        continue;
                    }
                    List<String> from = new ArrayList<>();
                    Delivery d = s.receive(queue, 100, false);
                    while (d != null) {
                        batch.add(Messages.body(d.message()));
                        from.add(d.shard() + "/" + d.seq());
                        d = batch.size() < 5 ? s.receive(queue, -1, false) : null;
                    }
                    if (batch.isEmpty()) {
                        continue;
                    }
                    s.commit();
                    for (int k = 0; k < batch.size(); k++) {
                        consumed.merge(batch.get(k), 1, Integer::sum);
                        consumedFrom
                                .computeIfAbsent(batch.get(k), x -> Collections.synchronizedList(new ArrayList<>()))
                                .add("instance " + broker.instanceId() + " " + from.get(k) + " in " + from);
                    }
                    batch.clear();
                    lastConsumerCommitNanos.set(System.nanoTime());
                    workerCommitNanos.put("consumer " + consumer, System.nanoTime());
                }
            } catch (ShardQException e) {
                if (inDoubt(e)) {
                    inDoubtConsumed.addAll(batch);
                } else if (!expectedDuringRestart(e)) {
                    unexpected.add("consumer: " + e);
                }
                pause();
            }
        }
        return null;
    }

    private static boolean inDoubt(ShardQException e) {
        return e.kind() == ErrorKind.IN_DOUBT;
    }

    /** What an application sees while PostgreSQL is down: connection errors, rollbacks, a full pool. */
    private static boolean expectedDuringRestart(ShardQException e) {
        return e.kind() == ErrorKind.CONNECTION
                || e.kind() == ErrorKind.ROLLED_BACK
                || e.kind() == ErrorKind.RESOURCE_EXHAUSTED
                || e.kind() == ErrorKind.DATABASE; // "terminating connection due to administrator command" and kin
    }

    private static void pause() {
        try {
            Thread.sleep(50); // back-off of a retrying client, not a wait for a condition
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
