/**
 * Benchmarks of ShardQ against references measured in the same run.
 *
 * <p>{@link io.shardq.perf.PerfCommand} is the command line, run by {@code ./shardq perf}, which
 * builds the runnable {@code perf/target/shardq-perf.jar} when it is missing or older than the
 * sources. {@code docs/performance.md} has the commands, what each hot path costs in statements,
 * and measured figures.
 *
 * <pre>{@code
 * export SHARDQ_EMBEDDED_DATA_DIR=/tmp/perf-pg/pgdata     # a server of its own
 * ./shardq perf queue --threads 1,2,4 --warmup 5 --duration 20 --out target/perf
 * ./shardq perf queue --async --threads 1,4 --systems shardq,ceiling
 * ./shardq perf delay --out target/perf-delay
 * ./shardq perf mixed --stages 4,8,16,32 --stage-seconds 20 --out target/perf-mixed
 * ./shardq perf topic --publishers 1,4 --duration 15 --warmup 5 --out target/perf-topic
 * ./shardq perf topic --subscriptions 1000 --rate 10 --publishers 1
 * ./shardq perf cache-putall --out target/perf-putall
 * ./shardq perf cache-read --out target/perf-read
 * }</pre>
 *
 * <h2>queue</h2>
 *
 * <p>A step runs one {@link io.shardq.perf.QueueSystem} with P producer and P consumer threads
 * for a warm-up and a measured window. The references are {@link io.shardq.perf.CeilingSystem}
 * (a plain multi-row INSERT, the most any PostgreSQL queue can enqueue) and {@link
 * io.shardq.perf.NaiveSkipLockedSystem} (the common {@code FOR UPDATE SKIP LOCKED} queue); the
 * report divides every system's enqueue rate by the ceiling's and its dequeue rate by the naive
 * queue's, measured at the same threads value.
 *
 * <p>Adding a system is one class implementing {@link io.shardq.perf.QueueSystem} and one line
 * in {@code SystemRegistry.standard()}; a name known there but not registered yet is reported as
 * "not available yet" and the run goes on with the others.
 *
 * <p>The arithmetic lives in small pure classes ({@code Rates}, {@code WalDelta}, {@code
 * LatencyStats}) so it is tested without a database; everything read from the server goes
 * through {@code ServerProbe}; producers and consumers run in {@code Load}; the steps are
 * sequenced by {@code Runner}.
 *
 * <p>{@code --async} (issue 12) adds {@code shardq-async} right after {@code shardq}: the same
 * {@code ShardQSystem} and consumers, its producers a {@code JmsAsyncProducer} each (a
 * non-transacted session sending every message with a {@code CompletionListener}, a bounded
 * number in flight); {@code Comparison#enqueueVsSync} is the report's {@code async/sync}.
 *
 * <h2>mixed</h2>
 *
 * <p>After the TPoX benchmark: {@link io.shardq.perf.MixedUser}s, one transacted JMS session and
 * one thread each, pick a template of a {@code Workload} by weight ({@code WeightedChoice}),
 * run its steps (send, receive, browse, and the application's own UPDATE or INSERT on {@code
 * ShardQSession#getConnection()}), commit, and pick again, with no think time. {@code
 * MixedRunner} runs the stages of growing user counts on one queue and one set of application
 * tables, and checks at the end that the application rows changed exactly as often as the
 * transactions that change them committed ({@code ApplicationCheck}). The workload file format
 * is in {@code WorkloadParser} and the built-in workload, {@code mixed-default.workload}.
 *
 * <h2>topic</h2>
 *
 * <p>Issue 10's benchmark. {@code TopicRunner} runs, for each publisher count P and through the
 * same {@code Runner#step} as {@code queue}: the ceiling, the queue end to end ({@code
 * ShardQSystem}, P producers and P consumers) and {@link io.shardq.perf.TopicSystem} (P
 * publishers, S durable subscriptions, one consumer thread each or a few pollers for many), so
 * deliveries per second, WAL per delivery and the publish cost are ratios within one run ({@code
 * TopicComparison}, which also states the targets). The systems record what only this scenario
 * reports at the window's edges ({@code QueueSystem#measureStarts}/{@code measureEnds}): each
 * subscription's backlog, the publish commits ({@code PublishMeter}) and the stored row size
 * ({@code StoredRows}). After each window the runner drains, so the topic's own totals must show
 * every message published delivered to every subscription.
 *
 * <h2>delay</h2>
 *
 * <p>Issue 12's delivery-delay benchmark, not a {@code QueueSystem} step: {@code DelayRunner}
 * has producers schedule every message (a delivery time drawn from a window, sent with the delay
 * that makes it due then), consumers receive them, and measures each delivery's lateness after
 * its {@code JMSDeliveryTime}, early deliveries and exactly-once (a bit set of sequence numbers),
 * and what the server ran in each phase ({@code SqlCounters}: {@code pg_stat_statements} when the
 * server preloads it, {@code pg_stat_database} always). {@code DelayReport} renders it.
 *
 * <h2>cache-putall and cache-read</h2>
 *
 * <p>Issue 11's benchmarks of the key/value cache, on route-price data ({@code RouteData}).
 * {@code CachePutAllRunner} has T threads write every entry with {@code putAll} ({@link
 * io.shardq.perf.KvPutAllSystem}) and with a hand-written multi-row upsert ({@link
 * io.shardq.perf.UpsertPutAllSystem}), once per run, and checks the count after each. {@code
 * CacheReadRunner} grows a {@link io.shardq.perf.ReadSystem} of each kind size by size and times
 * random reads: the cache's get from PostgreSQL ({@link io.shardq.perf.KvReadSystem}) against a
 * primary-key SELECT ({@link io.shardq.perf.SelectReadSystem}), and the near cache's hits
 * ({@link io.shardq.perf.NearCache}, a second instance with a near cache big enough for every
 * entry, reading the same cache).
 */
package io.shardq.perf;
