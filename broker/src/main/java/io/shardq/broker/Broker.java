package io.shardq.broker;

import io.shardq.broker.browse.BrowseCursor;
import io.shardq.broker.browse.BrowsedMessage;
import io.shardq.broker.cache.MessageCache;
import io.shardq.broker.catalog.Catalog;
import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.catalog.Names;
import io.shardq.broker.instance.Waker;
import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.SqlErrors;
import io.shardq.broker.selector.Selector;
import io.shardq.broker.shard.BrokerSession;
import io.shardq.broker.shard.DestinationRuntime;
import io.shardq.broker.shard.Engine;
import io.shardq.broker.shard.EngineStats;
import io.shardq.broker.shard.Heartbeat;
import io.shardq.broker.slice.SliceRetirer;
import io.shardq.broker.store.Database;
import io.shardq.sql.Migrations;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One ShardQ instance: a connection pool, a message cache, the destinations it serves and its
 * background services (heartbeat with lease renewal and slice retirement, wake-up listener).
 * Every JMS connection factory owns one. No JMS types here: the JMS layer translates.
 */
public final class Broker implements AutoCloseable, Engine {
    private static final Logger LOG = LoggerFactory.getLogger(Broker.class);

    private final BrokerConfig config;
    private final Database database;
    private final long instanceId;
    private final Catalog catalog;
    private final Admin admin;
    private final MessageCache cache;
    private final EngineStats stats = new EngineStats();
    private final Settings settings;
    private final boolean autoCreate;
    private final int defaultShards;
    private final Map<String, DestinationRuntime> runtimes = new ConcurrentHashMap<>();
    private final Map<Integer, DestinationRuntime> runtimesById = new ConcurrentHashMap<>();
    private final ScheduledExecutorService scheduler;
    private final Waker waker;
    private final Heartbeat heartbeat;
    private volatile boolean closed;

    private Broker(BrokerConfig config) {
        this.config = config;
        this.database = Database.open(config, "shardq-pool");
        try {
            if (config.getBoolean(BrokerProperty.MIGRATE_ON_START)) {
                Migrations.migrate(database.dataSource());
            }
            this.instanceId = register(config);
        } catch (RuntimeException e) {
            database.close();
            throw e;
        }
        this.catalog = new Catalog(database.dataSource());
        this.admin = new Admin(database.dataSource(), catalog);
        this.cache = new MessageCache(
                config.getInt(BrokerProperty.CACHE_MAX_BYTES), config.getInt(BrokerProperty.CACHE_LARGE_PAYLOAD_BYTES));
        this.settings = new Settings(
                config.getInt(BrokerProperty.READ_AHEAD),
                config.getInt(BrokerProperty.POLL_MAX_MS),
                config.getInt(BrokerProperty.ENQUEUE_MAX_BATCH),
                config.getInt(BrokerProperty.LEASE_TTL_MS),
                config.getInt(BrokerProperty.HEARTBEAT_MS));
        this.autoCreate = config.getBoolean(BrokerProperty.AUTO_CREATE_DESTINATIONS);
        this.defaultShards = config.getInt(BrokerProperty.DEFAULT_SHARDS);
        String prefix = "shardq-" + instanceId;
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, prefix + "-heartbeat-1");
            t.setDaemon(true);
            return t;
        });
        SliceRetirer retirer = new SliceRetirer(database.dataSource(), new SliceRetirer.Listener() {
            @Override
            public void retired(DestinationInfo destination, int shard, long firstSeq) {
                stats.recordSliceRetired();
                DestinationRuntime rt = runtimesById.get(destination.id());
                if (rt != null) {
                    rt.forgetSlice(shard, firstSeq);
                }
            }

            @Override
            public void blocked(String description) {
                stats.recordRetireBlocked(description);
            }
        });
        this.heartbeat = new Heartbeat(this, catalog, retirer, runtimes.values());
        this.waker = new Waker(database.dataSource(), this::wake, prefix + "-waker-1");
        waker.start();
        scheduler.scheduleWithFixedDelay(
                heartbeat::beat, settings.heartbeatMillis(), settings.heartbeatMillis(), TimeUnit.MILLISECONDS);
        LOG.info("{} - ShardQ instance started on {}", instanceId, database.displayUrl());
    }

    /** Starts an instance: opens the pool, migrates the schema (unless turned off), registers. */
    public static Broker start(BrokerConfig config) {
        return new Broker(config);
    }

    private long register(BrokerConfig config) {
        String name = config.get(BrokerProperty.INSTANCE_NAME);
        if (name.isBlank()) {
            name = ManagementFactory.getRuntimeMXBean().getName();
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

    public BrokerConfig config() {
        return config;
    }

    public Admin admin() {
        return admin;
    }

    /** A session that commits through its own pooled connection. */
    public BrokerSession openSession(BrokerSession.Mode mode) {
        checkOpen();
        return new BrokerSession(this, mode, null);
    }

    /**
     * A session that works inside an application-managed transaction on {@code connection}: it
     * writes there and never commits or rolls back; the application does.
     */
    public BrokerSession openSession(Connection connection) {
        checkOpen();
        return new BrokerSession(this, BrokerSession.Mode.TRANSACTED, connection);
    }

    /**
     * Opens a lazy browse cursor on a queue: waiting messages up to the shards' current heads,
     * oldest first, filtered by {@code selector} (null: all), memory bounded by {@code options}.
     * See {@link BrowseCursor} for the order and what is shown.
     */
    public BrowseCursor browse(String destination, Selector selector, BrowseCursor.Options options) {
        checkOpen();
        DestinationInfo d = admin.require(destination);
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

    @Override
    public DataSource dataSource() {
        return database.dataSource();
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
    public Settings settings() {
        return settings;
    }

    @Override
    public DestinationRuntime deadLetterRuntime(String name) {
        if (!runtimes.containsKey(name) && catalog.find(name).isEmpty()) {
            admin.createOrGet(name, QueueOptions.DEFAULTS.withShards(defaultShards));
        }
        return runtime(name, false);
    }

    @Override
    public DestinationRuntime runtime(String name, boolean createIfMissing) {
        checkOpen();
        DestinationRuntime rt = runtimes.get(name);
        if (rt != null) {
            return rt;
        }
        Names.checkDestination(name);
        DestinationInfo info = catalog.find(name).orElse(null);
        if (info == null) {
            if (!createIfMissing || !autoCreate) {
                throw new ShardQException(
                        ErrorKind.UNKNOWN_DESTINATION,
                        "queue \"" + name + "\" does not exist"
                                + (autoCreate
                                        ? ""
                                        : " (automatic creation is off: shardq.auto-create-destinations=false)"));
            }
            info = admin.createOrGet(name, QueueOptions.DEFAULTS.withShards(defaultShards));
        }
        DestinationInfo found = info;
        return runtimes.computeIfAbsent(name, n -> {
            DestinationRuntime created = new DestinationRuntime(this, found);
            runtimesById.put(found.id(), created);
            return created;
        });
    }

    /** Forgets a destination that was dropped. */
    public void forget(String name) {
        DestinationRuntime rt = runtimes.remove(name);
        if (rt != null) {
            runtimesById.remove(rt.info().id());
        }
        catalog.forget(name);
    }

    @Override
    public boolean otherInstancesAlive() {
        return heartbeat.aliveInstances() > 1;
    }

    @Override
    public int fairShare(int shards) {
        return (int) Math.ceil((double) shards / Math.max(1, heartbeat.aliveInstances()));
    }

    private void wake(int destinationId) {
        DestinationRuntime rt = runtimesById.get(destinationId);
        if (rt != null) {
            rt.onWake();
        }
    }

    public Collection<DestinationRuntime> runtimes() {
        return runtimes.values();
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
        scheduler.shutdownNow();
        try {
            scheduler.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        waker.stop();
        try {
            heartbeat.deregister();
        } catch (RuntimeException e) {
            LOG.warn("{} - could not deregister cleanly: {}", instanceId, e.getMessage());
        }
        database.close();
        LOG.info("{} - ShardQ instance stopped", instanceId);
    }
}
