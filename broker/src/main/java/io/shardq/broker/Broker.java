package io.shardq.broker;

import io.shardq.broker.browse.BrowseCursor;
import io.shardq.broker.browse.BrowsedMessage;
import io.shardq.broker.cache.MessageCache;
import io.shardq.broker.catalog.Catalog;
import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.catalog.Names;
import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.SqlErrors;
import io.shardq.broker.kv.Codec;
import io.shardq.broker.kv.KvCache;
import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.selector.Selector;
import io.shardq.broker.shard.BrokerSession;
import io.shardq.broker.shard.DestinationRuntime;
import io.shardq.broker.shard.Engine;
import io.shardq.broker.shard.EngineStats;
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
 * <p>This class is the facade and the {@link Engine} view; the parts it is made of are package
 * private: {@code BrokerServices} (builds, starts and stops the background services), {@code
 * Destinations} (the runtimes of the destinations it serves, kept in line with the catalog) and
 * {@code Subscriptions} (topic subscriptions and JMS client ids).
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
    private final Destinations destinations;
    private final Subscriptions subscriptions;
    private final BrokerServices services;

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
        this.admin = new Admin(database.dataSource(), catalog, this::changed);
        this.cache = new MessageCache(
                config.getInt(BrokerProperty.CACHE_MAX_BYTES), config.getInt(BrokerProperty.CACHE_LARGE_PAYLOAD_BYTES));
        this.settings = BrokerServices.engineSettings(config);
        this.destinations = new Destinations(config, engine, catalog, admin, stats, instanceId, this::checkOpen);
        this.subscriptions = new Subscriptions(engine, database.dataSource(), destinations);
        this.services = new BrokerServices(
                config,
                clock,
                database.dataSource(),
                instanceId,
                catalog,
                engine,
                stats,
                destinations.all(),
                destinations.byId(),
                this::forget,
                () -> openSession(BrokerSession.Mode.TRANSACTED),
                destinations.new CatalogChanges());
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

    private io.shardq.broker.shard.Subscription subscribe(DestinationRuntime topic, SubscriptionSpec spec) {
        checkOpen();
        return subscriptions.subscribe(topic, spec);
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
        String name = services.temporaries.create(kind, java.util.Objects.requireNonNull(owner, "owner"));
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
        services.temporaries.drop(name, java.util.Objects.requireNonNull(owner, "owner"), 0);
        forget(name);
    }

    /** The connection owning the temporary destination {@code name}; empty when it is not one (or gone). */
    public Optional<java.util.UUID> temporaryOwner(String name) {
        checkOpen();
        return services.temporaries.owner(Names.checkDestination(name));
    }

    /** At close: the temporary destinations of connections not closed; what fails is left to the leader. */
    private void dropOwnTemporaries() {
        try {
            for (String name : services.temporaries.ofThisInstance()) {
                try {
                    services.temporaries.drop(name, null, config.getInt(BrokerProperty.MAINTENANCE_LOCK_TIMEOUT_MS));
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
    public boolean isMaintenanceLeader() {
        return services.isMaintenanceLeader();
    }

    /** Leaves vacuumed after rolled-back sends (see {@code DeadRowReclaimer}). */
    public long deadRowVacuums() {
        return services.reclaimer.vacuums();
    }

    private boolean otherInstancesAlive() {
        return services.heartbeat.aliveInstances() > 1;
    }

    private int fairShare(int shards) {
        return (int) Math.ceil((double) shards / Math.max(1, services.heartbeat.aliveInstances()));
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
            services.scheduledMover.scheduled(earliestDeliverAt);
        }

        @Override
        public io.shardq.broker.delay.DelayedNonPersistent delayedNonPersistent() {
            return services.delayedNonPersistent;
        }

        @Override
        public io.shardq.broker.shard.Subscription subscribe(DestinationRuntime topic, SubscriptionSpec spec) {
            return Broker.this.subscribe(topic, spec);
        }

        @Override
        public void unsubscribed(io.shardq.broker.shard.Subscription subscription) {
            subscriptions.consumerClosed(subscription);
        }

        @Override
        public void lastConsumerClosed(io.shardq.broker.shard.Subscription subscription) {
            services.leaseBalancer.trigger();
            services.queueConsumers.trigger();
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
            return destinations.runtime(name, createIfMissing);
        }

        @Override
        public DestinationRuntime deadLetterRuntime(String name) {
            return destinations.deadLetterRuntime(name);
        }

        @Override
        public java.util.Collection<DestinationRuntime> runtimes() {
            return destinations.all();
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
            return services.heartbeat.fleetVersion();
        }

        @Override
        public int otherProducers(int id) {
            return services.heartbeat.otherProducers(id);
        }

        @Override
        public Settings settings() {
            return settings;
        }

        private final io.shardq.broker.shard.SendCommitter sendCommitter =
                new io.shardq.broker.shard.SendCommitter(this);

        @Override
        public io.shardq.broker.shard.SendCommitter sendCommitter() {
            return sendCommitter;
        }

        @Override
        public void cursorCommitted(DestinationInfo destination, int shard, long from, long to) {
            services.maintainer.cursorCommitted(destination, shard, from, to);
        }

        @Override
        public void sendsRolledBack(DestinationInfo destination, int shard) {
            services.reclaimer.sendsRolledBack(destination.id(), shard);
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
        services.stop();
        subscriptions.releaseClientIds();
        dropOwnTemporaries();
        try {
            services.heartbeat.deregister();
        } catch (RuntimeException e) {
            LOG.warn("{} - could not deregister cleanly: {}", instanceId, e.getMessage());
        }
        database.close();
        LOG.info("{} - ShardQ instance stopped", instanceId);
    }
}
