package io.shardq.perf;

import java.util.List;
import java.util.Locale;

/**
 * One run of {@code perf cache-putall}, seed 003's shape: {@code threads} threads write {@code
 * entries} entries in batches of {@code batch} ({@code putAll} with {@code maxBatchSize} =
 * batch), {@code runs} times, ShardQ and the upsert reference each time.
 *
 * @param warmupRuns unreported writes of each system before the runs
 * @param valueBytes size of each value; keys are route keys of 18 bytes ({@link RouteData})
 * @param loadAtStart the machine's load average when the command started
 */
record CachePutAllScenario(
        int threads, int entries, int batch, int valueBytes, int runs, int warmupRuns, String loadAtStart) {

    /** Issue 11's target for ShardQ's time, in milliseconds. */
    static final long TARGET_MS = 1_000;

    CachePutAllScenario {
        if (threads < 1 || threads > 512) {
            throw new IllegalArgumentException("threads " + threads + " is invalid: expected 1 to 512");
        }
        RouteData.checkEntries(entries);
        if (batch < 1 || batch > 10_000) {
            throw new IllegalArgumentException("batch " + batch + " is invalid: expected 1 to 10,000 entries");
        }
        if (runs < 1 || runs > 100) {
            throw new IllegalArgumentException("runs " + runs + " is invalid: expected 1 to 100");
        }
        if (warmupRuns < 0 || warmupRuns > 10) {
            throw new IllegalArgumentException("warm-up runs " + warmupRuns + " is invalid: expected 0 to 10");
        }
        new RouteData(valueBytes); // checks the size
    }

    List<String[]> facts() {
        return List.of(
                new String[] {"scenario", "cache-putall (seed 003: threads x putAll batches into an empty cache)"},
                new String[] {
                    "systems",
                    "shardq (KvCache#putAll, unbound), shardq-tx (KvCache#putAll in a transacted session, then its"
                            + " commit), upsert (INSERT ... ON CONFLICT from unnest)"
                },
                new String[] {"threads", Integer.toString(threads)},
                new String[] {
                    "entries", String.format(Locale.ROOT, "%,d per run, split evenly over the threads", entries)
                },
                new String[] {"batch", batch + " entries per putAll, maxBatchSize " + batch},
                new String[] {
                    "key, value", "route keys of 18 bytes (LHR-JFK-2026-12-01), values of " + valueBytes + " bytes"
                },
                new String[] {"cache", "durable, no TTL, created empty before each run"},
                new String[] {
                    "runs",
                    runs + " (order alternates: odd runs in the order above, even runs reversed), after " + warmupRuns
                            + " unreported warm-up write(s) of each"
                },
                new String[] {"shardq", Scenario.shardqSettings() + "; this command's broker: pool of threads + 4"},
                new String[] {"load average", loadAtStart + " (1, 5, 15 min) at start"});
    }
}
