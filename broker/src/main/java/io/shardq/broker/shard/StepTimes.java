package io.shardq.broker.shard;

import java.util.EnumMap;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Where a message's time goes inside this instance, step by step from the producer's commit to
 * the consumer's: one HdrHistogram {@link Recorder} per step (wait-free for the recording
 * threads), read as intervals. Microseconds.
 *
 * <p>The steps: {@link Step#SEND_COMMIT} a session commit that writes messages (group commit
 * included) until they are visible to local consumers; {@link Step#VISIBLE_TO_TAKEN} from then
 * until a consumer session takes the message (queueing inside ShardQ: waiters not woken, busy
 * consumers, shards not leased); {@link Step#CONSUMER_COMMIT} a commit that consumes messages
 * (cursor move or log), including a wait for the shard's mover in flight.
 */
public final class StepTimes {
    /** One step of the path from a producer's commit to a consumer's. */
    public enum Step {
        SEND_COMMIT,
        VISIBLE_TO_TAKEN,
        CONSUMER_COMMIT
    }

    /** Percentiles of one step over an interval, in microseconds. */
    public record Summary(long count, long p50, long p90, long p99, long max) {
        static Summary of(Histogram h) {
            return new Summary(
                    h.getTotalCount(),
                    h.getValueAtPercentile(50),
                    h.getValueAtPercentile(90),
                    h.getValueAtPercentile(99),
                    h.getMaxValue());
        }
    }

    private static final long HIGHEST_MICROS = 3_600_000_000L;

    private final EnumMap<Step, Recorder> recorders = new EnumMap<>(Step.class);

    StepTimes() {
        for (Step s : Step.values()) {
            recorders.put(s, new Recorder(HIGHEST_MICROS, 2));
        }
    }

    void record(Step step, long nanos) {
        recorders.get(step).recordValue(Math.min(HIGHEST_MICROS, Math.max(0, nanos / 1000)));
    }

    /**
     * The percentiles of each step since the previous call (the first call covers the time since
     * the instance started); the interval restarts.
     */
    public synchronized Map<Step, Summary> interval() {
        EnumMap<Step, Summary> out = new EnumMap<>(Step.class);
        recorders.forEach((step, r) -> out.put(step, Summary.of(r.getIntervalHistogram())));
        return out;
    }
}
