package io.shardq.broker;

import io.shardq.broker.catalog.Catalog;
import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.catalog.Names;
import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.Query;
import io.shardq.broker.internal.SqlErrors;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * Queue administration: create, drop, alter, start/stop, purge, list, stats, instances and
 * leases. Each call is one of the {@code shardq.*} SQL functions (so psql users get the same
 * operations), with the name validated here first for a clear message. Other instances learn of
 * each change by the catalog NOTIFY; this one is told at once ({@code changed}), so its own next
 * send or receive never sees the destination as it was.
 *
 * <p>Queues and topics are administered here; the other concerns are parts this class delegates
 * to, each over the same {@code AdminSql}: {@code SubscriptionAdmin} (a topic's subscriptions,
 * delivery policy), {@code CacheAdmin} (key/value caches), {@code GrantAdmin} (privileges) and
 * {@code ClusterView} (instances, temporary destinations, leases).
 */
public final class Admin {
    private final DataSource dataSource;
    private final Catalog catalog;
    private final Consumer<String> changed;
    private final AdminSql sql;
    private final CacheAdmin cacheAdmin;
    private final ClusterView cluster;
    private final GrantAdmin grants;
    private final SubscriptionAdmin subscriptionAdmin;
    /**
     * Delayed non-persistent messages this instance holds per destination id, counted as scheduled
     * when the Admin is a Broker's (another instance's memory is not visible from here).
     */
    private volatile java.util.function.IntToLongFunction scheduledInMemory = id -> 0;

    /** The Broker's held delayed non-persistent messages, per destination id. */
    void scheduledInMemory(java.util.function.IntToLongFunction held) {
        this.scheduledInMemory = held;
    }

    /**
     * Administers the destinations in the database behind {@code dataSource} without starting an
     * engine (the CLI's {@code status}, scripts); running instances learn of each change by the
     * catalog NOTIFY. An application with a {@link Broker} uses {@link Broker#admin()} instead,
     * so its own instance sees its changes at once.
     */
    public Admin(DataSource dataSource) {
        this(dataSource, new Catalog(dataSource), name -> {});
    }

    /** @param changed told the name of each destination this instance created, dropped or changed */
    Admin(DataSource dataSource, Catalog catalog, Consumer<String> changed) {
        this.dataSource = dataSource;
        this.catalog = catalog;
        this.changed = changed;
        this.sql = new AdminSql(dataSource);
        this.cacheAdmin = new CacheAdmin(sql);
        this.cluster = new ClusterView(sql);
        this.grants = new GrantAdmin(sql);
        this.subscriptionAdmin = new SubscriptionAdmin(sql, this::changed);
    }

    public DestinationInfo createQueue(String name, QueueOptions options) {
        return create(name, options, false);
    }

    /** Creates the queue with these options unless it exists; returns it either way. */
    public DestinationInfo createOrGet(String name, QueueOptions options) {
        return create(name, options, true);
    }

    private DestinationInfo create(String name, QueueOptions o, boolean ifNotExists) {
        return create("queue", name, o, ifNotExists);
    }

    /** {@code shardq.create_queue} or {@code shardq.create_topic}, which take the same arguments. */
    private DestinationInfo create(String kind, String name, QueueOptions o, boolean ifNotExists) {
        Names.checkDestination(name);
        call(
                kind.equals("topic") ? Query.ADMIN_CREATE_TOPIC : Query.ADMIN_CREATE_QUEUE,
                "creating " + kind + " " + name,
                name,
                o.shards(),
                o.sliceSize(),
                o.maxAttempts(),
                ifNotExists);
        return changed(name);
    }

    /** Drops the queue; refuses a non-empty one unless {@code force}. */
    public void dropQueue(String name, boolean force) {
        Names.checkDestination(name);
        call(Query.ADMIN_DROP_QUEUE, "dropping queue " + name, name, force);
        catalog.forget(name);
        changed.accept(name);
    }

    /** Changes what is not null: shard count (grow only), slice size, max attempts, dead-letter queue. */
    public DestinationInfo alterQueue(
            String name, Integer shards, Integer sliceSize, Integer maxAttempts, String deadLetterQueue) {
        Names.checkDestination(name);
        if (deadLetterQueue != null) {
            Names.checkDestination(deadLetterQueue);
        }
        call(Query.ADMIN_ALTER_QUEUE, "altering queue " + name, name, shards, sliceSize, maxAttempts, deadLetterQueue);
        return changed(name);
    }

    // ---------------------------------------------------------------- topics

    /** Creates a topic ({@code shardq.create_topic}); its subscriptions are added later. */
    public DestinationInfo createTopic(String name, QueueOptions o) {
        return createTopic(name, o, false);
    }

    /** Creates the topic with these options unless it exists; returns it either way. */
    public DestinationInfo createTopicOrGet(String name, QueueOptions o) {
        return createTopic(name, o, true);
    }

    private DestinationInfo createTopic(String name, QueueOptions o, boolean ifNotExists) {
        return create("topic", name, o, ifNotExists);
    }

    /** Drops the topic and its subscriptions; refuses one with undelivered messages unless {@code force}. */
    public void dropTopic(String name, boolean force) {
        Names.checkDestination(name);
        call(Query.ADMIN_DROP_TOPIC, "dropping topic " + name, name, force);
        catalog.forget(name);
        changed.accept(name);
    }

    /**
     * Changes what is not null, as {@link #alterQueue}, plus the expiry policy: {@code maxLag}
     * (sequence numbers a subscription may fall behind) and {@code maxAgeSeconds} (age of its
     * oldest unconsumed message); 0 clears a limit. Beyond them the maintenance leader expires the
     * subscription's backlog (counted in {@link SubscriptionStats#expiredSeqs()}, logged).
     */
    public DestinationInfo alterTopic(
            String name,
            Integer shards,
            Integer sliceSize,
            Integer maxAttempts,
            String deadLetterQueue,
            Long maxLag,
            Long maxAgeSeconds) {
        Names.checkDestination(name);
        if (deadLetterQueue != null) {
            Names.checkDestination(deadLetterQueue);
        }
        call(
                Query.ADMIN_ALTER_TOPIC,
                "altering topic " + name,
                name,
                shards,
                sliceSize,
                maxAttempts,
                deadLetterQueue,
                maxLag,
                maxAgeSeconds);
        return changed(name);
    }

    /**
     * Adds a durable shared subscription to the topic ({@code shardq.add_subscriber}, like Oracle's
     * ADD_SUBSCRIBER): it keeps what is published from now on that matches {@code selector} (null:
     * everything) until consumers take it; JMS consumers attach with {@code
     * createSharedDurableConsumer(topic, name)} on a connection without a client id.
     */
    public void addSubscriber(String topic, String name, String selector) {
        subscriptionAdmin.addSubscriber(topic, name, selector);
    }

    /**
     * Removes a subscription of the topic ({@code shardq.remove_subscriber}); {@code clientId} names a
     * JMS durable subscription's client (null for those added here). Refused while it has an active
     * consumer unless {@code force}.
     */
    public void removeSubscriber(String topic, String name, String clientId, boolean force) {
        subscriptionAdmin.removeSubscriber(topic, name, clientId, force);
    }

    /** The topic's subscriptions with their lag, from {@code shardq.subscriptions(topic)}. */
    public List<SubscriptionStats> subscriptions(String topic) {
        return subscriptionAdmin.subscriptions(topic);
    }

    /** Every topic with its expiry policy and what it retains, from {@code shardq.topics()}, by name. */
    public List<TopicInfo> topics() {
        List<TopicInfo> out = new ArrayList<>();
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.ADMIN_SELECT_TOPICS));
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                String name = rs.getString(1);
                // a topic dropped since the statement ran is left out
                catalog.reload(name).ifPresent(d -> out.add(topicInfo(d, rs)));
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "listing the topics");
        }
        return out;
    }

    /** The topic called {@code name}; UNKNOWN_DESTINATION when there is none, INVALID_ARGUMENT for a queue. */
    public TopicInfo topic(String name) {
        Names.checkDestination(name);
        call(Query.ADMIN_TOPIC_ID, "reading topic " + name, name); // names an unknown topic or a queue
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.ADMIN_SELECT_TOPIC))) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new ShardQException(
                            ErrorKind.UNKNOWN_DESTINATION, "destination \"" + name + "\" does not exist");
                }
                return topicInfo(require(name), rs);
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "reading topic " + name);
        }
    }

    private static TopicInfo topicInfo(DestinationInfo d, ResultSet rs) {
        try {
            long lag = rs.getLong(2);
            Long maxLag = rs.wasNull() ? null : lag;
            long age = rs.getLong(3);
            Long maxAge = rs.wasNull() ? null : age;
            return new TopicInfo(d, maxLag, maxAge, rs.getLong(4), rs.getLong(5));
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "reading topic " + d.name());
        }
    }

    /**
     * A topic's shards (head, slowest cursor and whose, retained messages, slices, bytes) from
     * {@code shardq.topic_shard_stats(topic)} and its subscriptions from {@code
     * shardq.subscriptions(topic)}.
     */
    public TopicStats topicStats(String name) {
        TopicInfo topic = topic(name);
        List<TopicStats.Shard> shards = new ArrayList<>();
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.ADMIN_SELECT_TOPIC_SHARDS))) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    long pos = rs.getLong(3);
                    Long slowest = rs.wasNull() ? null : pos;
                    long age = rs.getLong(8);
                    Long oldest = rs.wasNull() ? null : age;
                    shards.add(new TopicStats.Shard(
                            rs.getInt(1),
                            rs.getLong(2),
                            slowest,
                            rs.getString(4),
                            rs.getString(5),
                            rs.getLong(6),
                            rs.getLong(7),
                            oldest,
                            rs.getLong(9),
                            rs.getLong(10),
                            rs.getLong(11),
                            rs.getLong(12),
                            rs.getLong(13)));
                }
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "reading the shards of topic " + name);
        }
        return new TopicStats(topic, List.copyOf(shards), subscriptions(name));
    }

    public DestinationInfo start(String name, boolean enqueue, boolean dequeue) {
        Names.checkDestination(name);
        call(Query.ADMIN_START_QUEUE, "starting " + name, name, enqueue, dequeue);
        return changed(name);
    }

    public DestinationInfo stop(String name, boolean enqueue, boolean dequeue) {
        Names.checkDestination(name);
        call(Query.ADMIN_STOP_QUEUE, "stopping " + name, name, enqueue, dequeue);
        return changed(name);
    }

    /** Discards every waiting message and returns how many there were. */
    /**
     * Sets the delivery policy of a queue or topic; what is null is unchanged. {@code expiryQueue}:
     * the queue that receives its messages found expired at delivery ({@code ""}: none, they are
     * dropped); {@code redeliveryDelayMs} (0: at once) and {@code redeliveryMultiplier} (1 or
     * more) override the instance's {@code shardq.redelivery.*} settings for it.
     */
    public DestinationInfo setDeliveryPolicy(
            String name, String expiryQueue, Integer redeliveryDelayMs, Double redeliveryMultiplier) {
        return subscriptionAdmin.setDeliveryPolicy(name, expiryQueue, redeliveryDelayMs, redeliveryMultiplier);
    }

    /**
     * As {@link #setDeliveryPolicy(String, String, Integer, Double)}, and message groups on or off
     * (null: unchanged): with them, a message with a {@code JMSXGroupID} goes to the shard its
     * group hashes to, and each shard is taken by one consumer session at a time, so a group's
     * messages reach one consumer at a time, in order.
     */
    public DestinationInfo setDeliveryPolicy(
            String name,
            String expiryQueue,
            Integer redeliveryDelayMs,
            Double redeliveryMultiplier,
            Boolean messageGroups) {
        return subscriptionAdmin.setDeliveryPolicy(
                name, expiryQueue, redeliveryDelayMs, redeliveryMultiplier, messageGroups);
    }

    public long purge(String name) {
        Names.checkDestination(name);
        return call(Query.ADMIN_PURGE_QUEUE, "purging " + name, name);
    }

    /**
     * Grants {@code role} (an existing PostgreSQL role) a privilege on the destination: {@code
     * shardq.grant}. The caller (this pool's role) needs the administer privilege on it.
     */
    public void grant(String name, String role, Privilege privilege) {
        grants.grant(name, role, privilege);
    }

    /** Revokes a privilege ({@code shardq.revoke}); revoking receive or browse takes both. */
    public void revoke(String name, String role, Privilege privilege) {
        grants.revoke(name, role, privilege);
    }

    /** One role's privilege on a destination, from {@code shardq.grants(queue)}. */
    public record Grant(String role, Privilege privilege) {}

    /** Who may do what with the destination (its owner, who may do everything, is not listed). */
    public List<Grant> grants(String name) {
        return grants.grants(name);
    }

    public long backlog(String name) {
        Names.checkDestination(name);
        return call(Query.ADMIN_BACKLOG, "reading the backlog of " + name, name);
    }

    public List<DestinationInfo> list() {
        return catalog.all();
    }

    public DestinationInfo require(String name) {
        return catalog.reload(Names.checkDestination(name))
                .orElseThrow(() -> new ShardQException(
                        ErrorKind.UNKNOWN_DESTINATION, "destination \"" + name + "\" does not exist"));
    }

    private DestinationInfo changed(String name) {
        DestinationInfo fresh = require(name);
        changed.accept(name);
        return fresh;
    }

    public QueueStats stats(String name) {
        DestinationInfo d = require(name);
        try (Connection c = dataSource.getConnection()) {
            List<QueueStats.ShardStats> shards = new ArrayList<>();
            long backlog = 0;
            long enqueued = 0;
            long oldest = -1;
            for (QueueStats.ShardStats sh : shards(c, name)) {
                shards.add(sh);
                backlog += sh.backlog();
                enqueued += sh.nextSeq() - 1;
            }
            try (PreparedStatement ps =
                    c.prepareStatement(Queries.withParent(Query.ADMIN_SELECT_OLDEST_WAITING, d.id()))) {
                ps.setLong(1, d.queueSubscription());
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next() && rs.getObject(1) != null) {
                        oldest = Math.max(0, System.currentTimeMillis() - rs.getLong(1));
                    }
                }
            }
            int inUse = 0;
            int free = 0;
            try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.ADMIN_SELECT_SLICE_COUNTS))) {
                ps.setInt(1, d.id());
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    inUse = rs.getInt(1);
                    free = rs.getInt(2);
                }
            }
            long bytes = 0;
            long dead = 0;
            try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.ADMIN_SELECT_TABLE_SIZE))) {
                ps.setString(1, Queries.parentTable(d.id()));
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    bytes = rs.getLong(1);
                    dead = rs.getLong(2);
                }
            }
            long scheduled;
            try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.ADMIN_COUNT_SCHEDULED))) {
                ps.setInt(1, d.id());
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    scheduled = rs.getLong(1) + scheduledInMemory.applyAsLong(d.id());
                }
            }
            return new QueueStats(
                    d, backlog, enqueued, oldest, List.copyOf(shards), inUse, free, bytes, dead, scheduled);
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "reading stats of " + name);
        }
    }

    /** Per shard of a queue, from {@code shardq.shard_stats(queue)}: waiting excludes messages taken out of order. */
    public List<QueueStats.ShardStats> shards(String name) {
        Names.checkDestination(name);
        try (Connection c = dataSource.getConnection()) {
            return shards(c, name);
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "reading the shards of " + name);
        }
    }

    private static List<QueueStats.ShardStats> shards(Connection c, String name) throws SQLException {
        List<QueueStats.ShardStats> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.ADMIN_SELECT_QUEUE_SHARDS))) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new QueueStats.ShardStats(
                            rs.getInt(1),
                            rs.getLong(2),
                            rs.getLong(3),
                            rs.getLong(4),
                            rs.getLong(5),
                            rs.getBoolean(6)));
                }
            }
        }
        return out;
    }

    /**
     * A live instance, from {@code shardq.instances()}.
     *
     * @param startedAtMillis epoch millis
     * @param shardsOwned shards it owns for enqueue
     * @param leasesHeld dequeue leases it holds now
     */
    public record Instance(
            long id, String name, long startedAtMillis, long heartbeatAgeMillis, long shardsOwned, long leasesHeld) {}

    /** Instances not stopped whose heartbeat is at most {@code aliveWithinSeconds} old, by id. */
    public List<Instance> instances(int aliveWithinSeconds) {
        return cluster.instances(aliveWithinSeconds);
    }

    /**
     * A temporary destination (JMS {@code TemporaryQueue} or {@code TemporaryTopic}), from {@code
     * shardq.temporary_destinations()}.
     *
     * @param kind {@code queue} or {@code topic}
     * @param instanceName null when the owning instance is no longer registered
     * @param connectionId the owning JMS connection
     * @param ownerAlive the owning instance is alive; if not, the maintenance leader drops it
     */
    public record Temporary(
            String name,
            String kind,
            long instanceId,
            String instanceName,
            java.util.UUID connectionId,
            long createdAtMillis,
            boolean ownerAlive) {}

    /** Every temporary destination with its owner, by name. */
    public List<Temporary> temporaryDestinations() {
        return cluster.temporaryDestinations();
    }

    /**
     * A dequeue lease on one shard's cursor, from {@code shardq.leases(queue)}.
     *
     * @param subscription the subscription's name ({@code ""} for a queue)
     * @param instanceName null when the holder is no longer registered
     * @param live the lease has not expired
     */
    public record Lease(
            int shardNo, String subscription, long instanceId, String instanceName, long untilMillis, boolean live) {}

    /** The leased cursors of a destination, by subscription and shard. */
    public List<Lease> leases(String name) {
        return cluster.leases(name);
    }

    /**
     * Open consumers of one destination's subscription ({@code ""} for a queue) on one live
     * instance, from {@code shardq.consumers()}: counted in the database, so the same from every
     * instance (a queue's within a heartbeat of a change).
     */
    public record Consumers(
            String destination,
            String kind,
            String subscription,
            String clientId,
            long instanceId,
            String instanceName,
            long consumers) {}

    /** Every open consumer count on instances alive within {@code aliveWithinSeconds}. */
    public List<Consumers> consumers(int aliveWithinSeconds) {
        return consumers(null, aliveWithinSeconds);
    }

    /**
     * The open consumer counts of one destination (for a queue one row per live instance with a
     * consumer of it; none when it has no consumer), on instances alive within {@code
     * aliveWithinSeconds}, by subscription and instance id.
     */
    public List<Consumers> consumersOf(String destination, int aliveWithinSeconds) {
        Names.checkDestination(destination);
        return consumers(destination, aliveWithinSeconds);
    }

    /** @param destination null for every destination */
    private List<Consumers> consumers(String destination, int aliveWithinSeconds) {
        List<Consumers> out = new ArrayList<>();
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.ADMIN_SELECT_CONSUMERS))) {
            ps.setInt(1, aliveWithinSeconds);
            ps.setString(2, destination);
            ps.setString(3, destination);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Consumers(
                            rs.getString(1),
                            rs.getString(2),
                            rs.getString(3),
                            rs.getString(4),
                            rs.getLong(5),
                            rs.getString(6),
                            rs.getLong(7)));
                }
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "reading the consumers");
        }
        return out;
    }

    /**
     * What {@code shardq.purge_queue} discarded from a queue since it was created, from {@code
     * shardq.purges()}.
     *
     * @param lastPurgeAtMillis epoch millis of the last purge
     */
    public record Purges(String name, long purged, long purges, long lastPurgeAtMillis) {}

    /** The queues purged at least once, by name. */
    public List<Purges> purges() {
        return purges(null);
    }

    /** @param queue null for every purged queue */
    private List<Purges> purges(String queue) {
        List<Purges> out = new ArrayList<>();
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.ADMIN_SELECT_PURGES))) {
            ps.setString(1, queue);
            ps.setString(2, queue);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Purges(
                            rs.getString(1),
                            rs.getLong(2),
                            rs.getLong(3),
                            rs.getTimestamp(4).getTime()));
                }
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(
                    e, queue == null ? "reading the purge counts" : "reading the purge count of " + queue);
        }
        return out;
    }

    /**
     * What {@code shardq.purge_queue} discarded from one queue ({@code shardq.purges()}): 0 purges
     * and {@code lastPurgeAtMillis} 0 when it was never purged.
     */
    public Purges purgesOf(String queue) {
        Names.checkDestination(queue);
        List<Purges> found = purges(queue);
        return found.isEmpty() ? new Purges(queue, 0, 0, 0) : found.get(0);
    }

    // ---------------------------------------------------------------- key/value caches

    void caches(io.shardq.broker.kv.KvCaches caches) {
        cacheAdmin.caches(caches);
    }

    /**
     * Creates a key/value cache ({@code shardq.create_cache}) with its entry table and the
     * partitions for the next max TTL; {@code CACHE_EXISTS} when the name is taken.
     */
    public CacheInfo createCache(String name, CacheOptions o) {
        return cacheAdmin.createCache(name, o);
    }

    /** Creates the cache unless it exists; returns it either way (as it is, options ignored). */
    public CacheInfo createCacheOrGet(String name, CacheOptions o) {
        return cacheAdmin.createCacheOrGet(name, o);
    }

    /**
     * Changes what is not null ({@code shardq.alter_cache}): the default TTL (zero clears it), the
     * bounds (0 clears one) and the key and value size limits. The maximum TTL is fixed at creation.
     * Other instances see the change within 10 s.
     */
    public CacheInfo alterCache(
            String name,
            java.time.Duration defaultTtl,
            Long maxEntries,
            Long maxBytes,
            Integer maxKeyBytes,
            Integer maxValueBytes) {
        return cacheAdmin.alterCache(name, defaultTtl, maxEntries, maxBytes, maxKeyBytes, maxValueBytes);
    }

    /** Drops the cache and all its entries ({@code shardq.drop_cache}). */
    public void dropCache(String name) {
        cacheAdmin.dropCache(name);
    }

    /** Every cache, by name, from {@code shardq.caches()}. */
    public List<CacheInfo> listCaches() {
        return cacheAdmin.listCaches();
    }

    /** The cache called {@code name}; {@code UNKNOWN_CACHE} when there is none. */
    public CacheInfo cache(String name) {
        return cacheAdmin.cache(name);
    }

    /**
     * The cache's exact figures ({@code shardq.cache_stats}, a scan of its entries) with this
     * instance's counters (zero when this Admin has no {@link Broker}).
     */
    public CacheStats cacheStats(String name) {
        return cacheAdmin.cacheStats(name);
    }

    private long call(Query query, String what, Object... args) {
        return this.sql.call(query, what, args);
    }
}
