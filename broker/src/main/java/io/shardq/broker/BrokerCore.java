package io.shardq.broker;

import io.shardq.broker.cache.MessageCache;
import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.delay.DelayedNonPersistent;
import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.shard.DestinationRuntime;
import io.shardq.broker.shard.Engine;
import io.shardq.broker.shard.EngineStats;
import io.shardq.broker.shard.PreparedTransactions;
import io.shardq.broker.shard.SendCommitter;
import io.shardq.broker.shard.Subscription;
import io.shardq.broker.store.Database;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Clock;
import java.util.Collection;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link Engine} view of one instance: what the engine's packages reach through (runtimes,
 * cache, settings, connections, the background services' hooks). Not API: {@link Broker} is the
 * public facade, and the modules built on the engine may not reach this (the build's {@code
 * ApiBoundary} check).
 *
 * <p>Made first, since the parts it serves are built with it: {@link #wire} gives it the
 * destinations, subscriptions and services once they exist, before the services start (nothing
 * calls into it before then).
 */
final class BrokerCore implements Engine {
    private static final Logger LOG = LoggerFactory.getLogger(Broker.class);

    private final BrokerConfig config;
    private final Database database;
    private final Clock clock;
    private final long instanceId;
    private final boolean citus;
    private final MessageCache cache;
    private final EngineStats stats;
    private final Settings settings;
    private final Runnable checkOpen;
    private final PreparedTransactions prepared = new PreparedTransactions(this);
    private final SendCommitter sendCommitter = new SendCommitter(this);

    private Destinations destinations;
    private Subscriptions subscriptions;
    private BrokerServices services;
    private volatile boolean closed;
    /** The server incarnation ({@link Database#incarnation}) this instance's state is of. */
    private volatile long servedIncarnation;

    BrokerCore(
            BrokerConfig config,
            Database database,
            Clock clock,
            long instanceId,
            boolean citus,
            MessageCache cache,
            EngineStats stats,
            Runnable checkOpen) {
        this.citus = citus;
        this.config = config;
        this.database = database;
        this.clock = clock;
        this.instanceId = instanceId;
        this.cache = cache;
        this.stats = stats;
        this.settings = BrokerServices.engineSettings(config);
        this.checkOpen = checkOpen;
    }

    void wire(Destinations destinations, Subscriptions subscriptions, BrokerServices services) {
        this.destinations = destinations;
        this.subscriptions = subscriptions;
        this.services = services;
    }

    void closing() {
        closed = true;
    }

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
    public DelayedNonPersistent delayedNonPersistent() {
        return services.delayedNonPersistent;
    }

    @Override
    public Subscription subscribe(DestinationRuntime topic, SubscriptionSpec spec) {
        checkOpen.run();
        return subscriptions.subscribe(topic, spec);
    }

    @Override
    public void unsubscribed(Subscription subscription) {
        subscriptions.consumerClosed(subscription);
    }

    @Override
    public void lastConsumerClosed(Subscription subscription) {
        services.leaseBalancer.trigger();
        services.queueConsumers.trigger();
    }

    /**
     * A pooled connection. An exhausted pool is {@code RESOURCE_EXHAUSTED} naming the settings.
     * When no connection can be made (PostgreSQL restarting, failing over, in recovery, or only
     * standbys reachable), the caller waits, retrying with back-off, until a primary accepts one,
     * for up to {@code shardq.failover.wait-ms}: nothing of its work was sent yet, so a promotion
     * that comes within the bound turns a failure into a delay. Past it: {@code CONNECTION}, with
     * the last reason PostgreSQL or the driver gave.
     */
    @Override
    public Connection borrowConnection() throws SQLException {
        // the bound is read only once a connection could not be had (not on every borrow)
        long waitMs = -1;
        long deadline = 0;
        long backoffMs = 50;
        while (true) {
            try {
                Connection c = database.dataSource().getConnection();
                if (database.incarnation() != servedIncarnation) {
                    serverChanged(c);
                }
                return c;
            } catch (SQLTransientConnectionException e) {
                if (closed) {
                    throw e;
                }
                if (e.getCause() == null) {
                    if (e.getMessage() == null || !e.getMessage().contains("not available")) {
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
                // the pool could not make a connection: the cause is PostgreSQL's or the driver's reason
                if (waitMs < 0) {
                    waitMs = Math.max(0, config.getInt(BrokerProperty.FAILOVER_WAIT_MS));
                    deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs);
                }
                if (System.nanoTime() - deadline >= 0) {
                    throw new ShardQException(
                            ErrorKind.CONNECTION,
                            "no writable PostgreSQL primary accepted a connection at " + database.displayUrl()
                                    + " within " + waitMs + " ms (" + BrokerProperty.FAILOVER_WAIT_MS.key()
                                    + "; restarting, failing over, in recovery, or only standbys reachable): "
                                    + io.shardq.broker.message.Texts.cut(
                                            String.valueOf(rootCause(e).getMessage()), 300),
                            e);
                }
                try {
                    Thread.sleep(backoffMs); // back-off between attempts, bounded by the deadline
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
                backoffMs = Math.min(1000, backoffMs * 2);
            }
        }
    }

    /**
     * The server changed since this instance last used it (a failover, a restart: {@code
     * Database.incarnation}). Before the connection that found out is used: every lease of this
     * instance gets a new acquisition number on the new server (a commit planned under the old one
     * fails its guard instead of moving a cursor past what the new server has), and everything held
     * in memory of the shards (leases, positions, heads, cached messages) and of the key/value
     * caches (near entries) is dropped, to be read again. On a server that lost nothing this costs
     * one re-read; on one that lost committed work (an asynchronous standby) it is what keeps the
     * instance from delivering, or skipping over, what the new server hands out again.
     */
    private synchronized void serverChanged(Connection c) throws SQLException {
        long seen = database.incarnation();
        if (seen == servedIncarnation) {
            return; // another borrower handled it
        }
        try (java.sql.PreparedStatement ps = c.prepareStatement(
                io.shardq.broker.internal.Queries.get(io.shardq.broker.internal.Query.CURSOR_LEASE_FENCE_ALL, citus))) {
            ps.setLong(1, instanceId);
            int fenced = io.shardq.broker.internal.Queries.executeCount(ps);
            for (DestinationRuntime rt : destinations.all()) {
                rt.serverChanged();
            }
            services.nearCaches.onListening();
            servedIncarnation = seen;
            services.leaseBalancer.trigger();
            LOG.warn(
                    "{} - PostgreSQL at {} is another server process than before (a failover or a restart):"
                            + " {} leases fenced, the shards' state, cached messages and near-cache entries"
                            + " dropped and read again",
                    instanceId,
                    database.displayUrl(),
                    fenced);
        } catch (SQLException | RuntimeException e) {
            try {
                c.close();
            } catch (SQLException alsoFailed) {
                e.addSuppressed(alsoFailed);
            }
            throw e;
        }
    }

    private static Throwable rootCause(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t;
    }

    @Override
    public PreparedTransactions preparedTransactions() {
        return prepared;
    }

    @Override
    public boolean reserveNonPersistent(BrokerMessage m, boolean force) {
        return stats.reserveNonPersistent(m.estimatedSize(), settings.nonPersistentMaxBytes(), force);
    }

    @Override
    public void releaseNonPersistent(BrokerMessage m) {
        stats.releaseNonPersistent(m.estimatedSize());
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
    public boolean onCitus() {
        return citus;
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
    public Collection<DestinationRuntime> runtimes() {
        return destinations.all();
    }

    @Override
    public boolean otherInstancesAlive() {
        return services.heartbeat.aliveInstances() > 1;
    }

    @Override
    public int fairShare(int shards) {
        return (int) Math.ceil((double) shards / Math.max(1, services.heartbeat.aliveInstances()));
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

    @Override
    public SendCommitter sendCommitter() {
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

    @Override
    public void destinationShrank(DestinationInfo destination) {
        try {
            destinations.reload(destination.name());
        } catch (RuntimeException e) {
            // the catalog's notification or its periodic reload brings the snapshot in the end
            LOG.debug(
                    "{} - reading {} again after a shard drained under a commit: {}",
                    instanceId,
                    destination.name(),
                    e.toString());
        }
    }
}
