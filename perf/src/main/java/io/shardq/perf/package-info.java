/**
 * Benchmarks of ShardQ against references measured in the same run.
 *
 * <p>{@link io.shardq.perf.PerfCommand} is the command line. A benchmark step runs one {@link
 * io.shardq.perf.QueueSystem} with P producer and P consumer threads for a warm-up and a measured
 * window; the references are {@link io.shardq.perf.CeilingSystem} (a plain multi-row INSERT, the
 * most any PostgreSQL queue can enqueue) and {@link io.shardq.perf.NaiveSkipLockedSystem} (the
 * common {@code FOR UPDATE SKIP LOCKED} queue). A new system is one class implementing {@link
 * io.shardq.perf.QueueSystem}, plus one line in {@link io.shardq.perf.SystemRegistry}.
 *
 * <p>The arithmetic lives in small pure classes ({@code Rates}, {@code WalDelta}, {@code
 * LatencyStats}) so it is tested without a database; everything measured on the server goes
 * through {@code ServerProbe}.
 */
package io.shardq.perf;
