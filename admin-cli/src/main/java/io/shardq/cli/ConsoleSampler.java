package io.shardq.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.shardq.broker.Admin;
import io.shardq.broker.Broker;
import io.shardq.broker.CacheInfo;
import io.shardq.broker.CacheStats;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.QueueStats;
import io.shardq.broker.ShardQException;
import io.shardq.broker.TopicInfo;
import io.shardq.broker.TopicStats;
import io.shardq.broker.catalog.DestinationInfo;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The console's view of the database: one stats round per refresh interval, whatever the number
 * of browser tabs, published as a {@link Snapshot} of ready JSON documents, and a ring buffer of
 * the rates and backlogs of the last minutes for the charts.
 *
 * <p>Threading: rounds run on one thread ({@code shardq-console-sampler-1}), at a fixed delay, or
 * at once when an admin action asks ({@link #refreshNow}), on the same thread, so two rounds never
 * overlap. HTTP threads only read the volatile snapshot and copy the ring under its lock.
 *
 * <p>Rates are differences of two rounds, as {@code queue stats --rate} computes them from two
 * samples: enqueued = the sum of the shards' next sequence numbers - 1, purged = what {@code
 * shardq.purge_queue} discarded (counted in the database, whoever purged: the console, {@code
 * queue purge}, psql), dequeued = enqueued - backlog - purged, published (topics) = the same sum as
 * enqueued. A purge is therefore its own line, not a spike of dequeues. Consumer counts are the
 * database's ({@code shardq.consumers()}: every live instance's, not this JVM's). A round costs per
 * queue the statements of {@code queue stats} and one for its leases; per topic those of {@code
 * topic stats} and its leases; per cache those of {@code cache stats}; and one each for the
 * destinations, topics, caches, temporary destinations, instances, consumers and purges.
 */
final class ConsoleSampler implements AutoCloseable {
    /** One round's JSON documents, in the shapes of the matching {@code --json} commands. */
    record Snapshot(
            long sampledAtMillis,
            String error,
            ArrayNode queueList,
            Map<String, ObjectNode> queueStats,
            ArrayNode topicList,
            Map<String, ObjectNode> topicStats,
            ArrayNode cacheList,
            Map<String, ObjectNode> cacheStats,
            ArrayNode instances) {
        static final Snapshot EMPTY = new Snapshot(
                0, null, Json.array(), Map.of(), Json.array(), Map.of(), Json.array(), Map.of(), Json.array());

        Snapshot failed(String why, long at) {
            return new Snapshot(
                    at, why, queueList, queueStats, topicList, topicStats, cacheList, cacheStats, instances);
        }
    }

    /** The chart data of one round: per queue {backlog, enqueue/s, dequeue/s}, per topic {retained, publish/s}. */
    record Sample(long atMillis, Map<String, double[]> queues, Map<String, double[]> topics) {}

    private final Broker broker;
    private final Clock clock;
    private final long intervalMillis;
    private final int historySize;
    private final ScheduledExecutorService thread;
    private final ArrayDeque<Sample> ring = new ArrayDeque<>();
    private volatile Snapshot snapshot = Snapshot.EMPTY;

    /** The previous round's counters: {enqueued, dequeued, purged} per queue, {published} per topic. */
    private Map<String, long[]> lastCounters = Map.of();

    private long lastAtMillis;

    ConsoleSampler(Broker broker, Clock clock, long intervalMillis, long historyMillis) {
        this.broker = broker;
        this.clock = clock;
        this.intervalMillis = intervalMillis;
        this.historySize = (int) Math.max(2, historyMillis / intervalMillis);
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "shardq-console-sampler-1");
            t.setDaemon(true);
            return t;
        });
    }

    /** Takes the first round now (so the first page shows numbers), then one per interval. */
    void start() {
        refreshNow();
        thread.scheduleWithFixedDelay(this::round, intervalMillis, intervalMillis, TimeUnit.MILLISECONDS);
    }

    long intervalMillis() {
        return intervalMillis;
    }

    Snapshot snapshot() {
        return snapshot;
    }

    /** A round now, on the sampler's thread; returns when it is published (an admin action's effect shows). */
    void refreshNow() {
        try {
            thread.submit(this::round).get(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // round() records its own failures in the snapshot
        }
    }

    /** The samples of the last minutes, oldest first. */
    List<Sample> history() {
        synchronized (ring) {
            return new ArrayList<>(ring);
        }
    }

    private void round() {
        long at = clock.millis();
        try {
            publish(sample(), at);
        } catch (RuntimeException e) {
            // the database is away or a destination changed under us: keep the last numbers, say why
            snapshot = snapshot.failed(ShardqCommand.oneLine(ShardqCommand.describe(e)), at);
        }
    }

    /** What one round read, before the rates are derived. */
    private record Round(
            List<QueueStats> queues,
            Map<String, List<Admin.Lease>> leases,
            List<TopicStats> topics,
            List<CacheInfo> caches,
            Map<String, CacheStats> cacheStats,
            List<Admin.Instance> instances,
            Map<String, Admin.Temporary> temporary,
            List<Admin.Consumers> consumers,
            Map<String, Admin.Purges> purges) {}

    private Round sample() {
        Admin admin = broker.admin();
        Map<String, Admin.Temporary> temporary = admin.cluster().temporaryDestinations().stream()
                .collect(Collectors.toMap(Admin.Temporary::name, t -> t));
        List<QueueStats> queues = new ArrayList<>();
        Map<String, List<Admin.Lease>> leases = new LinkedHashMap<>();
        for (DestinationInfo d : admin.list()) {
            if (d.isQueue()) {
                QueueStats s = gone(() -> admin.queues().stats(d.name()));
                if (s != null) {
                    queues.add(s);
                    leases.put(d.name(), admin.cluster().leases(d.name()));
                }
            }
        }
        List<TopicStats> topics = new ArrayList<>();
        for (TopicInfo t : admin.topics().list()) {
            TopicStats s = gone(() -> admin.topics().stats(t.name()));
            if (s != null) {
                topics.add(s);
                leases.put(t.name(), admin.cluster().leases(t.name()));
            }
        }
        List<CacheInfo> caches = new ArrayList<>();
        Map<String, CacheStats> cacheStats = new HashMap<>();
        for (CacheInfo c : admin.caches().list()) {
            CacheStats s = gone(() -> admin.caches().stats(c.name()));
            if (s != null) {
                caches.add(c);
                cacheStats.put(c.name(), s);
            }
        }
        Map<String, Admin.Purges> purges =
                admin.queues().purges().stream().collect(Collectors.toMap(Admin.Purges::name, p -> p));
        return new Round(
                queues,
                leases,
                topics,
                caches,
                cacheStats,
                admin.cluster().instances(StatusCommand.ALIVE_SECONDS),
                temporary,
                admin.cluster().consumers(StatusCommand.ALIVE_SECONDS),
                purges);
    }

    /** Null when the destination or cache was dropped between the listing and its stats. */
    private static <T> T gone(java.util.function.Supplier<T> read) {
        try {
            return read.get();
        } catch (ShardQException e) {
            if (e.kind() == ErrorKind.UNKNOWN_DESTINATION || e.kind() == ErrorKind.UNKNOWN_CACHE) {
                return null;
            }
            throw e;
        }
    }

    private void publish(Round r, long at) {
        double seconds = lastAtMillis == 0 ? 0 : (at - lastAtMillis) / 1000.0;
        Map<String, long[]> counters = new HashMap<>();
        Map<String, double[]> queueSample = new LinkedHashMap<>();
        Map<String, double[]> topicSample = new LinkedHashMap<>();

        // consumers by destination, then by subscription ("" for a queue) and by instance
        Map<String, List<Admin.Consumers>> consumers = new HashMap<>();
        Map<Long, Long> consumersByInstance = new HashMap<>();
        for (Admin.Consumers c : r.consumers()) {
            consumers.computeIfAbsent(c.destination(), k -> new ArrayList<>()).add(c);
            consumersByInstance.merge(c.instanceId(), c.consumers(), Long::sum);
        }

        ArrayNode queueList = Json.array();
        Map<String, ObjectNode> queueStats = new LinkedHashMap<>();
        for (QueueStats s : r.queues()) {
            String name = s.destination().name();
            Admin.Purges purges = r.purges().get(name);
            long purgedHere = purges == null ? 0 : purges.purged();
            long[] now = {s.enqueued(), Math.max(0, s.enqueued() - s.backlog() - purgedHere), purgedHere};
            counters.put("q:" + name, now);
            long[] before = lastCounters.get("q:" + name);
            double purgedPerSecond = before == null || seconds <= 0 ? 0 : Math.max(0, now[2] - before[2]) / seconds;
            QueueStatsCommand.Rates rates = before == null || seconds <= 0
                    ? null
                    : new QueueStatsCommand.Rates(
                            Math.max(0, now[0] - before[0]) / seconds,
                            Math.max(0, now[1] - before[1]) / seconds,
                            seconds);
            queueSample.put(name, new double[] {
                s.backlog(),
                rates == null ? 0 : rates.enqueuePerSecond(),
                rates == null ? 0 : rates.dequeuePerSecond(),
                purgedPerSecond
            });
            List<Admin.Lease> leases = r.leases().getOrDefault(name, List.of());
            ObjectNode stats = QueueStatsCommand.json(s, rates, QueueStatsCommand.holderNames(leases));
            if (rates != null) {
                ((ObjectNode) stats.get("rates")).put("purgedPerSecond", purgedPerSecond);
            }
            QueueStatsCommand.purgesJson(stats, purges == null ? new Admin.Purges(name, 0, 0, 0) : purges);
            QueueStatsCommand.consumersJson(stats, consumers.getOrDefault(name, List.of()));
            queueStats.put(name, stats);
            queueList.add(QueueListCommand.json(
                    s.destination(), s.backlog(), r.temporary().get(name)));
        }

        ArrayNode topicList = Json.array();
        Map<String, ObjectNode> topicStats = new LinkedHashMap<>();
        for (TopicStats s : r.topics()) {
            String name = s.topic().name();
            long[] now = {s.published()};
            counters.put("t:" + name, now);
            long[] before = lastCounters.get("t:" + name);
            double publishRate = before == null || seconds <= 0 ? 0 : Math.max(0, now[0] - before[0]) / seconds;
            topicSample.put(name, new double[] {s.topic().retained(), publishRate});
            ObjectNode o = TopicStatsCommand.json(s);
            if (before != null && seconds > 0) {
                ObjectNode rates = o.putObject("rates");
                rates.put("publishPerSecond", publishRate);
                rates.put("sampleSeconds", seconds);
            }
            QueueStatsCommand.consumersJson(o, consumers.getOrDefault(name, List.of()));
            topicStats.put(name, o);
            topicList.add(TopicListCommand.json(s.topic(), r.temporary().get(name)));
        }

        ArrayNode cacheList = Json.array();
        Map<String, ObjectNode> cacheStats = new LinkedHashMap<>();
        for (CacheInfo c : r.caches()) {
            CacheStats s = r.cacheStats().get(c.name());
            cacheList.add(CacheCommand.json(c, s));
            cacheStats.put(c.name(), CacheStatsCommand.json(c, s));
        }

        ArrayNode instances = Json.array();
        Map<Long, List<ObjectNode>> leasesByInstance = leasesByInstance(r.leases());
        for (Admin.Instance i : r.instances()) {
            ObjectNode o = StatusCommand.json(i);
            o.put("consumers", consumersByInstance.getOrDefault(i.id(), 0L));
            ArrayNode held = o.putArray("leases");
            leasesByInstance.getOrDefault(i.id(), List.of()).forEach(held::add);
            instances.add(o);
        }

        snapshot =
                new Snapshot(at, null, queueList, queueStats, topicList, topicStats, cacheList, cacheStats, instances);
        lastCounters = counters;
        lastAtMillis = at;
        synchronized (ring) {
            ring.addLast(new Sample(at, queueSample, topicSample));
            while (ring.size() > historySize) {
                ring.removeFirst();
            }
        }
    }

    /** The live dequeue leases, as {destination, subscription, shard, untilMillis} per holding instance. */
    private static Map<Long, List<ObjectNode>> leasesByInstance(Map<String, List<Admin.Lease>> leases) {
        Map<Long, List<ObjectNode>> out = new HashMap<>();
        Function<Long, List<ObjectNode>> fresh = k -> new ArrayList<>();
        leases.forEach((destination, list) -> {
            for (Admin.Lease l : list) {
                if (!l.live()) {
                    continue;
                }
                ObjectNode o = Json.object();
                o.put("destination", destination);
                o.put("subscription", l.subscription().isEmpty() ? null : l.subscription());
                o.put("shard", l.shardNo());
                o.put("untilMillis", l.untilMillis());
                out.computeIfAbsent(l.instanceId(), fresh).add(o);
            }
        });
        return out;
    }

    @Override
    public void close() {
        thread.shutdownNow();
        try {
            thread.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
