package io.shardq.perf;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;

/**
 * One run of {@code perf cache-read}. Seed 001's shape: {@code entries} route prices, random reads
 * at each of {@code threads}, latency per read. Seed 000's shape: at each of {@code sizes}, reads
 * per second at {@code scaleThreads}. The stores grow from size to size (each load adds the
 * entries missing), so one run loads the largest size once.
 *
 * @param systems in the order measured: ShardQ's get from PostgreSQL, the direct SELECT, and the
 *     near cache when there is one
 */
record CacheReadScenario(
        List<Integer> threads,
        int entries,
        List<Integer> sizes,
        int scaleThreads,
        int valueBytes,
        Duration warmup,
        Duration duration,
        List<String> systems,
        String loadAtStart) {

    /** Issue 11's targets, in microseconds. */
    static final double NEAR_HIT_P50_TARGET_MICROS = 1;

    static final double MISS_P50_TARGET_MICROS = 200;

    CacheReadScenario {
        threads = List.copyOf(threads);
        sizes = List.copyOf(sizes);
        systems = List.copyOf(systems);
        if (threads.isEmpty() || threads.stream().anyMatch(t -> t < 1 || t > 512)) {
            throw new IllegalArgumentException("threads " + threads + " is invalid: expected values from 1 to 512");
        }
        if (scaleThreads < 1 || scaleThreads > 512) {
            throw new IllegalArgumentException("scale threads " + scaleThreads + " is invalid: expected 1 to 512");
        }
        RouteData.checkEntries(entries);
        sizes.forEach(RouteData::checkEntries);
        new RouteData(valueBytes); // checks the size
        if (warmup.isNegative() || duration.isZero() || duration.isNegative()) {
            throw new IllegalArgumentException("warm-up " + warmup + " and duration " + duration
                    + " are invalid: expected warm-up >= 0 and duration > 0");
        }
    }

    /** Every size loaded, ascending: the sweep's and {@code entries}. */
    List<Integer> loadedSizes() {
        TreeSet<Integer> all = new TreeSet<>(sizes);
        all.add(entries);
        return List.copyOf(all);
    }

    /** The thread counts measured once {@code size} entries are loaded, in order. */
    List<Integer> threadsAt(int size) {
        List<Integer> out = new ArrayList<>();
        if (size == entries) {
            threads.forEach(t -> {
                if (!out.contains(t)) {
                    out.add(t);
                }
            });
        }
        if (sizes.contains(size) && !out.contains(scaleThreads)) {
            out.add(scaleThreads);
        }
        return out;
    }

    List<String[]> facts() {
        return List.of(
                new String[] {
                    "scenario", "cache-read (seed 001: random reads of route prices; seed 000: reads/s by size)"
                },
                new String[] {"systems", String.join(", ", systems)},
                new String[] {
                    "entries", String.format(Locale.ROOT, "%,d for the latencies, at threads %s", entries, threads)
                },
                new String[] {"sizes", sizes + " entries for reads/s by size, at " + scaleThreads + " thread(s)"},
                new String[] {
                    "key, value",
                    "route keys of 18 bytes (LHR-JFK-2026-12-01), values of " + valueBytes + " bytes (JSON-like)"
                },
                new String[] {"reads", "uniformly random keys, all present; a read returning nothing counts as missing"
                },
                new String[] {
                    "cache",
                    "durable, no TTL, loaded with putAll of " + KvReadSystem.LOAD_BATCH + " by "
                            + CacheReadRunner.LOAD_THREADS + " threads"
                },
                new String[] {"warm-up", warmup.toMillis() / 1000.0 + " s per step"},
                new String[] {"measured", duration.toMillis() / 1000.0 + " s per step"},
                new String[] {"shardq", Scenario.shardqSettings() + "; this command's broker: pool of max threads + 4"},
                new String[] {"load average", loadAtStart + " (1, 5, 15 min) at start"});
    }
}
