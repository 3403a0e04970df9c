package io.shardq.broker.shard;

import io.shardq.broker.cache.MessageCache;
import io.shardq.broker.catalog.DestinationInfo;
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
     * A consumer's commit moved the cursor of {@code shard} from {@code from} to {@code to}.
     * Cheap (no I/O): when that crossed the end of a slice, the maintenance leader is told that
     * a slot can be retired.
     */
    void cursorCommitted(DestinationInfo destination, int shard, long from, long to);

    /** Tunables, read once from the broker's configuration. */
    record Settings(
            int readAhead, long pollMaxMillis, int enqueueMaxBatch, long leaseTtlMillis, long heartbeatMillis) {}
}
