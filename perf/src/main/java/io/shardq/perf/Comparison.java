package io.shardq.perf;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The ratios of a run, between systems measured at the same threads value: enqueue rate against
 * the ceiling's, dequeue rate against the naive queue's, and messages per second (deliveries, or a
 * ceiling's inserts) against each ceiling's inserts.
 */
final class Comparison {
    private final List<StepResult> results;
    private final Map<String, StepResult> byKey = new LinkedHashMap<>();

    Comparison(List<StepResult> results) {
        this.results = List.copyOf(results);
        for (StepResult r : results) {
            byKey.put(key(r.system(), r.threads()), r);
        }
    }

    List<StepResult> results() {
        return results;
    }

    /** This system's enqueue rate divided by the ceiling's at the same threads; NaN without one. */
    double enqueueVsCeiling(StepResult r) {
        StepResult ceiling = byKey.get(key(CeilingSystem.NAME, r.threads()));
        return ceiling == null ? Double.NaN : Rates.ratio(r.enqueueRate(), ceiling.enqueueRate());
    }

    /**
     * This system's {@linkplain StepResult#messageRate() messages per second} (end-to-end deliveries
     * for a queue, inserts for a ceiling) divided by the two-round-trip ceiling's inserts per second
     * at the same threads (issue 25's reference); NaN without one.
     */
    double messagesVsCeiling2(StepResult r) {
        StepResult ceiling2 = byKey.get(key(Ceiling2System.NAME, r.threads()));
        return ceiling2 == null ? Double.NaN : Rates.ratio(r.messageRate(), ceiling2.enqueueRate());
    }

    /**
     * The same against the one-round-trip ceiling: {@linkplain StepResult#messageRate() messages
     * per second} divided by {@value CeilingSystem#NAME}'s inserts per second; NaN without one.
     */
    double messagesVsCeiling(StepResult r) {
        StepResult ceiling = byKey.get(key(CeilingSystem.NAME, r.threads()));
        return ceiling == null ? Double.NaN : Rates.ratio(r.messageRate(), ceiling.enqueueRate());
    }

    /** This system's dequeue rate divided by the naive queue's at the same threads; NaN without one. */
    double dequeueVsNaive(StepResult r) {
        StepResult naive = byKey.get(key(NaiveSkipLockedSystem.NAME, r.threads()));
        return naive == null || !r.consumes() ? Double.NaN : Rates.ratio(r.dequeueRate(), naive.dequeueRate());
    }

    /**
     * The asynchronous ShardQ's enqueue rate divided by the synchronous one's at the same threads;
     * NaN for every other system or without both.
     */
    double enqueueVsSync(StepResult r) {
        StepResult sync = byKey.get(key(SystemRegistry.SHARDQ, r.threads()));
        return sync == null || !r.system().equals(ShardQSystem.ASYNC_NAME)
                ? Double.NaN
                : Rates.ratio(r.enqueueRate(), sync.enqueueRate());
    }

    /** Whether the run measured the asynchronous ShardQ (its reports then show async/sync). */
    boolean hasAsync() {
        return results.stream().anyMatch(r -> r.system().equals(ShardQSystem.ASYNC_NAME));
    }

    /** The threads values, ascending. */
    List<Integer> threadValues() {
        TreeSet<Integer> t = new TreeSet<>();
        results.forEach(r -> t.add(r.threads()));
        return List.copyOf(t);
    }

    /** The systems, in the order they first ran. */
    List<String> systems() {
        return results.stream().map(StepResult::system).distinct().toList();
    }

    /** The result of one system at one threads value, or null. */
    StepResult get(String system, int threads) {
        return byKey.get(key(system, threads));
    }

    private static String key(String system, int threads) {
        return system + "@" + threads;
    }
}
