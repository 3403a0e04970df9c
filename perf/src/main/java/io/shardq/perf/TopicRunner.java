package io.shardq.perf;

import io.shardq.broker.BrokerConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * Runs a {@link TopicScenario}: for each publisher count, the ceiling, the queue and the topic,
 * one {@link Runner#step} each on the same server, then what only this scenario reports from the
 * system objects. After each window the producers stop and the consumers drain what was sent (up
 * to {@link #DRAIN_TIMEOUT}), so the topic's own totals show whether every message published
 * reached every subscription.
 */
final class TopicRunner {
    static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(60);

    private final Runner runner;
    private final Supplier<BrokerConfig.Builder> brokerConfig;
    private final Progress progress;

    /**
     * @param brokerConfig where the queue's and the topic's ShardQ connects: the environment's
     *     settings, or a test database's
     */
    TopicRunner(
            DataSource dataSource, Supplier<BrokerConfig.Builder> brokerConfig, MicroClock clock, Progress progress) {
        this.runner = new Runner(dataSource, SystemRegistry.standard(), clock, progress).draining(DRAIN_TIMEOUT);
        this.brokerConfig = brokerConfig;
        this.progress = progress;
    }

    List<TopicStep> run(TopicScenario scenario) throws Exception {
        List<TopicStep> steps = new ArrayList<>();
        for (int publishers : scenario.publishers()) {
            for (String name : scenario.systems()) {
                QueueSystem system = create(name, scenario);
                Settings settings = scenario.settingsFor(publishers);
                StepResult result;
                try {
                    result = runner.step(system, settings, scenario.warmup(), scenario.duration());
                } catch (Exception e) {
                    if (Thread.currentThread().isInterrupted()) {
                        throw e;
                    }
                    progress.note(name + " x" + publishers + " failed: " + Runner.describe(e));
                    result = StepResult.failed(name, publishers, system.consumes(), Runner.describe(e));
                }
                steps.add(extras(name, publishers, scenario.base().batchSize(), system, result));
            }
        }
        return steps;
    }

    private QueueSystem create(String name, TopicScenario s) {
        return switch (name) {
            case TopicScenario.CEILING -> new CeilingSystem();
            case TopicScenario.QUEUE -> new ShardQSystem(brokerConfig, s.rate());
            case TopicScenario.TOPIC ->
                new TopicSystem(brokerConfig, s.subscriptions(), s.consumerThreads(), s.rate(), s.receiveBatch());
            default ->
                throw new IllegalArgumentException(
                        "system \"" + name + "\" is invalid: expected one of " + TopicScenario.ALL);
        };
    }

    private static TopicStep extras(String name, int publishers, int batch, QueueSystem system, StepResult result) {
        String load = LoadAverage.now();
        if (system instanceof TopicSystem t) {
            return new TopicStep(
                    name,
                    publishers,
                    result,
                    t.publishCommits(),
                    t.storedRows(),
                    t.backlogs(),
                    t.published(),
                    t.delivered(),
                    batch,
                    load);
        }
        if (system instanceof ShardQSystem q) {
            return new TopicStep(
                    name,
                    publishers,
                    result,
                    q.publishCommits(),
                    q.storedRows(),
                    List.of(q.windowBacklog()),
                    -1,
                    -1,
                    batch,
                    load);
        }
        return new TopicStep(
                name, publishers, result, LatencyStats.EMPTY, StoredRows.UNKNOWN, List.of(), -1, -1, batch, load);
    }
}
