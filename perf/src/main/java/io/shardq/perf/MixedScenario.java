package io.shardq.perf;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One run of the {@code mixed} scenario: the workload, run by each user count of {@code stages}
 * in turn on the same queue and application tables (the data grows from stage to stage, as in
 * TPoX's staged runs).
 *
 * @param stages concurrent users of each stage, in the order run
 * @param warmup per stage, not measured: the new users' sessions settle, leases move
 * @param duration measured time per stage
 * @param unsafe the run's sessions use {@code synchronous_commit=off}
 */
record MixedScenario(Workload workload, List<Integer> stages, Duration warmup, Duration duration, boolean unsafe) {

    /** Each user may hold two connections (see MixedRunner); 128 users stay within a server of 300. */
    static final int MAX_USERS = 128;

    MixedScenario {
        stages = List.copyOf(stages);
        if (stages.isEmpty() || stages.stream().anyMatch(u -> u < 1 || u > MAX_USERS)) {
            throw new IllegalArgumentException(
                    "stages " + stages + " are invalid: expected user counts from 1 to " + MAX_USERS);
        }
        if (warmup.isNegative() || duration.isZero() || duration.isNegative()) {
            throw new IllegalArgumentException("warm-up " + warmup + " and stage duration " + duration
                    + " are invalid: expected warm-up >= 0 and duration > 0");
        }
    }

    int maxUsers() {
        return stages.stream().mapToInt(Integer::intValue).max().orElse(1);
    }

    /** {@code name  value} lines of the scenario, printed after the environment. */
    List<String[]> facts() {
        List<String[]> f = new ArrayList<>();
        f.add(new String[] {"scenario", "mixed (TPoX-style: weighted transaction templates, no think time)"});
        f.add(new String[] {"workload", workload.source()});
        int total = workload.totalWeight();
        for (Workload.Template t : workload.templates()) {
            f.add(new String[] {
                "  " + t.name(),
                String.format(
                        Locale.ROOT, "weight %d (%.0f%%): %s", t.weight(), 100.0 * t.weight() / total, t.describe())
            });
        }
        f.add(new String[] {"stages", stages + " users"});
        f.add(new String[] {"accounts", String.format(Locale.ROOT, "%,d rows", workload.accounts())});
        f.add(new String[] {"payload", workload.payloadBytes() + " bytes, persistent"});
        f.add(new String[] {"shards", Integer.toString(workload.shards())});
        f.add(new String[] {"prefill", String.format(Locale.ROOT, "%,d messages", workload.prefill())});
        f.add(new String[] {"receive wait", workload.receiveWaitMillis() + " ms for the first message"});
        f.add(new String[] {"warm-up", warmup.toSeconds() + " s per stage"});
        f.add(new String[] {"measured", duration.toSeconds() + " s per stage"});
        return f;
    }
}
