package io.shardq.broker;

import io.shardq.broker.catalog.Catalog;
import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.catalog.Names;
import io.shardq.broker.internal.Query;
import java.util.List;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * ShardQ's administration, one entry point with a part per domain: {@link #queues()}, {@link
 * #topics()} (and their subscriptions), {@link #caches()}, {@link #grants()} and {@link
 * #cluster()} (instances, leases, consumers, temporary destinations); here itself only what
 * applies to any destination ({@link #list()}, {@link #require}, the delivery policy). Each call is
 * one of the {@code shardq.*} SQL functions (so psql users get the same operations), with names
 * validated first for a clear message. Other instances learn of each change by the catalog
 * NOTIFY; the instance whose Admin it is is told at once, so its own next send or receive never
 * sees the destination as it was.
 */
public final class Admin {
    private final DataSource dataSource;
    private final Catalog catalog;
    private final Consumer<String> changed;
    private final AdminSql sql;
    private final QueueAdmin queues;
    private final TopicAdmin topics;
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
        this.queues = new QueueAdmin(this);
        this.topics = new TopicAdmin(this);
    }

    /** Queues: create, drop, alter, start and stop, purge, backlog and statistics. */
    public QueueAdmin queues() {
        return queues;
    }

    /** Topics and their subscriptions. */
    public TopicAdmin topics() {
        return topics;
    }

    /** Key/value caches: create, alter, drop, list and statistics. */
    public CacheAdmin caches() {
        return cacheAdmin;
    }

    /** Who may do what with a destination: grant, revoke, list. */
    public GrantAdmin grants() {
        return grants;
    }

    /** The fleet as the database sees it: instances, leases, consumers, temporary destinations. */
    public ClusterView cluster() {
        return cluster;
    }

    Catalog catalog() {
        return catalog;
    }

    DataSource dataSource() {
        return dataSource;
    }

    Consumer<String> changedListener() {
        return changed;
    }

    java.util.function.IntToLongFunction scheduledInMemory() {
        return scheduledInMemory;
    }

    SubscriptionAdmin subscriptionAdmin() {
        return subscriptionAdmin;
    }

    /** {@code shardq.create_queue} or {@code shardq.create_topic}, which take the same arguments. */
    DestinationInfo create(String kind, String name, QueueOptions o, boolean ifNotExists) {
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

    /** One role's privilege on a destination, from {@code shardq.grants(queue)}. */
    public record Grant(String role, Privilege privilege) {}

    public List<DestinationInfo> list() {
        return catalog.all();
    }

    public DestinationInfo require(String name) {
        return catalog.reload(Names.checkDestination(name))
                .orElseThrow(() -> new ShardQException(
                        ErrorKind.UNKNOWN_DESTINATION, "destination \"" + name + "\" does not exist"));
    }

    DestinationInfo changed(String name) {
        DestinationInfo fresh = require(name);
        changed.accept(name);
        return fresh;
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

    /**
     * A dequeue lease on one shard's cursor, from {@code shardq.leases(queue)}.
     *
     * @param subscription the subscription's name ({@code ""} for a queue)
     * @param instanceName null when the holder is no longer registered
     * @param live the lease has not expired
     */
    public record Lease(
            int shardNo, String subscription, long instanceId, String instanceName, long untilMillis, boolean live) {}

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

    /**
     * What {@code shardq.purge_queue} discarded from a queue since it was created, from {@code
     * shardq.purges()}.
     *
     * @param lastPurgeAtMillis epoch millis of the last purge
     */
    public record Purges(String name, long purged, long purges, long lastPurgeAtMillis) {}

    // ---------------------------------------------------------------- key/value caches

    void caches(io.shardq.broker.kv.KvCaches caches) {
        cacheAdmin.caches(caches);
    }

    long call(Query query, String what, Object... args) {
        return this.sql.call(query, what, args);
    }
}
