/**
 * Metrics of a running ShardQ broker: {@link io.shardq.metrics.ShardQMetrics}, a Micrometer
 * {@code MeterBinder}, and {@link io.shardq.metrics.ShardQMBeans}, the same figures as JMX
 * MXBeans. Both read the engine's in-memory counters at every read and the figures that need SQL
 * from one snapshot per interval; both follow destinations, subscriptions and caches as they are
 * created and dropped. Every meter is listed in {@code docs/design/operations.md}, "Metrics and JMX
 * (issue 13)". Uses only the engine's API ({@code io.shardq.broker.testing.ApiBoundary}).
 */
package io.shardq.metrics;
