package io.shardq.broker;

import io.shardq.broker.browse.BrowseCursor;
import io.shardq.broker.browse.BrowsedMessage;
import io.shardq.broker.cache.MessageCache;
import io.shardq.broker.catalog.Catalog;
import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.kv.Codec;
import io.shardq.broker.kv.KvCache;
import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.selector.Selector;
import io.shardq.broker.shard.BrokerSession;
import io.shardq.broker.shard.DestinationRuntime;
import io.shardq.broker.shard.Engine;
import io.shardq.broker.shard.EngineStats;
import io.shardq.broker.store.Database;
import java.sql.Connection;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
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
 *
 * <p>This class is the facade; the parts it is made of are package private: {@code BrokerCore}
 * (the {@link Engine} view the engine's packages reach through), {@code InstanceStart} (schema
 * and registration), {@code BrokerServices} (builds, starts and stops the background services),
 * {@code Destinations} (the runtimes of the destinations it serves, kept in line with the
 * catalog) and {@code Subscriptions} (topic subscriptions and JMS client ids). Two-phase commit
 * and temporary destinations have facades of their own ({@link #xa()}, {@link #temporaries()}).
 */
public final class Broker implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Broker.class);

    private final BrokerConfig config;
    private final Database database;
    private final long instanceId;
    private final Catalog catalog;
    private final Admin admin;
    private final MessageCache cache;
    private final EngineStats stats = new EngineStats();
    /** This instance as the engine's packages see it; not API. */
    private final BrokerCore core;

    private final Destinations destinations;
    private final Subscriptions subscriptions;
    private final BrokerServices services;
    private final TwoPhaseCommit xa;
    private final Temporaries temporaries;

    private final Clock clock;
    private volatile boolean closed;

    private Broker(BrokerConfig config, Clock clock) {
        this.config = config;
        this.clock = clock;
        this.database = Database.open(config, "shardq-pool");
        InstanceStart.Registered registered;
        try {
            registered = InstanceStart.migrateAndRegister(config, database);
        } catch (RuntimeException e) {
            database.close();
            throw e;
        }
        this.instanceId = registered.id();
        if (registered.citus()) {
            // the connections opened before the migration lack the database settings it made
            // (citus.multi_shard_modify_mode: R__shardq_citus.sql)
            database.renewConnections();
        }
        this.catalog = new Catalog(database.dataSource());
        // this instance's own changes apply at once; other instances' arrive by NOTIFY
        this.admin = new Admin(database.dataSource(), catalog, this::changed);
        this.cache = new MessageCache(
                config.getInt(BrokerProperty.CACHE_MAX_BYTES), config.getInt(BrokerProperty.CACHE_LARGE_PAYLOAD_BYTES));
        this.core =
                new BrokerCore(config, database, clock, instanceId, registered.citus(), cache, stats, this::checkOpen);
        this.destinations = new Destinations(config, core, catalog, admin, stats, instanceId, this::checkOpen);
        this.subscriptions = new Subscriptions(core, database.dataSource(), destinations);
        this.services = new BrokerServices(
                config,
                clock,
                database.dataSource(),
                instanceId,
                catalog,
                core,
                stats,
                destinations.all(),
                destinations.byId(),
                this::forget,
                () -> openSession(BrokerSession.Mode.TRANSACTED),
                destinations.new CatalogChanges());
        core.wire(destinations, subscriptions, services);
        this.xa = new TwoPhaseCommit(core, this::checkOpen);
        this.temporaries = new Temporaries(services.temporaries, admin, this::forget, this::checkOpen);
        admin.scheduledInMemory(services.delayedNonPersistent::heldFor);
        admin.caches(services.kvCaches);
        services.start();
        LOG.info("{} - ShardQ instance started on {}", instanceId, database.displayUrl());
    }

    /** This instance changed destination {@code name}: its runtime follows the catalog at once. */
    private void changed(String name) {
        destinations.apply(name);
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

    public BrokerConfig config() {
        return config;
    }

    public Admin admin() {
        return admin;
    }

    /** A session that commits through its own pooled connection. */
    public BrokerSession openSession(BrokerSession.Mode mode) {
        checkOpen();
        return new BrokerSession(core, mode, null);
    }

    /** Two-phase commit (XA): its sessions and the decisions on prepared transactions. */
    public TwoPhaseCommit xa() {
        return xa;
    }

    /** Temporary destinations of this instance's connections. */
    public Temporaries temporaries() {
        return temporaries;
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
        return new BrokerSession(core, BrokerSession.Mode.TRANSACTED, connection, awaitsOutcome, false);
    }

    /**
     * A view of the key/value cache {@code name} (made by {@link CacheAdmin#create}) with these
     * codecs; operations run on their own until bound with {@link KvCache#in} or {@link KvCache#on}.
     * Throws {@code UNKNOWN_CACHE} naming it when there is no such cache.
     */
    public <K, V> KvCache<K, V> cache(String name, Codec<K> keys, Codec<V> values) {
        checkOpen();
        return services.kvCaches.open(name, keys, values);
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
        DestinationRuntime rt = destinations.get(destination);
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
        return destinations.all().stream()
                .map(DestinationRuntime::counters)
                .sorted(java.util.Comparator.comparing(DestinationCounters::name))
                .toList();
    }

    /** What this instance counted for {@code name}; empty when it does not serve it (see above). */
    public Optional<DestinationCounters> destinationCounters(String name) {
        DestinationRuntime rt = destinations.get(name);
        return rt == null ? Optional.empty() : Optional.of(rt.counters());
    }

    /** This instance's id ({@code shardq.instance.id}). */
    public long instanceId() {
        return instanceId;
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
        return destinations.runtime(name, createIfMissing).info();
    }

    /**
     * As {@link #requireDestination(String, boolean)} for a destination of {@code kind} ({@code
     * queue} or {@code topic}): a missing one is created of that kind, and one of the other kind is
     * refused ({@link ErrorKind#INVALID_ARGUMENT}, naming both).
     */
    public DestinationInfo requireDestination(String name, boolean createIfMissing, String kind) {
        return destinations.require(name, createIfMissing, kind);
    }

    /** Forgets a destination that was dropped. */
    public void forget(String name) {
        destinations.forget(name);
    }

    /**
     * Deletes the durable subscription (client id, name), as JMS {@code Session.unsubscribe}:
     * refused while it has an active consumer on any instance ({@link ErrorKind#ILLEGAL_STATE}),
     * {@link ErrorKind#UNKNOWN_DESTINATION} when there is none.
     */
    public void unsubscribe(String clientId, String name) {
        checkOpen();
        subscriptions.unsubscribe(clientId, name);
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
        return subscriptions.claimClientId(clientId);
    }

    /** Gives back a client id taken by {@link #claimClientId}; quiet if it is gone already. */
    public void releaseClientId(String clientId, String token) {
        subscriptions.releaseClientId(clientId, token);
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
    public boolean isMaintenanceLeader() {
        return services.isMaintenanceLeader();
    }

    /** Leaves vacuumed after rolled-back sends (see {@code DeadRowReclaimer}). */
    public long deadRowVacuums() {
        return services.reclaimer.vacuums();
    }

    /** The engine's view of this instance; package private (the engine's tests reach it through {@code Engines}). */
    BrokerCore core() {
        return core;
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
        core.closing();
        services.stop();
        subscriptions.releaseClientIds();
        services.temporaries.dropAllOfThisInstance(config.getInt(BrokerProperty.MAINTENANCE_LOCK_TIMEOUT_MS));
        try {
            services.heartbeat.deregister();
        } catch (RuntimeException e) {
            LOG.warn("{} - could not deregister cleanly: {}", instanceId, e.getMessage());
        }
        database.close();
        LOG.info("{} - ShardQ instance stopped", instanceId);
    }
}
