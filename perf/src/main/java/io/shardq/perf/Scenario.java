package io.shardq.perf;

import java.time.Duration;
import java.util.List;

/**
 * One run of the {@code queue} scenario: each threads value of the sweep, for each system.
 *
 * @param threads the sweep, in the order run
 * @param systems the systems that will run, in the order run (unregistered ones already removed)
 * @param base payload, batch, shards and durability, shared by every step
 * @param asyncInFlightBatches batches each producer of {@value ShardQSystem#ASYNC_NAME} may have
 *     awaiting completion (only printed; the system is built with it)
 */
record Scenario(
        List<Integer> threads,
        List<String> systems,
        Duration warmup,
        Duration duration,
        Settings base,
        int asyncInFlightBatches) {

    Scenario(List<Integer> threads, List<String> systems, Duration warmup, Duration duration, Settings base) {
        this(threads, systems, warmup, duration, base, ShardQSystem.DEFAULT_IN_FLIGHT_BATCHES);
    }

    Scenario {
        threads = List.copyOf(threads);
        systems = List.copyOf(systems);
        if (threads.isEmpty() || threads.stream().anyMatch(t -> t < 1)) {
            throw new IllegalArgumentException("threads " + threads + " is invalid: expected values of at least 1");
        }
        if (warmup.isNegative() || duration.isZero() || duration.isNegative()) {
            throw new IllegalArgumentException("warm-up " + warmup + " and duration " + duration
                    + " are invalid: expected warm-up >= 0 and duration > 0");
        }
    }

    Settings settingsFor(int threadCount) {
        return base.withThreads(threadCount);
    }

    /** {@code name  value} lines of the scenario, printed after the environment. */
    List<String[]> facts() {
        List<String[]> facts = new java.util.ArrayList<>(List.of(
                new String[] {"scenario", "queue"},
                new String[] {"systems", String.join(", ", systems)},
                new String[] {"threads", threads + " producers, and as many consumers (ceiling: producers only)"},
                new String[] {"payload", base.payloadBytes() + " bytes"},
                new String[] {"batch", base.batchSize() + " messages per commit (send and receive)"},
                new String[] {"shards", Integer.toString(base.shards())},
                new String[] {
                    "delivery", base.persistent() ? "persistent" : "non-persistent (reference tables UNLOGGED)"
                },
                new String[] {"warm-up", warmup.toSeconds() + " s"},
                new String[] {"measured", duration.toSeconds() + " s per step"},
                new String[] {"shardq", shardqSettings()}));
        if (systems.contains(ShardQSystem.ASYNC_NAME)) {
            facts.addAll(sendModes());
        }
        return facts;
    }

    /** What the synchronous and the asynchronous ShardQ producers do, so their rows compare fairly. */
    private List<String[]> sendModes() {
        int b = base.batchSize();
        return List.of(
                new String[] {
                    "send: shardq",
                    "a transacted session per producer: " + b + " send() then commit(), waiting for it (one durable"
                            + " commit per " + b + " messages, several producers' commits grouped by the shard writer)"
                },
                new String[] {
                    "send: shardq-async",
                    "an AUTO_ACKNOWLEDGE session per producer: send(message, CompletionListener) for each, at most "
                            + asyncInFlightBatches + " batches (" + asyncInFlightBatches * b + " messages) awaiting"
                            + " completion; the session's AsyncSender writes what is queued, up to 500, per durable"
                            + " commit (grouped with other sessions' by the shard writer)"
                },
                new String[] {
                    "receive (both)", "a transacted session per consumer, up to " + b + " receive() then commit()"
                });
    }

    /** The ShardQ settings that shape the figures, as the environment and system properties set them. */
    static String shardqSettings() {
        io.shardq.broker.BrokerConfig c =
                io.shardq.broker.BrokerConfig.builder().build();
        long flow = c.getInt(io.shardq.broker.BrokerProperty.FLOW_MAX_UNTAKEN);
        long topicFlow = c.getInt(io.shardq.broker.BrokerProperty.FLOW_TOPIC_MAX_UNTAKEN);
        return "pool " + c.getInt(io.shardq.broker.BrokerProperty.POOL_SIZE) + " connections (shardq.pool.size), "
                + flowSetting("queues", flow, "shardq.flow.max-untaken") + ", "
                + flowSetting("topics", topicFlow, "shardq.flow.topic-max-untaken") + ", shared send commits "
                + onOff(c.getBoolean(io.shardq.broker.BrokerProperty.COMMIT_SHARED_SENDS))
                + " (shardq.commit.shared-sends), shared session cache puts "
                + onOff(c.getBoolean(io.shardq.broker.BrokerProperty.COMMIT_SHARED_CACHE_PUTS))
                + " (shardq.commit.shared-cache-puts)";
    }

    private static String onOff(boolean on) {
        return on ? "on" : "off";
    }

    private static String flowSetting(String kind, long untaken, String key) {
        return "flow control for " + kind + (untaken > 0 ? " at " + untaken + " untaken" : " off") + " (" + key + ")";
    }
}
