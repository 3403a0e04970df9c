package io.shardq.perf;

import java.util.List;

/**
 * A store that {@code perf cache-putall} writes batches of entries into: ShardQ's cache ({@link
 * KvPutAllSystem}) or the reference, a hand-written multi-row upsert ({@link UpsertPutAllSystem}).
 * Each run starts from an empty store; after it, {@link #stored()} must equal the entries written
 * (the balance check).
 */
interface PutAllSystem {
    String name();

    /** An empty store: dropped and created again. */
    void setUp() throws Exception;

    /** Writes one batch (keys and values of the same size, distinct keys); thread-safe. */
    void putAll(List<byte[]> keys, List<byte[]> values) throws Exception;

    /** Entries present now. */
    long stored() throws Exception;

    /** Tables kept for the next run are dropped at the end of the command. */
    void close() throws Exception;
}
