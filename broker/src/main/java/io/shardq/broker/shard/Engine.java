package io.shardq.broker.shard;

import io.shardq.broker.cache.MessageCache;
import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.message.BrokerMessage;
import javax.sql.DataSource;

/** What the shard runtime needs from its broker, as one object. */
public interface Engine {
    DataSource dataSource();

    /** The instance's clock: decides when a message sent with a delivery delay is due. */
    java.time.Clock clock();

    /**
     * Told after a commit wrote messages with a delivery delay into the scheduled area, the earliest
     * due at {@code earliestDeliverAt}: wakes this instance's mover (if it leads) when that is before
     * its planned wake-up, and makes it scan the whole area when that time has passed already.
     */
    void scheduled(long earliestDeliverAt);

    /** Holds committed non-persistent messages sent with a delivery delay until they are due. */
    io.shardq.broker.delay.DelayedNonPersistent delayedNonPersistent();

    /**
     * A pooled connection; when none frees up within the pool's timeout this fails with {@link
     * io.shardq.broker.ErrorKind#RESOURCE_EXHAUSTED}, naming the settings to change.
     */
    java.sql.Connection borrowConnection() throws java.sql.SQLException;

    /** Two-phase commit: this instance's sessions waiting for the outcome of a prepared transaction. */
    PreparedTransactions preparedTransactions();

    /**
     * Reserves room for a non-persistent message in the instance's memory; false when the bound
     * ({@code shardq.non-persistent.max-bytes}) is reached. {@code force} reserves regardless
     * (dead letters of messages already held).
     */
    boolean reserveNonPersistent(BrokerMessage m, boolean force);

    /** Gives back the room of a non-persistent message that was consumed or discarded. */
    void releaseNonPersistent(BrokerMessage m);

    MessageCache cache();

    EngineStats stats();

    long instanceId();

    /**
     * Whether the schema is distributed over Citus (docs/design/citus.md): an enqueue then reserves
     * and inserts in two statements that Citus routes to one worker each, where the one-statement
     * form would be planned through the coordinator.
     */
    boolean onCitus();

    /** The runtime of a destination, creating the queue first if allowed. */
    DestinationRuntime runtime(String name, boolean createIfMissing);

    /** The runtimes of the destinations this instance serves now. */
    java.util.Collection<DestinationRuntime> runtimes();

    /** The runtime of a dead-letter queue, created if missing even when auto-create is off. */
    DestinationRuntime deadLetterRuntime(String name);

    /**
     * Attaches a new consumer to the topic subscription {@code spec} names, creating it if needed
     * ({@code shardq.subscribe}), and returns the subscription as this instance serves it.
     */
    Subscription subscribe(DestinationRuntime topic, io.shardq.broker.SubscriptionSpec spec);

    /** A consumer of a topic subscription closed ({@code shardq.consumer_closed}). */
    void unsubscribed(Subscription subscription);

    /**
     * The last open consumer of {@code subscription} here closed: the lease balancer runs a round
     * now, so leases nobody here uses any more go back at once rather than at the next heartbeat.
     */
    void lastConsumerClosed(Subscription subscription);

    /** True when other live instances exist (then waiting consumers ask for a NOTIFY). */
    boolean otherInstancesAlive();

    /** Fair share of shards per instance for a destination with {@code shards} shards. */
    int fairShare(int shards);

    /** Changes whenever the set of live instances does ({@link Heartbeat#fleetVersion}). */
    long fleetVersion();

    /** Other live instances producing to destination {@code id}, at the last heartbeat. */
    int otherProducers(int id);

    Settings settings();

    /** The instance's group commit of send batches to any shard ({@link SendCommitter}). */
    SendCommitter sendCommitter();

    /**
     * A consumer's commit moved the cursor of {@code shard} from {@code from} to {@code to}.
     * Cheap (no I/O): when that crossed the end of a slice, the maintenance leader is told that
     * a slot can be retired.
     */
    void cursorCommitted(DestinationInfo destination, int shard, long from, long to);

    /**
     * A transaction that had written messages to {@code shard} rolled back (or failed): its rows
     * are dead. Cheap (no I/O): the instance vacuums that shard's leaves in the background.
     */
    void sendsRolledBack(DestinationInfo destination, int shard);

    /**
     * A commit was refused because a shard of {@code destination} it wrote began to drain (a
     * shrink this instance had not heard of yet): reads the destination's catalog row again now,
     * so the next transaction goes to an active shard without waiting for the catalog's
     * notification. One query, on the failing commit's thread.
     */
    void destinationShrank(DestinationInfo destination);

    /**
     * Tunables, read once from the broker's configuration.
     *
     * @param readAhead rows one read-ahead SELECT returns at most
     * @param readAheadMaxBytes header and body bytes one read-ahead SELECT returns at most
     * @param flowMaxUntaken producer flow control's threshold for queues (0: off), see {@code
     *     Subscription#throttle}
     * @param flowTopicMaxUntaken the same for topics, on by default (0: off)
     * @param sharedSends one group commit of send batches for the whole instance, not one per shard
     */
    record Settings(
            int readAhead,
            long readAheadMaxBytes,
            long pollMaxMillis,
            int enqueueMaxBatch,
            long leaseTtlMillis,
            long heartbeatMillis,
            int prefetch,
            long nonPersistentMaxBytes,
            long flowMaxUntaken,
            long flowTopicMaxUntaken,
            long flowMaxWaitMillis,
            long flowConsumerActiveMillis,
            long redeliveryDelayMillis,
            double redeliveryMultiplier,
            long redeliveryMaxDelayMillis,
            int priorityWindow,
            boolean sharedSends) {
        /**
         * How long a message waits before its next delivery after its {@code attempts}-th failed
         * one (0: at once): delay x multiplier^(attempts-1), capped at the max delay; a
         * destination's own delay and multiplier (null: the instance's) come first.
         */
        long redeliveryDelayMillis(int attempts, Integer destinationDelayMs, Double destinationMultiplier) {
            long base = destinationDelayMs != null ? destinationDelayMs : redeliveryDelayMillis;
            double multiplier = destinationMultiplier != null ? destinationMultiplier : redeliveryMultiplier;
            if (base <= 0) {
                return 0;
            }
            double d = base * Math.pow(multiplier, Math.max(0, attempts - 1));
            return (long) Math.min(Math.max(base, redeliveryMaxDelayMillis), d);
        }

        /** The flow-control threshold of a queue's ({@code queue}) or a topic's subscriptions; 0 is off. */
        long flowMaxUntaken(boolean queue) {
            return queue ? flowMaxUntaken : flowTopicMaxUntaken;
        }
    }
}
