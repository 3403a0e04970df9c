package io.shardq.perf;

import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import javax.sql.DataSource;

/**
 * A queue under test: ShardQ, or a reference measured beside it in the same run with the same
 * payload size, batch size and threads.
 *
 * <p>Lifecycle, driven by the {@code Runner} once per system and threads value, all on one
 * thread except the workers: {@link #setUp} (drop and recreate the system's own tables), {@link
 * #producer()} and {@link #consumer()} once per worker thread, the workers run, then {@link
 * #backlog()}, {@link #tables()} and {@link #sqlReads()} are read after every worker has stopped
 * and been closed, then {@link #tearDown()} (drop the tables). Each {@link Producer} and {@link
 * Consumer} is used by exactly one thread; the system's own methods are never called concurrently.
 *
 * <p>Payloads are opaque to the system: the harness stamps the send time into their first bytes
 * ({@link Payloads}) before calling {@link Producer#sendBatch}; a consumer hands that stamp back
 * ({@link Payloads#sentMicros}) so end-to-end latency is measured the same way for every system.
 *
 * <p>To add a system, implement this interface and register a factory under its name in {@link
 * SystemRegistry}.
 */
public interface QueueSystem {

    /** Short lower-case name used on the command line and in reports, e.g. {@code naive}. */
    String name();

    /**
     * Drops whatever a previous run left and creates this system's tables. The data source is
     * pooled and already carries the run's session settings (e.g. {@code synchronous_commit=off}
     * under {@code --unsafe}).
     */
    void setUp(DataSource dataSource, Settings settings) throws Exception;

    /**
     * Producer threads this process runs when the step has {@code settings.threads()}: all of them,
     * unless {@link #peers()} in other processes run the rest.
     */
    default int localThreads(Settings settings) {
        return settings.threads();
    }

    /**
     * Instances in other processes running the rest of the load, whose counts and latencies the
     * runner adds to this process's ({@code perf queue --instances}); none by default.
     */
    default PeerInstances peers() {
        return PeerInstances.NONE;
    }

    /** A new producer for one worker thread. */
    Producer producer() throws Exception;

    /** False for a system that only enqueues (the ceiling): the runner then starts no consumers. */
    default boolean consumes() {
        return true;
    }

    /**
     * Consumer threads to start in this process, each with its own {@link #consumer()}: as many as
     * producers for a queue; a topic may ask for one per subscription, or a few that each serve many.
     */
    default int consumerThreads(Settings settings) {
        return settings.threads();
    }

    /**
     * Deliveries each message sent must produce: 1 for a queue, the number of subscriptions for a
     * topic. The progress line's backlog is {@code sent x this - received}.
     */
    default long deliveriesPerMessage() {
        return 1;
    }

    /** Called by the runner when the measured window starts, after the warm-up (workers running). */
    default void measureStarts() throws Exception {}

    /** Called by the runner when the measured window ends, before the workers stop. */
    default void measureEnds() throws Exception {}

    /** A new consumer for one worker thread; only called when {@link #consumes()} is true. */
    default Consumer consumer() throws Exception {
        throw new UnsupportedOperationException(name() + " has no consumers");
    }

    /** Messages enqueued and not yet dequeued, counted on the database. */
    long backlog() throws Exception;

    /**
     * The tables whose size and dead tuples are reported, schema-qualified. A partitioned table
     * counts with all its partitions.
     */
    List<String> tables();

    /**
     * Optional: how many SQL statements that read queue rows the consumers have executed so far
     * (cumulative, including empty polls). The report divides the measured delta by the messages
     * dequeued. Empty when the system does not count them.
     */
    default OptionalLong sqlReads() {
        return OptionalLong.empty();
    }

    /**
     * Optional: the system's own timing of its internal steps since the previous call (the runner
     * calls it when the measured window starts and when it ends). Empty when it has none.
     */
    default List<InnerStep> innerSteps() {
        return List.of();
    }

    /** Drops the system's tables; called even when the step failed, and safe after a failed setUp. */
    void tearDown() throws Exception;

    /** Sends on behalf of one thread. */
    interface Producer extends AutoCloseable {
        /** Commits one transaction holding one message per payload, then returns. */
        void sendBatch(List<byte[]> payloads) throws Exception;

        @Override
        default void close() throws Exception {}
    }

    /** Receives on behalf of one thread. */
    interface Consumer extends AutoCloseable {
        /**
         * Receives up to {@code max} messages in one transaction and commits it. Waits up to
         * {@code wait} when nothing is available, then returns an empty list. Returns one {@link
         * Delivery} per message received, after the commit.
         */
        List<Delivery> receiveBatch(int max, Duration wait) throws Exception;

        @Override
        default void close() throws Exception {}
    }

    /**
     * One received message: the system's identity of it (a row id, a JMS message id) and the send
     * timestamp the harness stamped into the payload, in epoch microseconds of the run's {@link
     * MicroClock}.
     */
    record Delivery(String id, long sentMicros) {}
}
