package io.shardq.broker;

/**
 * How a queue is created. Defaults: 4 shards, slices of 20,000 messages, 5 delivery attempts.
 *
 * @param shards number of shards, 1..256
 * @param sliceSize messages per slice (partition), 16..100,000,000
 * @param maxAttempts deliveries before a message goes to the dead-letter queue
 */
public record QueueOptions(int shards, int sliceSize, int maxAttempts) {
    public static final QueueOptions DEFAULTS = new QueueOptions(4, 20_000, 5);

    public QueueOptions withShards(int n) {
        return new QueueOptions(n, sliceSize, maxAttempts);
    }

    public QueueOptions withSliceSize(int n) {
        return new QueueOptions(shards, n, maxAttempts);
    }

    public QueueOptions withMaxAttempts(int n) {
        return new QueueOptions(shards, sliceSize, n);
    }
}
