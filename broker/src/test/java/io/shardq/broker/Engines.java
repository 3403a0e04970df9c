package io.shardq.broker;

import io.shardq.broker.shard.Engine;

/**
 * The engine's tests' way in to an instance's internals (runtimes, cache, settings, connections).
 * Test code only: {@link Broker} has no public door to its {@link Engine}, so an application
 * holding a broker (through {@code ShardQConnectionFactory.broker()}) cannot reach it.
 */
public final class Engines {
    private Engines() {}

    /** The {@link Engine} view of {@code broker}. */
    public static Engine of(Broker broker) {
        return broker.core();
    }
}
