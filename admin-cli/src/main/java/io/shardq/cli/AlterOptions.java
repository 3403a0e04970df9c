package io.shardq.cli;

import io.shardq.broker.catalog.Names;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * The storage settings {@code queue alter} and {@code topic alter} share, as a picocli mixin:
 * declared and checked once, with one description each.
 */
final class AlterOptions {
    /** The options' names, for "nothing to change" messages. */
    static final String NAMES = "--shards, --slice-size, --max-attempts, --dead-letter-queue";

    @Option(
            names = "--shards",
            paramLabel = "N",
            description = "new shard count, 1 to 256 (fewer: the shards from N up drain, then go)")
    Integer shards;

    @Option(
            names = "--slice-size",
            paramLabel = "N",
            description = "messages per slice for new slices, 16 to 100000000")
    Integer sliceSize;

    @Option(
            names = "--max-attempts",
            paramLabel = "N",
            description = "deliveries of a message (to the queue's consumers, or to each subscription of a topic)"
                    + " before it goes to the dead-letter queue")
    Integer maxAttempts;

    @Option(
            names = "--dead-letter-queue",
            paramLabel = "QUEUE",
            description = "where messages go after --max-attempts failed deliveries (default: NAME.DLQ)")
    String deadLetterQueue;

    /** True when any of these options was given. */
    boolean given() {
        return shards != null || sliceSize != null || maxAttempts != null || deadLetterQueue != null;
    }

    /** Refuses values out of range and a malformed dead-letter queue name, naming the option. */
    void check(CommandLine.Model.CommandSpec spec) {
        QueueCommand.checkBounds(spec, shards, sliceSize, maxAttempts);
        if (deadLetterQueue != null) {
            Names.checkDestination(deadLetterQueue);
        }
    }
}
