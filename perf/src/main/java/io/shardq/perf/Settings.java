package io.shardq.perf;

/**
 * What a {@link QueueSystem} is asked to do in one step; the same for every system of a run.
 *
 * @param threads producer threads, and as many consumer threads
 * @param payloadBytes size of each message payload, at least {@link Payloads#HEADER_BYTES}
 * @param batchSize messages per transaction, for sends and receives
 * @param shards shards per queue, for systems that shard (the references ignore it)
 * @param persistent false for non-persistent delivery: JMS {@code NON_PERSISTENT}, and UNLOGGED
 *     tables for the references so the comparison stays fair
 * @param unsafe the run's sessions use {@code synchronous_commit=off}; the data source given to
 *     {@link QueueSystem#setUp} already does, a system opening its own connections must too
 */
public record Settings(int threads, int payloadBytes, int batchSize, int shards, boolean persistent, boolean unsafe) {

    public Settings {
        require(threads >= 1, "threads", threads, "at least 1");
        require(
                payloadBytes >= Payloads.HEADER_BYTES,
                "payload",
                payloadBytes,
                "at least " + Payloads.HEADER_BYTES + " bytes (the send timestamp and a sequence number)");
        require(batchSize >= 1, "batch", batchSize, "at least 1 message");
        require(shards >= 1, "shards", shards, "at least 1");
    }

    /** The same settings for another threads value of the sweep. */
    public Settings withThreads(int threads) {
        return new Settings(threads, payloadBytes, batchSize, shards, persistent, unsafe);
    }

    private static void require(boolean ok, String name, int value, String allowed) {
        if (!ok) {
            throw new IllegalArgumentException(name + " " + value + " is invalid: expected " + allowed);
        }
    }
}
