package io.shardq.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.shardq.broker.Broker;
import io.shardq.broker.CacheInfo;
import io.shardq.broker.CacheStats;
import io.shardq.broker.DestinationCounters;
import io.shardq.broker.SubscriptionStats;
import io.shardq.broker.TopicStats;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Micrometer meters of one running ShardQ {@link Broker}: per destination, per topic
 * subscription, per instance and per key/value cache. The meter names and their meaning are
 * listed in {@code docs/design/operations.md}, "Metrics and JMX".
 *
 * <pre>{@code
 * ShardQMetrics metrics = new ShardQMetrics(factory.broker());
 * metrics.bindTo(registry);   // e.g. Spring Boot's PrometheusMeterRegistry
 * ...
 * metrics.close();            // stops the refresh and removes the meters
 * }</pre>
 *
 * <p><b>Figures and cost.</b> Counters of this instance (enqueued, dequeued, redelivered, dead
 * letters, expired, cache gets, commit times) are read from memory at every scrape. Figures that
 * need SQL (backlog, oldest age, scheduled, subscription lag, key/value evictions and sizes) come
 * from one snapshot of the {@code Admin} stats read at most once per snapshot interval (5 s by
 * default) whatever the number of meters and scrapes; between reads every gauge serves the same
 * snapshot.
 *
 * <p><b>Destinations come and go.</b> Meters exist for the destinations, subscriptions and caches
 * of the latest snapshot: {@link #bindTo} registers them, and a refresh (a daemon thread every
 * snapshot interval, at least once a second, or an explicit {@link #refresh()}) registers the
 * meters of new ones and removes those of dropped ones from every registry this binder is bound
 * to. Thread-safe. Two brokers in one registry need distinguishing {@code tags}.
 */
public final class ShardQMetrics implements MeterBinder, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ShardQMetrics.class);

    /** How long one snapshot of the SQL-read figures serves, unless told otherwise. */
    public static final Duration DEFAULT_SNAPSHOT_INTERVAL = Duration.ofSeconds(5);

    private final Broker broker;
    private final Snapshots snapshots;
    private final Figures figures;
    private final Tags tags;
    private final Duration interval;
    private final boolean scheduled;
    /** Per registry: the meters of each destination, subscription and cache, by key. */
    private final Map<MeterRegistry, Map<String, List<Meter>>> bound = new LinkedHashMap<>();
    /** Per registry: the instance's own meters. */
    private final Map<MeterRegistry, List<Meter>> instanceMeters = new HashMap<>();

    private ScheduledExecutorService refresher;
    private boolean closed;

    /** Meters of {@code broker} with a 5 s snapshot and no extra tags. */
    public ShardQMetrics(Broker broker) {
        this(broker, DEFAULT_SNAPSHOT_INTERVAL, Tags.empty());
    }

    /**
     * @param snapshotInterval how long one snapshot of the figures read by SQL serves (0: every
     *     read of a gauge reads the database, for tests)
     * @param tags added to every meter (e.g. {@code instance}, when one registry serves several brokers)
     */
    public ShardQMetrics(Broker broker, Duration snapshotInterval, Iterable<Tag> tags) {
        this(broker, snapshotInterval, tags, Clock.systemUTC(), true);
    }

    /** For tests: an injected clock, and refreshes only by {@link #refresh()} when {@code scheduled} is false. */
    ShardQMetrics(Broker broker, Duration snapshotInterval, Iterable<Tag> tags, Clock clock, boolean scheduled) {
        if (broker == null) {
            throw new IllegalArgumentException(
                    "broker is null: give the running Broker (ShardQConnectionFactory#broker())");
        }
        this.broker = broker;
        this.snapshots = new Snapshots(broker, snapshotInterval, clock);
        this.figures = new Figures(broker, snapshots, clock);
        this.tags = Tags.of(tags);
        this.interval = snapshotInterval;
        this.scheduled = scheduled;
    }

    @Override
    public synchronized void bindTo(MeterRegistry registry) {
        if (closed) {
            throw new IllegalStateException("these ShardQ metrics are closed: make a new ShardQMetrics");
        }
        if (bound.containsKey(registry)) {
            return;
        }
        bound.put(registry, new HashMap<>());
        instanceMeters.put(registry, instanceMeters(registry));
        refresh();
        if (scheduled && refresher == null) {
            long every = Math.max(1000, interval.toMillis());
            refresher = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "shardq-" + broker.instanceId() + "-metrics-1");
                t.setDaemon(true);
                return t;
            });
            refresher.scheduleWithFixedDelay(this::refreshQuietly, every, every, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Registers the meters of destinations, subscriptions and caches that appeared since the last
     * refresh and removes those of dropped ones (from the current snapshot; it reads a new one
     * when the interval has run out).
     */
    public synchronized void refresh() {
        if (closed || broker.isClosed()) {
            return;
        }
        Snapshot s = snapshots.current();
        Map<String, Function<MeterRegistry, List<Meter>>> wanted = new LinkedHashMap<>();
        for (String q : s.queues().keySet()) {
            wanted.put("queue\0" + q, r -> destinationMeters(r, q, "queue"));
        }
        for (TopicStats t : s.topics().values()) {
            String topic = t.topic().name();
            wanted.put("topic\0" + topic, r -> destinationMeters(r, topic, "topic"));
            for (SubscriptionStats sub : t.subscriptions()) {
                String name = sub.name();
                wanted.put("subscription\0" + topic + "\0" + name, r -> subscriptionMeters(r, topic, name));
            }
        }
        for (CacheInfo c : s.caches().values()) {
            wanted.put("cache\0" + c.name(), r -> cacheMeters(r, c.name()));
        }
        figures.retainCaches(s.caches().keySet());
        for (Map.Entry<MeterRegistry, Map<String, List<Meter>>> e : bound.entrySet()) {
            MeterRegistry registry = e.getKey();
            Map<String, List<Meter>> have = e.getValue();
            have.entrySet().removeIf(m -> {
                if (wanted.containsKey(m.getKey())) {
                    return false;
                }
                m.getValue().forEach(registry::remove);
                return true;
            });
            wanted.forEach((key, make) -> have.computeIfAbsent(key, k -> make.apply(registry)));
        }
    }

    /** Stops the refresh and removes every meter this binder registered. Safe twice. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (refresher != null) {
            refresher.shutdownNow();
        }
        bound.forEach((registry, meters) -> meters.values().forEach(list -> list.forEach(registry::remove)));
        instanceMeters.forEach((registry, list) -> list.forEach(registry::remove));
        bound.clear();
        instanceMeters.clear();
    }

    /** Snapshots read from the database so far (tests). */
    long snapshotReads() {
        return snapshots.reads();
    }

    private void refreshQuietly() {
        try {
            refresh();
        } catch (RuntimeException e) {
            LOG.warn("{} - refreshing the ShardQ meters failed; retrying", broker.instanceId(), e);
        }
    }

    // ---------------------------------------------------------------- per destination

    private List<Meter> destinationMeters(MeterRegistry r, String name, String kind) {
        Tags t = tags.and("destination", name, "kind", kind);
        List<Meter> m = new ArrayList<>();
        m.add(local(
                r,
                "shardq.destination.enqueued",
                t,
                name,
                DestinationCounters::enqueued,
                "messages committed to it by this instance"));
        m.add(local(
                r,
                "shardq.destination.dequeued",
                t,
                name,
                DestinationCounters::dequeued,
                "messages delivered by this instance whose consumption committed"));
        m.add(local(
                r,
                "shardq.destination.redelivered",
                t,
                name,
                DestinationCounters::redelivered,
                "deliveries of a message delivered before (JMSRedelivered) by this instance"));
        m.add(local(
                r,
                "shardq.destination.dead.lettered",
                t,
                name,
                DestinationCounters::deadLettered,
                "messages this instance moved to the dead-letter queue"));
        m.add(local(
                r,
                "shardq.destination.expired",
                t,
                name,
                DestinationCounters::expired,
                "messages this instance found expired at delivery"));
        m.add(gauge(
                r,
                "shardq.destination.backlog",
                t,
                "messages",
                s -> s.backlog(name),
                kind.equals("queue")
                        ? "messages waiting to be consumed (database-wide)"
                        : "messages retained until every subscription has passed them (database-wide)"));
        m.add(TimeGauge.builder("shardq.destination.oldest.age", snapshots, TimeUnit.MILLISECONDS, s -> s.current()
                        .oldestAgeMillis(name))
                .tags(t)
                .description(
                        "age of the oldest waiting (queue) or retained (topic) message, 0 when none (database-wide)")
                .strongReference(true)
                .register(r));
        if (kind.equals("queue")) {
            m.add(gauge(
                    r,
                    "shardq.destination.scheduled",
                    t,
                    "messages",
                    s -> s.scheduled(name),
                    "messages sent with a delivery delay and not due yet (database-wide)"));
        } else {
            m.add(gauge(
                    r,
                    "shardq.destination.retirement.held",
                    t,
                    "subscriptions",
                    s -> s.retirementHeldBy(name),
                    "subscriptions holding back the retirement of a slice every other subscription has passed"));
        }
        return m;
    }

    private FunctionCounter local(
            MeterRegistry r,
            String meter,
            Tags t,
            String name,
            ToDoubleFunction<DestinationCounters> figure,
            String description) {
        // the broker is the (weakly held) state: the application holds it while it runs
        return FunctionCounter.builder(meter, broker, b -> b.destinationCounters(name)
                        .map(figure::applyAsDouble)
                        .orElse(0.0))
                .tags(t)
                .baseUnit("messages")
                .description(description)
                .register(r);
    }

    private Gauge gauge(
            MeterRegistry r, String meter, Tags t, String unit, ToDoubleFunction<Snapshot> figure, String description) {
        return Gauge.builder(meter, snapshots, s -> figure.applyAsDouble(s.current()))
                .tags(t)
                .baseUnit(unit)
                .description(description)
                .strongReference(true)
                .register(r);
    }

    // ---------------------------------------------------------------- per topic subscription

    private List<Meter> subscriptionMeters(MeterRegistry r, String topic, String name) {
        Tags t = tags.and("destination", topic, "subscription", name);
        List<Meter> m = new ArrayList<>();
        m.add(
                gauge(
                        r,
                        "shardq.subscription.lag",
                        t,
                        "messages",
                        s -> sub(s, topic, name, x -> x.lag()),
                        "sequence numbers the subscription has not passed yet: an upper bound on the messages it must still receive"));
        m.add(TimeGauge.builder(
                        "shardq.subscription.oldest.age",
                        snapshots,
                        TimeUnit.MILLISECONDS,
                        s -> sub(s.current(), topic, name, x -> x.oldestAgeMillis() == null ? 0 : x.oldestAgeMillis()))
                .tags(t)
                .description("age of the subscription's oldest message not passed yet, 0 when caught up")
                .strongReference(true)
                .register(r));
        m.add(gauge(
                r,
                "shardq.subscription.consumers",
                t,
                "consumers",
                s -> sub(s, topic, name, x -> x.consumers()),
                "open consumers of the subscription on live instances"));
        m.add(gauge(
                r,
                "shardq.subscription.retirement.held",
                t,
                null,
                s -> sub(s, topic, name, x -> x.holdsRetirement() ? 1 : 0),
                "1 while a slice every other subscription has passed waits for this one"));
        m.add(FunctionCounter.builder(
                        "shardq.subscription.expired",
                        snapshots,
                        s -> sub(s.current(), topic, name, x -> x.expiredSeqs()))
                .tags(t)
                .baseUnit("messages")
                .description("sequence numbers the topic's expiry policy passed over for the subscription")
                .register(r));
        return m;
    }

    private static double sub(Snapshot s, String topic, String name, ToDoubleFunction<SubscriptionStats> figure) {
        SubscriptionStats x = s.subscription(topic, name);
        return x == null ? Double.NaN : figure.applyAsDouble(x);
    }

    // ---------------------------------------------------------------- per instance

    private List<Meter> instanceMeters(MeterRegistry r) {
        List<Meter> m = new ArrayList<>();
        m.add(FunctionCounter.builder("shardq.message.cache.gets", broker, b -> b.messageCacheStats()
                        .hits())
                .tags(tags.and("result", "hit"))
                .description("deliveries served from this instance's message cache")
                .register(r));
        m.add(FunctionCounter.builder("shardq.message.cache.gets", broker, b -> b.messageCacheStats()
                        .misses())
                .tags(tags.and("result", "miss"))
                .description("deliveries that had to read the message from PostgreSQL")
                .register(r));
        m.add(Gauge.builder("shardq.message.cache.hit.ratio", broker, b -> b.messageCacheStats()
                        .hitRatio())
                .tags(tags)
                .description("message cache hits over lookups since the instance started")
                .register(r));
        m.add(Gauge.builder("shardq.message.cache.size", broker, b -> b.messageCacheStats()
                        .bytes())
                .tags(tags)
                .baseUnit("bytes")
                .description("approximate heap bytes of the cached messages (bound: shardq.cache.max-bytes)")
                .register(r));
        m.add(FunctionCounter.builder(
                        "shardq.dequeue.sql.reads", broker, b -> b.stats().dequeueSqlReads())
                .tags(tags)
                .description("SELECTs run for dequeue: reads on cache misses, head polls, lease look-ups")
                .register(r));
        m.add(Gauge.builder("shardq.dequeue.sql.reads.per.message", broker, b -> b.stats()
                        .sqlReadsPerDequeue())
                .tags(tags)
                .description("SQL reads per dequeued message since the instance started (0.002 when consumers keep up)")
                .register(r));
        m.add(FunctionTimer.builder(
                        "shardq.commit",
                        broker,
                        b -> b.stats().sendCommits(),
                        b -> b.stats().sendCommitNanos(),
                        TimeUnit.NANOSECONDS)
                .tags(tags.and("work", "send"))
                .description("successful commits that wrote messages, and their time")
                .register(r));
        m.add(FunctionTimer.builder(
                        "shardq.commit",
                        broker,
                        b -> b.stats().consumeCommits(),
                        b -> b.stats().consumeCommitNanos(),
                        TimeUnit.NANOSECONDS)
                .tags(tags.and("work", "consume"))
                .description("successful commits that consumed messages, and their time")
                .register(r));
        m.add(Gauge.builder("shardq.retirement.blocked", broker, b -> figures.retirementBlockedSince() >= 0 ? 1 : 0)
                .tags(tags)
                .description(
                        "1 while this instance, the maintenance leader, cannot truncate a slice because a session holds a lock on it")
                .register(r));
        m.add(TimeGauge.builder(
                        "shardq.retirement.blocked.duration",
                        broker,
                        TimeUnit.MILLISECONDS,
                        b -> figures.retirementBlockedMillis())
                .tags(tags)
                .description("how long the blocked slice has waited for its lock, 0 when none is blocked")
                .register(r));
        m.add(FunctionTimer.builder(
                        "shardq.flow.waits",
                        broker,
                        b -> b.stats().flowWaits(),
                        b -> b.stats().flowWaitMillis(),
                        TimeUnit.MILLISECONDS)
                .tags(tags)
                .description("producer commits held back by flow control (consumers busy and behind), and for how long")
                .register(r));
        m.add(Gauge.builder("shardq.flow.held", broker, b -> b.stats().flowHeld())
                .tags(tags)
                .description("producer commits held back by flow control right now")
                .register(r));
        m.add(Gauge.builder("shardq.non.persistent.size", broker, b -> b.stats().nonPersistentBytes())
                .tags(tags)
                .baseUnit("bytes")
                .description("non-persistent messages held in memory (bound: shardq.non-persistent.max-bytes)")
                .register(r));
        m.add(FunctionCounter.builder(
                        "shardq.non.persistent.rejected", broker, b -> b.stats().nonPersistentRejected())
                .tags(tags)
                .description("non-persistent sends refused because that bound was reached")
                .register(r));
        m.add(FunctionCounter.builder(
                        "shardq.slices.retired", broker, b -> b.stats().slicesRetired())
                .tags(tags)
                .description("slices truncated by this instance")
                .register(r));
        return m;
    }

    // ---------------------------------------------------------------- per key/value cache

    private List<Meter> cacheMeters(MeterRegistry r, String name) {
        Tags t = tags.and("cache", name);
        List<Meter> m = new ArrayList<>();
        m.add(kv(
                r,
                "shardq.kv.gets",
                t.and("result", "hit"),
                name,
                CacheStats::hits,
                "keyed reads that found a live entry (this instance)"));
        m.add(kv(
                r,
                "shardq.kv.gets",
                t.and("result", "miss"),
                name,
                CacheStats::misses,
                "keyed reads that found none (this instance)"));
        m.add(kv(
                r,
                "shardq.kv.near.gets",
                t.and("result", "hit"),
                name,
                CacheStats::nearHits,
                "reads outside a transaction served by the near cache (this instance)"));
        m.add(kv(
                r,
                "shardq.kv.near.gets",
                t.and("result", "miss"),
                name,
                CacheStats::nearMisses,
                "reads outside a transaction the near cache could not serve (this instance)"));
        m.add(Gauge.builder("shardq.kv.hit.ratio", broker, b -> kvLocal(name, CacheStats::hitRatio))
                .tags(t)
                .description("hits over keyed reads of this instance")
                .register(r));
        m.add(FunctionTimer.builder(
                        "shardq.kv.loads",
                        broker,
                        b -> (long) kvLocal(name, CacheStats::loads),
                        b -> kvLocal(name, CacheStats::loadNanos),
                        TimeUnit.NANOSECONDS)
                .tags(t)
                .description("read-through loader calls of this instance, and their time")
                .register(r));
        m.add(kv(
                r,
                "shardq.kv.load.failures",
                t,
                name,
                CacheStats::loadFailures,
                "loader calls that threw (this instance)"));
        m.add(kv(r, "shardq.kv.puts", t, name, CacheStats::puts, "entries written by this instance"));
        m.add(kv(r, "shardq.kv.removals", t, name, CacheStats::removals, "entries removed by this instance"));
        m.add(FunctionCounter.builder("shardq.kv.evictions", snapshots, s -> cacheRow(s, name, CacheInfo::evictions))
                .tags(t)
                .description("entries evicted beyond the cache's bounds (database-wide)")
                .register(r));
        m.add(FunctionCounter.builder(
                        "shardq.kv.expirations", snapshots, s -> cacheRow(s, name, CacheInfo::expirations))
                .tags(t)
                .description("expired entries reclaimed (database-wide)")
                .register(r));
        m.add(gauge(
                r,
                "shardq.kv.entries",
                t,
                "entries",
                s -> row(s, name, CacheInfo::entriesEstimate),
                "entries stored, PostgreSQL's estimate (database-wide)"));
        m.add(gauge(
                r,
                "shardq.kv.size",
                t,
                "bytes",
                s -> row(s, name, CacheInfo::bytes),
                "bytes of the cache's partitions and indexes on disk (database-wide)"));
        return m;
    }

    private FunctionCounter kv(
            MeterRegistry r,
            String meter,
            Tags t,
            String name,
            ToDoubleFunction<CacheStats> figure,
            String description) {
        return FunctionCounter.builder(meter, broker, b -> kvLocal(name, figure))
                .tags(t)
                .description(description)
                .register(r);
    }

    private double kvLocal(String name, ToDoubleFunction<CacheStats> figure) {
        return figures.kv(name, figure);
    }

    private static double cacheRow(Snapshots s, String name, ToDoubleFunction<CacheInfo> figure) {
        return row(s.current(), name, figure);
    }

    private static double row(Snapshot s, String name, ToDoubleFunction<CacheInfo> figure) {
        CacheInfo c = s.caches().get(name);
        return c == null ? Double.NaN : figure.applyAsDouble(c);
    }
}
