package io.shardq.perf;

import java.util.List;

/**
 * A store that {@code perf cache-read} loads with route prices and then reads by key: ShardQ's
 * cache read from PostgreSQL ({@link KvReadSystem}), the same data in a plain table read with a
 * primary-key SELECT ({@link SelectReadSystem}), and, once the broker has one, the near cache
 * ({@link NearCache}).
 */
interface ReadSystem {
    String name();

    /** What a read of this system is, for the settings. */
    String describe();

    /** An empty store. */
    void setUp() throws Exception;

    /** Stores a batch of entries; thread-safe. */
    void load(List<String> keys, List<byte[]> values) throws Exception;

    /** Entries present now. */
    long stored() throws Exception;

    /** A reader for one thread. */
    Reader reader() throws Exception;

    /**
     * Counts only this system can tell, read at the window's edges (e.g. the cache's own hit
     * counter); the report prints the difference. Empty when there are none.
     */
    default long servedCount() {
        return -1;
    }

    void close() throws Exception;

    /** Reads by key on one thread. */
    interface Reader extends AutoCloseable {
        /** The value, or null when there is none (counted as a miss: the data was all loaded). */
        byte[] get(String key) throws Exception;

        @Override
        default void close() throws Exception {}
    }
}
