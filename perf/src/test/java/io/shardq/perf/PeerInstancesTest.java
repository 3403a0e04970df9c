package io.shardq.perf;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code perf queue --instances 2} briefly on a real database: a second ShardQ instance runs in a
 * peer JVM on the same queue, the runner adds its counts to the step and reports each instance's
 * rates. Never asserts on speed.
 */
@PgTest
class PeerInstancesTest {

    @Test
    void twoInstances_bothSend_andTheStepCountsBoth(TestDatabase db) throws Exception {
        StringWriter progress = new StringWriter();
        SystemRegistry registry = new SystemRegistry()
                .register(SystemRegistry.SHARDQ, () -> new ShardQSystem(db::brokerConfig, 0).instances(2));
        Runner runner = new Runner(
                db.dataSource(),
                registry,
                MicroClock.system(),
                new Progress(new PrintWriter(progress, true), false, Duration.ZERO));
        Scenario scenario = new Scenario(
                List.of(2),
                List.of(SystemRegistry.SHARDQ),
                Duration.ofMillis(500),
                Duration.ofSeconds(2),
                new Settings(2, 64, 5, 4, true, false),
                2);

        StepResult step = new Comparison(runner.run(scenario)).get(SystemRegistry.SHARDQ, 2);

        assertThat(step.errors()).as(step.firstError()).isZero();
        Matcher m = Pattern.compile(
                        "shardq x2 per instance: #1 \\(this JVM\\) enqueued ([\\d,]+)/s dequeued ([\\d,]+)/s;"
                                + " #2 enqueued ([\\d,]+)/s dequeued ([\\d,]+)/s")
                .matcher(progress.toString());
        assertThat(m.find()).as(progress.toString()).isTrue();
        long firstEnqueued = rate(m.group(1));
        long secondEnqueued = rate(m.group(3));
        assertThat(firstEnqueued).as("this JVM's producer sent").isPositive();
        assertThat(secondEnqueued).as("the peer JVM's producer sent").isPositive();
        assertThat(step.enqueued()).as("the step counts both instances' sends").isGreaterThan(0);
        assertThat(step.dequeued()).isPositive();
        assertThat(step.latency().count()).isPositive();
    }

    private static long rate(String digits) {
        return Long.parseLong(digits.replace(",", ""));
    }
}
