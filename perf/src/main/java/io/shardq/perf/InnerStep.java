package io.shardq.perf;

/**
 * One step inside a system under test, as the system itself times it over the measured window
 * (ShardQ: {@code StepTimes}), in microseconds: where the end-to-end latency goes.
 */
record InnerStep(String name, long count, long p50, long p90, long p99, long max) {}
