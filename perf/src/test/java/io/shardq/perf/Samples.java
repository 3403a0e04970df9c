package io.shardq.perf;

import java.time.Duration;
import java.util.List;
import org.HdrHistogram.Histogram;

/** A made-up run for report tests: two threads values, ceiling and naive, one odd system. */
final class Samples {
    private Samples() {}

    static Environment environment(String synchronousCommit) {
        return new Environment(
                "jdbc:postgresql://127.0.0.1:5432/shardq",
                false,
                "17.6",
                "on",
                synchronousCommit,
                "on",
                "on",
                "128MB",
                2,
                "OpenJDK 17",
                "Linux");
    }

    static Scenario scenario(boolean unsafe) {
        return new Scenario(
                List.of(1, 2),
                List.of("ceiling", "naive", "odd"),
                Duration.ofSeconds(1),
                Duration.ofSeconds(5),
                new Settings(1, 512, 10, 8, true, unsafe));
    }

    static StepResult ceiling(int threads, double rate) {
        double nan = Double.NaN;
        return new StepResult(
                "ceiling",
                threads,
                false,
                5.0,
                (long) (rate * 5),
                0,
                rate,
                nan,
                (long) (rate * 6),
                LatencyStats.EMPTY,
                664.5,
                nan,
                1_000_000,
                0,
                2.5,
                3.0,
                (long) (rate * 5 / 10),
                0,
                null,
                List.of());
    }

    static StepResult naive(int threads, double enqueue, double dequeue) {
        Histogram h = LatencyStats.newHistogram();
        for (long v = 1; v <= 1000; v++) {
            h.recordValue(v * 10);
        }
        return new StepResult(
                "naive",
                threads,
                true,
                5.0,
                (long) (enqueue * 5),
                (long) (dequeue * 5),
                enqueue,
                dequeue,
                120,
                LatencyStats.of(h),
                780.25,
                0.1,
                2_000_000,
                345,
                1.5,
                Double.NaN,
                (long) (dequeue * 5 * 0.3),
                0,
                null,
                List.of());
    }

    static StepResult odd(int threads) {
        return StepResult.failed("odd", threads, true, "boom, \"quoted\"\nsecond line <b>&</b>");
    }

    static Comparison run() {
        return new Comparison(List.of(
                ceiling(1, 20_000), naive(1, 18_000, 1_000), odd(1), ceiling(2, 30_000), naive(2, 8_000, 6_000)));
    }

    static RunReport report(boolean unsafe) {
        return new RunReport(environment(unsafe ? "off" : "on"), scenario(unsafe), run());
    }
}
