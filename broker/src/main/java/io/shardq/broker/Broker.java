package io.shardq.broker;

import io.shardq.broker.browse.BrowseCursor;
import io.shardq.broker.browse.BrowsedMessage;
import io.shardq.broker.cache.MessageCache;
import io.shardq.broker.catalog.Catalog;
import io.shardq.broker.catalog.CatalogWatcher;
import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.catalog.Names;
import io.shardq.broker.catalog.TemporaryDestinations;
import io.shardq.broker.instance.Elector;
import io.shardq.broker.instance.TemporaryReaper;
import io.shardq.broker.instance.Waker;
import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.SqlErrors;
import io.shardq.broker.kv.Codec;
import io.shardq.broker.kv.KvCache;
import io.shardq.broker.kv.KvCaches;
import io.shardq.broker.kv.KvMaintainer;
import io.shardq.broker.kv.KvToucher;
import io.shardq.broker.kv.KvWriteBehindFlusher;
import io.shardq.broker.kv.NearCaches;
import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.selector.Selector;
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
import io.shardq.broker.store.Database;
import io.shardq.sql.Migrations;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One ShardQ instance: a connection pool, a message cache, the destinations it serves and its
 * background services, each with its own thread and lifecycle: the heartbeat (liveness and
 * lease renewal), the elector and the slice maintainer (retirement and spare slots, on the one
 * elected instance), the catalog watcher (catalog changes by NOTIFY) and the waker (the LISTEN
 * connection they share). Every JMS connection factory owns one. No JMS types here: the JMS
 * layer translates.
 */
public final class Broker implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Broker.class);

    private final BrokerConfig config;
    private final Database database;
    private final long instanceId;
    private final Catalog catalog;
    private final Admin admin;
    private final MessageCache cache;
    /** This instance as the engine's packages see it; not API (see {@link #engine()}). */
    private final Engine engine = new Core();

    private final io.shardq.broker.shard.PreparedTransactions prepared =
            new io.shardq.broker.shard.PreparedTransactions(engine);

    private final EngineStats stats = new EngineStats();
    private final Engine.Settings settings;
    private final boolean autoCreate;
    private final int defaultShards;
    private final Map<String, DestinationRuntime> runtimes = new ConcurrentHashMap<>();
    private final Map<Integer, DestinationRuntime> runtimesById = new ConcurrentHashMap<>();
    private final Waker waker;
    private final Heartbeat heartbeat;
    private final LeaseBalancer leaseBalancer;
    private final Elector elector;
    private final SliceMaintainer maintainer;
    private final DeadRowReclaimer reclaimer;
    private final CatalogWatcher catalogWatcher;
    private final TemporaryDestinations temporaries;
    private final TemporaryReaper reaper;
    private final KvCaches kvCaches;
    private final KvMaintainer kvMaintainer;
    private final KvToucher kvToucher;
    private final KvWriteBehindFlusher kvFlusher;
    private final ScheduledMover scheduledMover;
    /** Delayed non-persistent messages held until due (they never reach shardq.scheduled_message). */
    private final io.shardq.broker.delay.DelayedNonPersistent delayedNonPersistent;

    private final Clock clock;
    private volatile boolean closed;

    private Broker(BrokerConfig config, Clock clock) {
        this.config = config;
        this.clock = clock;
        this.database = Database.open(config, "shardq-pool");
        try {
            if (config.getBoolean(BrokerProperty.MIGRATE_ON_START)) {
                try {
                    Migrations.migrate(database.dataSource());
                } catch (ShardQException e) {
                    throw e;
                } catch (RuntimeException e) {
                    throw schemaFailure(e, database.user());
                }
            }
            this.instanceId = register(config);
        } catch (RuntimeException e) {
            database.close();
            throw e;
        }
        this.catalog = new Catalog(database.dataSource());
        // this instance's own changes apply at once; other instances' arrive by NOTIFY
        this.admin = new Admin(
                database.dataSource(),
                catalog,
                name -> apply(name, catalog.known(name).orElse(null)));
        this.cache = new MessageCache(
                config.getInt(BrokerProperty.CACHE_MAX_BYTES), config.getInt(BrokerProperty.CACHE_LARGE_PAYLOAD_BYTES));
        this.settings = new Engine.Settings(
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
                config.getInt(BrokerProperty.PRIORITY_WINDOW, 0, 100_000));
        this.autoCreate = config.getBoolean(BrokerProperty.AUTO_CREATE_DESTINATIONS);
        this.defaultShards = config.getInt(BrokerProperty.DEFAULT_SHARDS);
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
                stats.recordRetireBlocked(leaf, description, Broker.this.clock.millis());
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
        SliceRetirer retirer = new SliceRetirer(
                database.dataSource(), retirements, config.getInt(BrokerProperty.MAINTENANCE_LOCK_TIMEOUT_MS));
        long beat = settings.heartbeatMillis();
        // the slow fallbacks for missed notifications: catalog poll, maintenance scan
        long fallback = Math.max(30_000, 30 * beat);
        this.leaseBalancer = new LeaseBalancer(engine, runtimes.values(), prefix + "-leases-1");
        this.heartbeat = new Heartbeat(engine, runtimes.values(), prefix + "-heartbeat-1").balancer(leaseBalancer);
        this.maintainer = new SliceMaintainer(
                        database.dataSource(),
                        catalog,
                        retirer,
                        this::isMaintenanceLeader,
                        beat,
                        fallback,
                        System::nanoTime,
                        prefix + "-maintenance-1")
                .aliveSeconds(aliveSeconds());
        this.reclaimer = new DeadRowReclaimer(
                database.dataSource(),
                config.getInt(BrokerProperty.MAINTENANCE_LOCK_TIMEOUT_MS),
                prefix + "-reclaimer-1");
        this.elector = new Elector(
                database.dataSource(),
                instanceId,
                Math.min(beat, settings.leaseTtlMillis() / 3),
                settings.leaseTtlMillis(),
                System::nanoTime,
                this::leadershipChanged,
                prefix + "-elector-1");
        this.temporaries = new TemporaryDestinations(database.dataSource(), instanceId);
        this.reaper = new TemporaryReaper(
                temporaries,
                this::isMaintenanceLeader,
                settings.leaseTtlMillis(),
                config.getInt(BrokerProperty.MAINTENANCE_LOCK_TIMEOUT_MS),
                this::forget,
                prefix + "-reaper-1");
        int lockTimeout = config.getInt(BrokerProperty.MAINTENANCE_LOCK_TIMEOUT_MS);
        long touchInterval = Math.max(1, config.getInt(BrokerProperty.KV_TOUCH_INTERVAL_MS));
        KvMaintainer[] kvLeader = new KvMaintainer[1];
        this.kvCaches = new KvCaches(
                database.dataSource(),
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
                database.dataSource(),
                () -> openSession(BrokerSession.Mode.TRANSACTED),
                catalog::byId,
                this::isMaintenanceLeader,
                clock,
                System::nanoTime,
                config.getInt(BrokerProperty.SCHEDULE_POLL_MS),
                prefix + "-scheduler-1");
        this.delayedNonPersistent = new io.shardq.broker.delay.DelayedNonPersistent(
                prefix + "-np-delay-1", clock, config.getInt(BrokerProperty.SCHEDULE_POLL_MS));
        admin.scheduledInMemory(delayedNonPersistent::heldFor);
        this.kvFlusher = new KvWriteBehindFlusher(
                kvCaches, config.getInt(BrokerProperty.KV_WRITE_BEHIND_FLUSH_MS), prefix + "-kv-flusher-1");
        kvCaches.writeBehind(
                config.getInt(BrokerProperty.KV_WRITE_BEHIND_MAX_PENDING),
                config.getInt(BrokerProperty.KV_WRITE_BEHIND_BLOCK_MS),
                kvFlusher::trigger);
        NearCaches nearCaches = new NearCaches(
                        Math.max(0, config.getInt(BrokerProperty.KV_NEAR_MAX_BYTES)), this::otherInstancesAlive)
                .fillsAfter(3 * beat);
        kvCaches.near(nearCaches).loadTimeoutMs(config.getInt(BrokerProperty.KV_LOAD_TIMEOUT_MS));
        admin.caches(kvCaches);
        this.catalogWatcher =
                new CatalogWatcher(catalog, new CatalogChanges(), fallback, System::nanoTime, prefix + "-catalog-1");
        this.waker = new Waker(database.dataSource(), this::wake, prefix + "-waker-1")
                .sessionLock(instanceId)
                .listen(CatalogWatcher.CHANNEL, catalogWatcher::onNotify)
                .listen(SliceMaintainer.CHANNEL, maintainer::onNotify)
                .listen(Elector.CHANNEL, elector::onResigned)
                .listen(NearCaches.CHANNEL, nearCaches::onNotify)
                .onListening(catalogWatcher::onListening)
                .onListening(nearCaches::onListening);
        heartbeat.start();
        leaseBalancer.start();
        catalogWatcher.start();
        waker.start();
        maintainer.start();
        reclaimer.start();
        elector.start();
        reaper.start();
        kvMaintainer.start();
        kvToucher.start();
        kvFlusher.start();
        scheduledMover.start();
        delayedNonPersistent.start();
        LOG.info("{} - ShardQ instance started on {}", instanceId, database.displayUrl());
    }

    /** Starts an instance: opens the pool, migrates the schema (unless turned off), registers. */
    public static Broker start(BrokerConfig config) {
        return new Broker(config, Clock.systemUTC());
    }

    /**
     * Starts an instance whose key/value caches take the time from {@code clock}: it decides when
     * entries expire and which expiry partitions exist (tests move it; elsewhere, the system clock).
     */
    public static Broker start(BrokerConfig config, Clock clock) {
        return new Broker(config, clock);
    }

    private long register(BrokerConfig config) {
        String name = config.get(BrokerProperty.INSTANCE_NAME);
        if (name.isBlank()) {
            name = defaultInstanceName(
                    System.getProperty("sun.java.command", ""),
                    ManagementFactory.getRuntimeMXBean().getName());
        }
        try (Connection c = database.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get("instance_insert"))) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "registering the instance");
        }
    }

    /**
     * An instance's name when {@code shardq.instance.name} is not set: the program's main class or
     * jar, then the process and host ({@code "OrderServiceApplication (pid 6488 on vm)"}), so that
     * an operator can tell applications apart in {@code shardq status} and the console (issue 24:
     * {@code 6488@vm} named nothing).
     *
     * @param command the JVM's {@code sun.java.command} (main class or jar, then the arguments)
     * @param pidAtHost the runtime's name, {@code pid@host}
     */
    static String defaultInstanceName(String command, String pidAtHost) {
        String main = command.isBlank() ? "java" : command.strip().split("\\s+")[0];
        main = main.substring(main.lastIndexOf('/') + 1);
        if (!main.endsWith(".jar")) {
            main = main.substring(main.lastIndexOf('.') + 1);
        }
        String[] ph = pidAtHost.split("@", 2);
        return main + " (pid " + ph[0] + (ph.length > 1 ? " on " + ph[1] : "") + ")";
    }

    public BrokerConfig config() {
        return config;
    }

    public Admin admin() {
        return admin;
    }

    /** A session that commits through its own pooled connection. */
    public BrokerSession openSession(BrokerSession.Mode mode) {
        checkOpen();
        return new BrokerSession(engine, mode, null);
    }

    /**
     * A session whose transactions a transaction manager drives through two-phase commit (XA):
     * transacted, it works only inside a branch ({@link BrokerSession#xaAssociate}), and ends one
     * with {@link BrokerSession#prepare} and then {@link #commitPrepared} or {@link
     * #rollbackPrepared}, or with {@link BrokerSession#commit()} (one phase) or {@link
     * BrokerSession#rollback()}. Throws {@code CONFIGURATION} naming {@code
     * max_prepared_transactions} when the server has prepared transactions turned off.
     */
    public BrokerSession openXaSession() {
        checkOpen();
        prepared.requireEnabled();
        return new BrokerSession(engine, BrokerSession.Mode.TRANSACTED, null, false, true);
    }

    /**
     * COMMIT PREPARED of the prepared transaction {@code gid} of this database, from any instance
     * (after a crash too); the session of this instance that prepared it, if any, then publishes
     * its work in memory. Returns false when there is no such prepared transaction. A lost
     * connection ({@code CONNECTION}) leaves the outcome unknown: ask again.
     */
    public boolean commitPrepared(String gid) {
        checkOpen();
        return prepared.commit(gid);
    }

    /** ROLLBACK PREPARED, as {@link #commitPrepared}: received messages are delivered again. */
    public boolean rollbackPrepared(String gid) {
        checkOpen();
        return prepared.rollback(gid);
    }

    /**
     * The global ids of this database's prepared transactions starting with {@code prefix},
     * oldest first (for {@code XAResource.recover}).
     */
    public List<String> preparedTransactions(String prefix) {
        checkOpen();
        return prepared.list(java.util.Objects.requireNonNull(prefix, "prefix"));
    }

    /** The server's {@code max_prepared_transactions} (0: no two-phase commit). */
    public int maxPreparedTransactions() {
        checkOpen();
        return prepared.maxPreparedTransactions();
    }

    /**
     * A session that works inside an application-managed transaction on {@code connection}: it
     * writes there and never commits or rolls back; the application does.
     */
    public BrokerSession openSession(Connection connection) {
        return openSession(connection, false);
    }

    /**
     * As {@link #openSession(Connection)}; with {@code awaitsOutcome} the application tells the
     * session how each of its transactions ended ({@link BrokerSession#transactionEnded}), so that
     * what the session wrote becomes visible in memory only once committed, and a rolled-back
     * receive is given back and counted as a failed delivery (a framework's transaction
     * synchronization does this, e.g. the Spring Boot starter's).
     */
    public BrokerSession openSession(Connection connection, boolean awaitsOutcome) {
        checkOpen();
        java.util.Objects.requireNonNull(connection, "connection");
        return new BrokerSession(engine, BrokerSession.Mode.TRANSACTED, connection, awaitsOutcome, false);
    }

    /**
     * A view of the key/value cache {@code name} (made by {@link Admin#createCache}) with these
     * codecs; operations run on their own until bound with {@link KvCache#in} or {@link KvCache#on}.
     * Throws {@code UNKNOWN_CACHE} naming it when there is no such cache.
     */
    public <K, V> KvCache<K, V> cache(String name, Codec<K> keys, Codec<V> values) {
        checkOpen();
        return kvCaches.open(name, keys, values);
    }

    /**
     * Reads a streamed body ({@link BrokerMessage#streamedBody()}) one chunk at a time: at most one
     * chunk (1 MiB) on the heap, each read with one statement on a pooled connection held only for
     * it. Read it while the message's delivery is not yet acknowledged (or committed): afterwards the
     * message's slice may be retired, and a read of a body that is gone fails with an {@link
     * java.io.IOException} saying so. {@code what} names the message in that error.
     */
    public java.io.InputStream openBody(io.shardq.broker.message.StreamedBody body, String what) {
        return io.shardq.broker.store.LargeBodies.open(
                dataSource(), java.util.Objects.requireNonNull(body, "body"), what);
    }

    /**
     * Opens a lazy browse cursor on a queue: waiting messages up to the shards' current heads,
     * oldest first, filtered by {@code selector} (null: all), memory bounded by {@code options}.
     * See {@link BrowseCursor} for the order and what is shown.
     */
    public BrowseCursor browse(String destination, Selector selector, BrowseCursor.Options options) {
        checkOpen();
        DestinationInfo d = admin.require(destination);
        if (!d.isQueue()) {
            throw new ShardQException(
                    ErrorKind.INVALID_ARGUMENT,
                    d.name() + " is a " + d.kind() + ": only queues can be browsed (see shardq.subscriptions for a"
                            + " topic's subscriptions and their lag)");
        }
        DestinationRuntime rt = runtimes.get(destination);
        if (rt != null && options.memory() == io.shardq.broker.browse.MemorySource.NONE) {
            // non-persistent messages this instance holds for the queue, as they are now
            options = options.withMemory(() -> rt.queue().nonPersistentSnapshot().stream()
                    .map(m -> new BrowsedMessage(io.shardq.broker.browse.MemorySource.SHARD, 0, m.timestamp(), m))
                    .iterator());
        }
        return BrowseCursor.open(database.dataSource(), d, selector, options);
    }

    /** The first {@code limit} waiting messages, oldest first (a convenience over the cursor). */
    public List<BrowsedMessage> browse(String destination, int limit) {
        List<BrowsedMessage> out = new ArrayList<>();
        try (BrowseCursor cursor = browse(destination, null, BrowseCursor.Options.DEFAULTS)) {
            while (out.size() < limit && cursor.hasNext()) {
                out.add(cursor.next());
            }
        }
        return out;
    }

    // ---------------------------------------------------------------- Engine

    /** The instance's connection pool. */
    public DataSource dataSource() {
        return database.dataSource();
    }

    private Connection borrowConnection() throws SQLException {
        try {
            return database.dataSource().getConnection();
        } catch (java.sql.SQLTransientConnectionException e) {
            if (closed || e.getMessage() == null || !e.getMessage().contains("not available")) {
                throw e;
            }
            throw new ShardQException(
                    ErrorKind.RESOURCE_EXHAUSTED,
                    "no pooled connection became free within " + config.get(BrokerProperty.POOL_TIMEOUT_MS)
                            + " ms: all " + config.get(BrokerProperty.POOL_SIZE) + " connections of instance "
                            + instanceId + " are in use (raise " + BrokerProperty.POOL_SIZE.key() + " or "
                            + BrokerProperty.POOL_TIMEOUT_MS.key() + ", or keep fewer sessions sharing "
                            + "their JDBC connection with application SQL open)",
                    e);
        }
    }

    private boolean reserveNonPersistent(BrokerMessage m, boolean force) {
        return stats.reserveNonPersistent(m.estimatedSize(), settings.nonPersistentMaxBytes(), force);
    }

    private void releaseNonPersistent(BrokerMessage m) {
        stats.releaseNonPersistent(m.estimatedSize());
    }

    /** Counters and step timings of this instance. */
    public EngineStats stats() {
        return stats;
    }

    /** This instance's message cache: hits, misses, size. No database read. */
    public MessageCacheStats messageCacheStats() {
        return new MessageCacheStats(
                cache.hits(), cache.misses(), cache.estimatedSize(), cache.weightedSize(), cache.maxBytes());
    }

    /**
     * What this instance counted per destination it serves (one it sent to or received from since
     * it started), by name. No database read.
     */
    public List<DestinationCounters> destinationCounters() {
        return runtimes.values().stream()
                .map(DestinationRuntime::counters)
                .sorted(java.util.Comparator.comparing(DestinationCounters::name))
                .toList();
    }

    /** What this instance counted for {@code name}; empty when it does not serve it (see above). */
    public Optional<DestinationCounters> destinationCounters(String name) {
        DestinationRuntime rt = runtimes.get(name);
        return rt == null ? Optional.empty() : Optional.of(rt.counters());
    }

    /** This instance's id ({@code shardq.instance.id}). */
    public long instanceId() {
        return instanceId;
    }

    private DestinationRuntime deadLetterRuntime(String name) {
        if (!runtimes.containsKey(name) && catalog.find(name).isEmpty()) {
            admin.createOrGet(name, QueueOptions.DEFAULTS.withShards(defaultShards));
        }
        return runtime(name, false);
    }

    private DestinationRuntime runtime(String name, boolean createIfMissing) {
        checkOpen();
        DestinationRuntime rt = runtimes.get(name);
        if (rt != null) {
            return rt;
        }
        Names.checkDestination(name);
        while (true) {
            DestinationRuntime created = createRuntime(name, createIfMissing);
            // a catalog NOTIFY handled while we read may have found this snapshot stale already
            Optional<DestinationInfo> latest = catalog.known(name);
            if (latest.isPresent() && latest.get().id() == created.info().id()) {
                return created;
            }
            apply(name, latest.orElse(null));
        }
    }

    /**
     * The destination named {@code name}, made ready on this instance; with {@code
     * createIfMissing} (and {@code shardq.auto-create-destinations} on) created with the default
     * options if it does not exist, as a send or receive would.
     *
     * @throws ShardQException {@link ErrorKind#UNKNOWN_DESTINATION} when it does not exist and is
     *     not to be (or may not be) created; {@link ErrorKind#ILLEGAL_STATE} after {@link #close()}
     */
    public DestinationInfo requireDestination(String name, boolean createIfMissing) {
        return runtime(name, createIfMissing).info();
    }

    /**
     * As {@link #requireDestination(String, boolean)} for a destination of {@code kind} ({@code
     * queue} or {@code topic}): a missing one is created of that kind, and one of the other kind is
     * refused ({@link ErrorKind#INVALID_ARGUMENT}, naming both).
     */
    public DestinationInfo requireDestination(String name, boolean createIfMissing, String kind) {
        checkOpen();
        DestinationRuntime rt = runtimes.get(name);
        if (rt == null && "topic".equals(kind) && createIfMissing && autoCreate) {
            Names.checkDestination(name);
            if (catalog.find(name).isEmpty()) {
                if (TemporaryDestinations.hasTemporaryName(name)) {
                    throw TemporaryDestinations.gone(name); // a deleted temporary topic is not created as a topic
                }
                admin.createTopicOrGet(name, QueueOptions.DEFAULTS.withShards(defaultShards));
            }
        }
        DestinationInfo info = runtime(name, createIfMissing).info();
        if (!info.kind().equals(kind)) {
            throw new ShardQException(
                    ErrorKind.INVALID_ARGUMENT, "\"" + name + "\" is a " + info.kind() + ", not a " + kind);
        }
        return info;
    }

    private DestinationRuntime createRuntime(String name, boolean createIfMissing) {
        DestinationInfo info = catalog.find(name).orElse(null);
        if (info == null) {
            if (TemporaryDestinations.hasTemporaryName(name)) {
                throw TemporaryDestinations.gone(name); // never auto-created: it was deleted
            }
            if (!createIfMissing || !autoCreate) {
                throw new ShardQException(
                        ErrorKind.UNKNOWN_DESTINATION,
                        "destination \"" + name + "\" does not exist"
                                + (autoCreate
                                        ? ""
                                        : " (automatic creation is off: shardq.auto-create-destinations=false)"));
            }
            info = admin.createOrGet(name, QueueOptions.DEFAULTS.withShards(defaultShards));
        }
        DestinationInfo found = info;
        return runtimes.computeIfAbsent(name, n -> {
            DestinationRuntime created = new DestinationRuntime(engine, found);
            runtimesById.put(found.id(), created);
            return created;
        });
    }

    /** Forgets a destination that was dropped. */
    public void forget(String name) {
        apply(name, null);
        catalog.forget(name);
    }

    /**
     * Brings the runtime of {@code name}, if there is one, in line with the catalog: removed
     * when the destination is gone ({@code fresh} null), replaced when its id changed (dropped
     * and created again: nothing of the old one applies), else refreshed (flags, shard count,
     * max attempts). Consumers waiting on a removed runtime are woken.
     */
    private void apply(String name, DestinationInfo fresh) {
        DestinationRuntime[] old = new DestinationRuntime[1];
        DestinationRuntime now = runtimes.compute(name, (n, rt) -> {
            if (rt == null || (fresh != null && rt.info().id() == fresh.id())) {
                return rt;
            }
            old[0] = rt;
            if (fresh == null) {
                return null;
            }
            DestinationRuntime replacement = new DestinationRuntime(engine, fresh);
            runtimesById.put(fresh.id(), replacement);
            return replacement;
        });
        if (old[0] != null) {
            runtimesById.remove(old[0].info().id(), old[0]);
            old[0].refresh(old[0].info()); // wakes its waiting consumers
            LOG.info(
                    "{} - {} {} (id {}) {}",
                    instanceId,
                    old[0].info().kind(),
                    name,
                    old[0].info().id(),
                    fresh == null ? "was dropped" : "was re-created as id " + fresh.id());
        } else if (now != null && fresh != null) {
            now.refresh(fresh);
        }
    }

    /** Catalog changes from the {@link CatalogWatcher}: the in-memory state follows. */
    private final class CatalogChanges implements CatalogWatcher.Listener {
        @Override
        public void changed(String name, Optional<DestinationInfo> fresh) {
            apply(name, fresh.orElse(null));
            stats.recordCatalogChange();
        }

        @Override
        public void reloaded(List<DestinationInfo> all) {
            Map<String, DestinationInfo> byName =
                    all.stream().collect(Collectors.toMap(DestinationInfo::name, Function.identity()));
            for (String name : List.copyOf(runtimes.keySet())) {
                apply(name, byName.get(name));
            }
        }
    }

    /**
     * A migration that failed (Flyway's exception) as a ShardQ one: {@link ErrorKind#SECURITY}
     * when the role lacks privileges (SQLSTATE 42501), naming the role and the server's reason.
     */
    private static ShardQException schemaFailure(RuntimeException e, String role) {
        boolean privileges = false;
        String reason = e.getMessage();
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof java.sql.SQLException se) {
                privileges |= "42501".equals(se.getSQLState());
                reason = se instanceof org.postgresql.util.PSQLException p && p.getServerErrorMessage() != null
                        ? p.getServerErrorMessage().getMessage()
                        : se.getMessage();
            }
        }
        String message = "cannot prepare the shardq schema as PostgreSQL role \"" + role + "\": "
                + io.shardq.broker.message.Texts.cut(String.valueOf(reason), 300)
                + (privileges
                        ? " (grant the role CREATE on the database, or run `shardq migrate` as a role that may,"
                                + " then set shardq.migrate-on-start=false)"
                        : "");
        return new ShardQException(privileges ? ErrorKind.SECURITY : ErrorKind.DATABASE, message, e);
    }

    /** How long an instance without a heartbeat still counts as alive, in whole seconds (the lease TTL). */
    private int aliveSeconds() {
        return (int) Math.max(1, (settings.leaseTtlMillis() + 999) / 1000);
    }

    private final java.util.concurrent.atomic.AtomicLong nonDurableIds = new java.util.concurrent.atomic.AtomicLong();

    private io.shardq.broker.shard.Subscription subscribe(DestinationRuntime topic, SubscriptionSpec spec) {
        checkOpen();
        String selector = spec.selector() == null || spec.selector().isBlank() ? null : spec.selector();
        if (selector != null) {
            Selector.compile(selector); // refused here with the parser's reason, not at publish
        }
        String name = spec.kind() == SubscriptionSpec.Kind.NON_DURABLE
                ? "~" + instanceId + "." + nonDurableIds.incrementAndGet() + "." + java.util.UUID.randomUUID()
                : spec.name();
        if (spec.kind() == SubscriptionSpec.Kind.DURABLE
                && (spec.clientId() == null || spec.clientId().isEmpty())) {
            throw new ShardQException(
                    ErrorKind.ILLEGAL_STATE,
                    "an unshared durable subscription needs a client id: set one on the connection");
        }
        if (name == null) {
            throw new ShardQException(ErrorKind.INVALID_ARGUMENT, "a " + spec.kind() + " subscription needs a name");
        }
        io.shardq.broker.message.Texts.requireEncodable(name, "the subscription name");
        String clientId = spec.kind() == SubscriptionSpec.Kind.NON_DURABLE ? null : spec.clientId();
        long id;
        int bit;
        try (Connection c = borrowConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get("subscription_subscribe"))) {
            ps.setString(1, topic.info().name());
            ps.setString(2, name);
            ps.setString(3, clientId);
            ps.setString(4, selector);
            ps.setBoolean(5, spec.kind().shared());
            ps.setBoolean(6, spec.kind().durable());
            ps.setBoolean(7, spec.noLocal());
            ps.setLong(8, instanceId);
            ps.setString(9, spec.connectionId());
            ps.setInt(10, aliveSeconds());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                id = rs.getLong(1);
                bit = rs.getInt(2);
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "subscribing to " + topic.info().name());
        }
        // our own next publish stamps with the new subscription without waiting for the NOTIFY
        apply(topic.info().name(), catalog.reload(topic.info().name()).orElse(null));
        DestinationRuntime rt = runtimes.getOrDefault(topic.info().name(), topic);
        return rt.topicSubscription(id, bit);
    }

    private void consumerClosed(io.shardq.broker.shard.Subscription sub) {
        boolean deleted;
        try (Connection c = borrowConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get("subscription_consumer_closed"))) {
            ps.setLong(1, sub.id());
            ps.setLong(2, instanceId);
            ps.setInt(3, aliveSeconds());
            try (ResultSet rs = ps.executeQuery()) {
                deleted = rs.next() && rs.getBoolean(1);
            }
        } catch (SQLException | RuntimeException e) {
            // the count is corrected when this instance stops or dies (reap_subscriptions)
            LOG.warn(
                    "{} - could not record a closed consumer of subscription {}: {}",
                    instanceId,
                    sub.id(),
                    e.getMessage());
            return;
        }
        if (deleted) {
            String name = sub.destinationName();
            sub.dropped();
            apply(name, catalog.reload(name).orElse(null));
        }
    }

    /**
     * Deletes the durable subscription (client id, name), as JMS {@code Session.unsubscribe}:
     * refused while it has an active consumer on any instance ({@link ErrorKind#ILLEGAL_STATE}),
     * {@link ErrorKind#UNKNOWN_DESTINATION} when there is none.
     */
    public void unsubscribe(String clientId, String name) {
        checkOpen();
        try (Connection c = borrowConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get("subscription_unsubscribe"))) {
            ps.setString(1, clientId);
            ps.setString(2, name);
            ps.setInt(3, aliveSeconds());
            ps.execute();
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "unsubscribing " + name);
        }
    }

    /** Longest JMS client id, in characters. */
    public static final int MAX_CLIENT_ID = 256;

    /**
     * Takes a JMS client id for one connection, unique across every instance on the database: it
     * is free, or held by a dead instance. Returns the token to release it with; fails with
     * {@link ErrorKind#CLIENT_ID_IN_USE} when another live connection holds it, or {@link
     * ErrorKind#INVALID_ARGUMENT} for an id that is blank, too long or not storable as text.
     */
    public String claimClientId(String clientId) {
        if (clientId == null || clientId.isBlank() || clientId.length() > MAX_CLIENT_ID) {
            throw new ShardQException(
                    ErrorKind.INVALID_ARGUMENT,
                    "client id must be 1 to " + MAX_CLIENT_ID + " characters, not blank"
                            + (clientId == null ? "" : " (got " + clientId.length() + ")"));
        }
        try {
            io.shardq.broker.message.Texts.requireEncodable(clientId, "the client id");
        } catch (IllegalArgumentException e) {
            throw new ShardQException(ErrorKind.INVALID_ARGUMENT, e.getMessage());
        }
        java.util.UUID token = java.util.UUID.randomUUID();
        try (Connection c = database.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get("client_id_claim"))) {
            ps.setString(1, clientId);
            ps.setLong(2, instanceId);
            ps.setObject(3, token);
            ps.setDouble(4, settings.leaseTtlMillis() / 1000.0);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new ShardQException(
                            ErrorKind.CLIENT_ID_IN_USE,
                            "client id \"" + io.shardq.broker.message.Texts.quote(clientId)
                                    + "\" is in use by another connection");
                }
            }
            return token.toString();
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "taking client id");
        }
    }

    /** Gives back a client id taken by {@link #claimClientId}; quiet if it is gone already. */
    public void releaseClientId(String clientId, String token) {
        try (Connection c = database.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get("client_id_release"))) {
            ps.setString(1, clientId);
            ps.setObject(2, java.util.UUID.fromString(token));
            ps.executeUpdate();
        } catch (SQLException | RuntimeException e) {
            LOG.warn("{} - could not release client id: {}", instanceId, e.getMessage());
        }
    }

    // ---------------------------------------------------------------- temporary destinations

    /**
     * Creates a temporary destination ({@code queue} or {@code topic}) owned by the connection
     * {@code owner} of this instance: a generated name beginning with {@code tmp.}, one shard.
     * Any instance may send to it by name; it is dropped by {@link #dropTemporary}, by {@link
     * #close()}, or by the maintenance leader once this instance is dead. Who may consume from it
     * is for the caller to enforce (the JMS layer: only the owning connection).
     */
    public DestinationInfo createTemporary(String kind, java.util.UUID owner) {
        checkOpen();
        if (!"queue".equals(kind) && !"topic".equals(kind)) {
            throw new ShardQException(
                    ErrorKind.INVALID_ARGUMENT, "kind \"" + kind + "\" is invalid: expected queue or topic");
        }
        String name = temporaries.create(kind, java.util.Objects.requireNonNull(owner, "owner"));
        return admin.require(name);
    }

    /**
     * Drops the temporary destination {@code name} and its messages if the connection {@code
     * owner} owns it; fails with {@link ErrorKind#SECURITY} when another connection does, {@link
     * ErrorKind#ILLEGAL_STATE} when it is not temporary, {@link ErrorKind#UNKNOWN_DESTINATION} when
     * it does not exist. Waits for a sender's open transaction on it to end.
     */
    public void dropTemporary(String name, java.util.UUID owner) {
        checkOpen();
        Names.checkDestination(name);
        temporaries.drop(name, java.util.Objects.requireNonNull(owner, "owner"), 0);
        forget(name);
    }

    /** The connection owning the temporary destination {@code name}; empty when it is not one (or gone). */
    public Optional<java.util.UUID> temporaryOwner(String name) {
        checkOpen();
        return temporaries.owner(Names.checkDestination(name));
    }

    /** At close: the temporary destinations of connections not closed; what fails is left to the leader. */
    private void dropOwnTemporaries() {
        try {
            for (String name : temporaries.ofThisInstance()) {
                try {
                    temporaries.drop(name, null, config.getInt(BrokerProperty.MAINTENANCE_LOCK_TIMEOUT_MS));
                } catch (RuntimeException e) {
                    LOG.warn(
                            "{} - temporary destination {} left to the maintenance leader: {}",
                            instanceId,
                            name,
                            e.getMessage());
                }
            }
        } catch (RuntimeException e) {
            LOG.warn("{} - temporary destinations left to the maintenance leader: {}", instanceId, e.getMessage());
        }
    }

    /** The PostgreSQL role this instance's pool logs in as. */
    public String databaseUser() {
        return database.user();
    }

    /**
     * What {@code user} may do with destinations, as PostgreSQL says (see {@link RoleAccess}): full
     * rights for null or this instance's own role, otherwise a per-destination check cached for
     * {@link BrokerProperty#GRANT_CACHE_MS}. Call {@link #authenticate} first.
     */
    public RoleAccess access(String user) {
        if (user == null || user.equals(database.user())) {
            return RoleAccess.full();
        }
        long ttlNanos =
                java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(config.getInt(BrokerProperty.GRANT_CACHE_MS));
        return new RoleAccess(user, database.dataSource(), ttlNanos, System::nanoTime);
    }

    /**
     * Checks a login (user and password) against PostgreSQL, on this instance's server; fails with
     * {@link ErrorKind#SECURITY} naming the user. See {@code Database.authenticate}.
     */
    public void authenticate(String user, String password) {
        database.authenticate(user, password);
    }

    /** True while this instance is the elected maintenance leader (retirement, spare slots). */
    private void leadershipChanged(boolean nowLeader) {
        maintainer.leadershipChanged(nowLeader);
        ScheduledMover mover = scheduledMover; // null while the constructor runs
        if (mover != null) {
            mover.leadershipChanged(nowLeader);
        }
    }

    public boolean isMaintenanceLeader() {
        return elector.isLeader();
    }

    /** Leaves vacuumed after rolled-back sends (see {@code DeadRowReclaimer}). */
    public long deadRowVacuums() {
        return reclaimer.vacuums();
    }

    private boolean otherInstancesAlive() {
        return heartbeat.aliveInstances() > 1;
    }

    private int fairShare(int shards) {
        return (int) Math.ceil((double) shards / Math.max(1, heartbeat.aliveInstances()));
    }

    private void wake(int destinationId) {
        DestinationRuntime rt = runtimesById.get(destinationId);
        if (rt != null) {
            rt.subscriptions().forEach(sub -> sub.onWake());
        }
    }

    /**
     * This instance as the engine's own packages see it (runtimes, cache, settings, connections).
     * Not API: the modules built on the engine may not use it, and the build checks that
     * ({@code ApiBoundary}); the engine's tests do.
     */
    public Engine engine() {
        return engine;
    }

    /** The {@link Engine} view of this instance, kept off the public API. */
    private final class Core implements Engine {
        @Override
        public DataSource dataSource() {
            return database.dataSource();
        }

        @Override
        public Clock clock() {
            return clock;
        }

        @Override
        public void scheduled(long earliestDeliverAt) {
            scheduledMover.scheduled(earliestDeliverAt);
        }

        @Override
        public io.shardq.broker.delay.DelayedNonPersistent delayedNonPersistent() {
            return delayedNonPersistent;
        }

        @Override
        public io.shardq.broker.shard.Subscription subscribe(DestinationRuntime topic, SubscriptionSpec spec) {
            return Broker.this.subscribe(topic, spec);
        }

        @Override
        public void unsubscribed(io.shardq.broker.shard.Subscription subscription) {
            Broker.this.consumerClosed(subscription);
        }

        @Override
        public void lastConsumerClosed(io.shardq.broker.shard.Subscription subscription) {
            leaseBalancer.trigger();
        }

        @Override
        public Connection borrowConnection() throws SQLException {
            return Broker.this.borrowConnection();
        }

        @Override
        public io.shardq.broker.shard.PreparedTransactions preparedTransactions() {
            return prepared;
        }

        @Override
        public boolean reserveNonPersistent(BrokerMessage m, boolean force) {
            return Broker.this.reserveNonPersistent(m, force);
        }

        @Override
        public void releaseNonPersistent(BrokerMessage m) {
            Broker.this.releaseNonPersistent(m);
        }

        @Override
        public MessageCache cache() {
            return cache;
        }

        @Override
        public EngineStats stats() {
            return stats;
        }

        @Override
        public long instanceId() {
            return instanceId;
        }

        @Override
        public DestinationRuntime runtime(String name, boolean createIfMissing) {
            return Broker.this.runtime(name, createIfMissing);
        }

        @Override
        public DestinationRuntime deadLetterRuntime(String name) {
            return Broker.this.deadLetterRuntime(name);
        }

        @Override
        public java.util.Collection<DestinationRuntime> runtimes() {
            return runtimes.values();
        }

        @Override
        public boolean otherInstancesAlive() {
            return Broker.this.otherInstancesAlive();
        }

        @Override
        public int fairShare(int shards) {
            return Broker.this.fairShare(shards);
        }

        @Override
        public long fleetVersion() {
            return heartbeat.fleetVersion();
        }

        @Override
        public int otherProducers(int id) {
            return heartbeat.otherProducers(id);
        }

        @Override
        public Settings settings() {
            return settings;
        }

        @Override
        public void cursorCommitted(DestinationInfo destination, int shard, long from, long to) {
            maintainer.cursorCommitted(destination, shard, from, to);
        }

        @Override
        public void sendsRolledBack(DestinationInfo destination, int shard) {
            reclaimer.sendsRolledBack(destination.id(), shard);
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new ShardQException(ErrorKind.ILLEGAL_STATE, "the ShardQ instance " + instanceId + " is closed");
        }
    }

    public boolean isClosed() {
        return closed;
    }

    /** Stops the services, gives back leases, deregisters and closes the pool. Safe twice. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        // accepted write-behind writes first, while everything they need still runs
        kvFlusher.stop();
        scheduledMover.stop();
        delayedNonPersistent.stop(); // non-persistent: what is not due yet is lost with the instance
        // the elector next: it resigns, and a follower takes over while we finish
        elector.stop();
        reaper.stop();
        kvMaintainer.stop();
        kvToucher.stop();
        maintainer.stop();
        reclaimer.stop();
        catalogWatcher.stop();
        waker.stop();
        leaseBalancer.stop();
        heartbeat.stop();
        try (Connection c = database.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get("client_id_release_instance"))) {
            ps.setLong(1, instanceId);
            ps.executeUpdate();
        } catch (SQLException | RuntimeException e) {
            LOG.warn("{} - could not release its client ids: {}", instanceId, e.getMessage());
        }
        dropOwnTemporaries();
        try {
            heartbeat.deregister();
        } catch (RuntimeException e) {
            LOG.warn("{} - could not deregister cleanly: {}", instanceId, e.getMessage());
        }
        database.close();
        LOG.info("{} - ShardQ instance stopped", instanceId);
    }
}
