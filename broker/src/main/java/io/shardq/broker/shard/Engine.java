package io.shardq.broker.shard;

import io.shardq.broker.cache.MessageCache;
import javax.sql.DataSource;

/** What the shard runtime needs from its broker, as one object. */
public interface Engine {
    DataSource dataSource();

    MessageCache cache();

    EngineStats stats();

    long instanceId();

    /** The runtime of a destination, creating the queue first if allowed. */
    DestinationRuntime runtime(String name, boolean createIfMissing);

    /** The runtime of a dead-letter queue, created if missing even when auto-create is off. */
    DestinationRuntime deadLetterRuntime(String name);

    /** True when other live instances exist (then waiting consumers ask for a NOTIFY). */
    boolean otherInstancesAlive();

    /** Fair share of shards per instance for a destination with {@code shards} shards. */
    int fairShare(int shards);

    Settings settings();

    /**
     * Tunables, read once from the broker's configuration.
     *
     * @param readAhead rows one read-ahead SELECT returns at most
     * @param readAheadMaxBytes header and body bytes one read-ahead SELECT returns at most
     */
    record Settings(
            int readAhead,
            long readAheadMaxBytes,
            long pollMaxMillis,
            int enqueueMaxBatch,
            long leaseTtlMillis,
            long heartbeatMillis) {}
}
