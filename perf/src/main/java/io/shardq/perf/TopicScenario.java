package io.shardq.perf;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * One run of {@code perf topic}: for each publisher count, the systems in order (the INSERT
 * ceiling, the queue end to end with as many consumers as producers, the topic).
 *
 * @param publishers the sweep of publisher counts, in the order run
 * @param subscriptions durable subscriptions of the topic
 * @param consumerThreads threads consuming them (as many as subscriptions: one each)
 * @param receiveBatch messages a subscription's consumer commits at once (the queue's consumers
 *     commit the batch of {@code base})
 * @param rate messages per second published in all by the queue's and the topic's producers; 0 is
 *     as fast as they can (the ceiling is never paced)
 * @param base payload, batch, shards and durability, shared by every step
 * @param loadAtStart the machine's load average when the run started
 */
record TopicScenario(
        List<Integer> publishers,
        int subscriptions,
        int consumerThreads,
        int receiveBatch,
        double rate,
        List<String> systems,
        Duration warmup,
        Duration duration,
        Settings base,
        String loadAtStart) {

    static final String CEILING = CeilingSystem.NAME;
    static final String QUEUE = "queue";
    static final String TOPIC = TopicSystem.NAME;
    static final List<String> ALL = List.of(CEILING, QUEUE, TOPIC);

    TopicScenario {
        publishers = List.copyOf(publishers);
        systems = List.copyOf(systems);
        if (publishers.isEmpty() || publishers.stream().anyMatch(t -> t < 1)) {
            throw new IllegalArgumentException(
                    "publishers " + publishers + " is invalid: expected values of at least 1");
        }
        if (subscriptions < 1 || subscriptions > 10_000) {
            throw new IllegalArgumentException("subscriptions " + subscriptions + " is invalid: expected 1 to 10,000");
        }
        if (consumerThreads < 1 || consumerThreads > subscriptions) {
            throw new IllegalArgumentException("consumer threads " + consumerThreads
                    + " is invalid: expected 1 to the number of subscriptions (" + subscriptions + ")");
        }
        if (receiveBatch < 1) {
            throw new IllegalArgumentException("receive batch " + receiveBatch + " is invalid: expected at least 1");
        }
        if (rate < 0 || Double.isNaN(rate)) {
            throw new IllegalArgumentException("rate " + rate + " is invalid: expected 0 (unpaced) or more");
        }
        if (warmup.isNegative() || duration.isZero() || duration.isNegative()) {
            throw new IllegalArgumentException("warm-up " + warmup + " and duration " + duration
                    + " are invalid: expected warm-up >= 0 and duration > 0");
        }
    }

    /** One consumer thread per subscription up to 64 subscriptions; beyond, 4 pollers. */
    static int defaultConsumerThreads(int subscriptions) {
        return subscriptions <= 64 ? subscriptions : Math.min(4, subscriptions);
    }

    Settings settingsFor(int publisherCount) {
        return base.withThreads(publisherCount);
    }

    List<String[]> facts() {
        String consumers = consumerThreads == subscriptions
                ? "one thread per subscription, each on its own connection and client id"
                : consumerThreads + " threads, each polling " + (subscriptions / consumerThreads)
                        + "+ subscriptions with receiveNoWait (one connection and client id per thread,"
                        + " one session per subscription, commit at a full batch or after "
                        + TopicSystem.LINGER.toMillis() + " ms)";
        return List.of(
                new String[] {"scenario", "topic"},
                new String[] {"systems", String.join(", ", systems)},
                new String[] {"publishers", publishers + " (queue: as many producers and as many consumers)"},
                new String[] {"subscriptions", subscriptions + " durable (createDurableConsumer)"},
                new String[] {"consumers", consumers},
                new String[] {
                    "rate",
                    rate > 0
                            ? String.format(Locale.ROOT, "%,.0f messages/s published in all (queue and topic)", rate)
                            : "unpaced (as fast as the publishers can)"
                },
                new String[] {"payload", base.payloadBytes() + " bytes"},
                new String[] {
                    "batch",
                    base.batchSize() + " messages per commit (publish, and the queue's receive); a subscription's"
                            + " consumer: " + receiveBatch
                },
                new String[] {"shards", Integer.toString(base.shards())},
                new String[] {"delivery", base.persistent() ? "persistent" : "non-persistent"},
                new String[] {"warm-up", warmup.toSeconds() + " s"},
                new String[] {"measured", duration.toSeconds() + " s per step"},
                new String[] {
                    "shardq",
                    Scenario.shardqSettings() + "; the topic's factory: at least "
                            + TopicSystem.poolSize(1, consumerThreads, base.shards()) + " + publishers"
                },
                new String[] {"load average", loadAtStart + " (1, 5, 15 min) at start"});
    }
}
