/**
 * Benchmarks of ShardQ against references measured in the same run.
 *
 * <p>{@link io.shardq.perf.PerfCommand} is the command line:
 *
 * <pre>{@code
 * ./mvnw -o -q -B -pl perf dependency:build-classpath -Dmdep.outputFile=/tmp/perf.cp
 * ./mvnw -o -q -B -pl perf compile
 * java -cp "$(cat /tmp/perf.cp):perf/target/classes" io.shardq.perf.PerfCommand \
 *     queue --threads 1,2,4 --warmup 5 --duration 20 --out target/perf
 * }</pre>
 *
 * <p>A step runs one {@link io.shardq.perf.QueueSystem} with P producer and P consumer threads
 * for a warm-up and a measured window. The references are {@link io.shardq.perf.CeilingSystem}
 * (a plain multi-row INSERT, the most any PostgreSQL queue can enqueue) and {@link
 * io.shardq.perf.NaiveSkipLockedSystem} (the common {@code FOR UPDATE SKIP LOCKED} queue); the
 * report divides every system's enqueue rate by the ceiling's and its dequeue rate by the naive
 * queue's, measured at the same threads value.
 *
 * <p>Adding a system is one class implementing {@link io.shardq.perf.QueueSystem} and one line
 * in {@code SystemRegistry.standard()}; {@code shardq} is already a known name there, reported
 * as "not available yet" until {@code ShardQSystem} is registered.
 *
 * <p>The arithmetic lives in small pure classes ({@code Rates}, {@code WalDelta}, {@code
 * LatencyStats}) so it is tested without a database; everything read from the server goes
 * through {@code ServerProbe}; producers and consumers run in {@code Load}; the steps are
 * sequenced by {@code Runner}.
 */
package io.shardq.perf;
