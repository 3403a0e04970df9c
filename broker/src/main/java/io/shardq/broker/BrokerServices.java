package io.shardq.broker;

import io.shardq.broker.catalog.Catalog;
import io.shardq.broker.catalog.CatalogWatcher;
import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.catalog.TemporaryDestinations;
import io.shardq.broker.delay.DelayedNonPersistent;
import io.shardq.broker.instance.Elector;
import io.shardq.broker.instance.TemporaryReaper;
import io.shardq.broker.instance.Waker;
import io.shardq.broker.kv.KvCaches;
import io.shardq.broker.kv.KvMaintainer;
import io.shardq.broker.kv.KvToucher;
import io.shardq.broker.kv.KvWriteBehindFlusher;
import io.shardq.broker.kv.NearCaches;
import io.shardq.broker.shard.BrokerSession;
import io.shardq.broker.shard.DestinationRuntime;
import io.shardq.broker.shard.Engine;
import io.shardq.broker.shard.EngineStats;
import io.shardq.broker.shard.Heartbeat;
import io.shardq.broker.shard.LeaseBalancer;
import io.shardq.broker.shard.ScheduledMover;
import io.shardq.broker.slice.DeadRowReclaimer;
import io.shardq.broker.slice.SliceMaintainer;
import io.shardq.broker.slice.SliceRetirer;
import java.time.Clock;
import java.util.Collection;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * The composition of one {@link Broker}'s background services: builds each from the
 * configuration (and the one mapping of {@link BrokerProperty} values to {@link Engine.Settings}),
 * wires them to each other and to the waker's LISTEN connection, starts them and stops them.
 * Each service has its own thread, named {@code shardq-<instance>-<role>-1}.
 *
 * <p>Invariants: nothing is started before everything is built, so no service sees another
 * half-made ({@link #start()} runs after the constructor, in dependency order: heartbeat and lease
 * balancer, catalog watcher, waker, then the leader's maintenance work). {@link #stop()} first
 * flushes the write-behind queues (while everything they need still runs), stops the scheduler
 * and the held non-persistent messages, then the elector (it resigns, and a follower takes over
 * while this instance finishes), and the heartbeat last: until then this instance renews its
 * leases and counts as alive.
 */
final class BrokerServices {
    final Heartbeat heartbeat;
    final LeaseBalancer leaseBalancer;
    final Elector elector;
    final SliceMaintainer maintainer;
    final DeadRowReclaimer reclaimer;
    final CatalogWatcher catalogWatcher;
    final TemporaryDestinations temporaries;
    final TemporaryReaper reaper;
    /** This instance's open queue consumers, copied to the database (shardq.consumers()). */
    final io.shardq.broker.instance.QueueConsumerCounts queueConsumers;

    final KvCaches kvCaches;
    final KvMaintainer kvMaintainer;
    final KvToucher kvToucher;
    final KvWriteBehindFlusher kvFlusher;
    final ScheduledMover scheduledMover;
    /** Delayed non-persistent messages held until due (they never reach shardq.scheduled_message). */
    final DelayedNonPersistent delayedNonPersistent;

    final Waker waker;
    /** The near caches of this instance's key/value caches (cleared when the server changed). */
    final NearCaches nearCaches;

    private final Map<Integer, DestinationRuntime> runtimesById;

    /**
     * Builds the services; starts none.
     *
     * @param runtimes the instance's destination runtimes (a live view)
     * @param runtimesById the same, by destination id (a live view)
     * @param forget drops a destination's runtime (the reaper's, after it dropped a temporary one)
     * @param transactedSession opens a TRANSACTED session (the scheduler moves due messages in one)
     * @param catalogChanges what the instance does when the catalog changes
     */
    BrokerServices(
            BrokerConfig config,
            Clock clock,
            DataSource dataSource,
            long instanceId,
            Catalog catalog,
            Engine engine,
            EngineStats stats,
            Collection<DestinationRuntime> runtimes,
            Map<Integer, DestinationRuntime> runtimesById,
            Consumer<String> forget,
            Supplier<BrokerSession> transactedSession,
            CatalogWatcher.Listener catalogChanges) {
        this.runtimesById = runtimesById;
        Engine.Settings settings = engine.settings();
        String prefix = "shardq-" + instanceId;
        SliceRetirer.Listener retirements = new SliceRetirer.Listener() {
            @Override
            public void retired(DestinationInfo destination, int shard, long firstSeq) {
                stats.recordSliceRetired();
                DestinationRuntime rt = runtimesById.get(destination.id());
                if (rt != null) {
                    rt.forgetSlice(shard, firstSeq);
                }
            }

            @Override
            public void blocked(String leaf, String description) {
                stats.recordRetireBlocked(leaf, description, clock.millis());
            }

            @Override
            public void settled(String leaf) {
                stats.recordRetireSettled(leaf);
            }

            @Override
            public void round(DestinationInfo destination) {
                stats.recordMaintenanceRound();
            }
        };
        SliceRetirer retirer =
                new SliceRetirer(dataSource, retirements, config.getInt(BrokerProperty.MAINTENANCE_LOCK_TIMEOUT_MS));
        long beat = settings.heartbeatMillis();
        // the slow fallbacks for missed notifications: catalog poll, maintenance scan
        long fallback = Math.max(30_000, 30 * beat);
        this.leaseBalancer = new LeaseBalancer(engine, runtimes, prefix + "-leases-1");
        this.heartbeat = new Heartbeat(engine, runtimes, prefix + "-heartbeat-1").balancer(leaseBalancer);
        this.maintainer = new SliceMaintainer(
                        dataSource,
                        catalog,
                        retirer,
                        this::isMaintenanceLeader,
                        beat,
                        fallback,
                        System::nanoTime,
                        prefix + "-maintenance-1")
                .aliveSeconds(aliveSeconds(settings));
        this.reclaimer = new DeadRowReclaimer(
                dataSource, config.getInt(BrokerProperty.MAINTENANCE_LOCK_TIMEOUT_MS), prefix + "-reclaimer-1");
        this.elector = new Elector(
                dataSource,
                instanceId,
                Math.min(beat, settings.leaseTtlMillis() / 3),
                settings.leaseTtlMillis(),
                System::nanoTime,
                this::leadershipChanged,
                prefix + "-elector-1");
        this.temporaries = new TemporaryDestinations(dataSource, instanceId);
        this.reaper = new TemporaryReaper(
                temporaries,
                this::isMaintenanceLeader,
                settings.leaseTtlMillis(),
                config.getInt(BrokerProperty.MAINTENANCE_LOCK_TIMEOUT_MS),
                forget,
                prefix + "-reaper-1");
        this.queueConsumers = new io.shardq.broker.instance.QueueConsumerCounts(
                dataSource, instanceId, () -> queueConsumerCounts(runtimes), beat, prefix + "-consumers-1");
        int lockTimeout = config.getInt(BrokerProperty.MAINTENANCE_LOCK_TIMEOUT_MS);
        long touchInterval = Math.max(1, config.getInt(BrokerProperty.KV_TOUCH_INTERVAL_MS));
        KvMaintainer[] kvLeader = new KvMaintainer[1];
        this.kvCaches = new KvCaches(
                dataSource,
                clock,
                touchInterval,
                config.getInt(BrokerProperty.KV_MAX_BATCH_SIZE),
                () -> kvLeader[0].trigger());
        this.kvMaintainer = new KvMaintainer(
                kvCaches,
                this::isMaintenanceLeader,
                Math.max(100, config.getInt(BrokerProperty.KV_MAINTENANCE_MS)),
                lockTimeout,
                prefix + "-kv-maintenance-1");
        kvLeader[0] = kvMaintainer;
        this.kvToucher = new KvToucher(kvCaches, touchInterval, prefix + "-kv-toucher-1");
        this.scheduledMover = new ScheduledMover(
                dataSource,
                transactedSession,
                catalog::byId,
                this::isMaintenanceLeader,
                clock,
                System::nanoTime,
                config.getInt(BrokerProperty.SCHEDULE_POLL_MS),
                prefix + "-scheduler-1");
        this.delayedNonPersistent =
                new DelayedNonPersistent(prefix + "-np-delay-1", clock, config.getInt(BrokerProperty.SCHEDULE_POLL_MS));
        this.kvFlusher = new KvWriteBehindFlusher(
                kvCaches, config.getInt(BrokerProperty.KV_WRITE_BEHIND_FLUSH_MS), prefix + "-kv-flusher-1");
        kvCaches.writeBehind(
                config.getInt(BrokerProperty.KV_WRITE_BEHIND_MAX_PENDING),
                config.getInt(BrokerProperty.KV_WRITE_BEHIND_BLOCK_MS),
                kvFlusher::trigger);
        this.nearCaches = new NearCaches(
                        Math.max(0, config.getInt(BrokerProperty.KV_NEAR_MAX_BYTES)),
                        () -> heartbeat.aliveInstances() > 1)
                .fillsAfter(3 * beat);
        kvCaches.near(nearCaches)
                .loadTimeoutMs(config.getInt(BrokerProperty.KV_LOAD_TIMEOUT_MS))
                .sharedSessionPuts(config.getBoolean(BrokerProperty.COMMIT_SHARED_CACHE_PUTS));
        this.catalogWatcher =
                new CatalogWatcher(catalog, catalogChanges, fallback, System::nanoTime, prefix + "-catalog-1");
        this.waker = new Waker(dataSource, this::wake, prefix + "-waker-1")
                .sessionLock(instanceId)
                .listen(CatalogWatcher.CHANNEL, catalogWatcher::onNotify)
                .listen(SliceMaintainer.CHANNEL, maintainer::onNotify)
                .listen(Elector.CHANNEL, elector::onResigned)
                .listen(NearCaches.CHANNEL, nearCaches::onNotify)
                .onListening(catalogWatcher::onListening)
                .onListening(nearCaches::onListening);
    }

    /** The engine's settings from the configuration: the one place a property becomes a setting. */
    static Engine.Settings engineSettings(BrokerConfig config) {
        return new Engine.Settings(
                config.getInt(BrokerProperty.READ_AHEAD),
                config.getInt(BrokerProperty.READ_AHEAD_MAX_BYTES),
                config.getInt(BrokerProperty.POLL_MAX_MS),
                config.getInt(BrokerProperty.ENQUEUE_MAX_BATCH),
                config.getInt(BrokerProperty.LEASE_TTL_MS),
                config.getInt(BrokerProperty.HEARTBEAT_MS),
                Math.max(1, config.getInt(BrokerProperty.PREFETCH)),
                config.getInt(BrokerProperty.NON_PERSISTENT_MAX_BYTES),
                Math.max(0, config.getInt(BrokerProperty.FLOW_MAX_UNTAKEN)),
                Math.max(0, config.getInt(BrokerProperty.FLOW_TOPIC_MAX_UNTAKEN)),
                Math.max(0, config.getInt(BrokerProperty.FLOW_MAX_WAIT_MS)),
                Math.max(0, config.getInt(BrokerProperty.FLOW_CONSUMER_ACTIVE_MS)),
                Math.max(0, config.getInt(BrokerProperty.REDELIVERY_DELAY_MS)),
                config.getDouble(BrokerProperty.REDELIVERY_MULTIPLIER),
                Math.max(0, config.getInt(BrokerProperty.REDELIVERY_MAX_DELAY_MS)),
                config.getInt(BrokerProperty.PRIORITY_WINDOW, 0, 100_000),
                config.getBoolean(BrokerProperty.COMMIT_SHARED_SENDS));
    }

    /** How long an instance without a heartbeat still counts as alive, in whole seconds (the lease TTL). */
    static int aliveSeconds(Engine.Settings settings) {
        return (int) Math.max(1, (settings.leaseTtlMillis() + 999) / 1000);
    }

    /** Starts every service, in dependency order. */
    void start() {
        heartbeat.start();
        leaseBalancer.start();
        catalogWatcher.start();
        waker.start();
        maintainer.start();
        reclaimer.start();
        elector.start();
        reaper.start();
        queueConsumers.start();
        kvMaintainer.start();
        kvToucher.start();
        kvFlusher.start();
        scheduledMover.start();
        delayedNonPersistent.start();
    }

    /** Stops every service; the heartbeat last (see the class comment). */
    void stop() {
        // accepted write-behind writes first, while everything they need still runs
        kvFlusher.stop();
        scheduledMover.stop();
        delayedNonPersistent.stop(); // non-persistent: what is not due yet is lost with the instance
        // the elector next: it resigns, and a follower takes over while we finish
        elector.stop();
        reaper.stop();
        queueConsumers.stop();
        kvMaintainer.stop();
        kvToucher.stop();
        maintainer.stop();
        reclaimer.stop();
        catalogWatcher.stop();
        waker.stop();
        leaseBalancer.stop();
        heartbeat.stop();
    }

    /** True while this instance is the elected maintenance leader (retirement, spare slots). */
    boolean isMaintenanceLeader() {
        return elector.isLeader();
    }

    private void leadershipChanged(boolean nowLeader) {
        maintainer.leadershipChanged(nowLeader);
        ScheduledMover mover = scheduledMover; // null while the constructor runs
        if (mover != null) {
            mover.leadershipChanged(nowLeader);
        }
    }

    /** A destination's NOTIFY on the waker's connection: its subscriptions look again. */
    private void wake(int destinationId) {
        DestinationRuntime rt = runtimesById.get(destinationId);
        if (rt != null) {
            rt.subscriptions().forEach(sub -> sub.onWake());
        }
    }

    /** Open consumers of each queue served here, by the queue's subscription id. */
    private static Map<Long, Integer> queueConsumerCounts(Collection<DestinationRuntime> runtimes) {
        Map<Long, Integer> out = new java.util.HashMap<>();
        for (DestinationRuntime rt : runtimes) {
            if (rt.info().isQueue()) {
                out.put(rt.info().queueSubscription(), rt.queue().openConsumers());
            }
        }
        return out;
    }
}
