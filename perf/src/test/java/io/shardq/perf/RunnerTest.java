package io.shardq.perf;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** The plumbing of a run, on a real database. Never asserts on speed. */
@PgTest
class RunnerTest {

    @Test
    void run_measuresEachSystem_andCleansUp_andGoesOn_whenOneFails(TestDatabase db) throws Exception {
        SystemRegistry registry = SystemRegistry.standard().register("broken", BrokenSystem::new);
        StringWriter progress = new StringWriter();
        Runner runner = new Runner(
                db.dataSource(),
                registry,
                MicroClock.system(),
                new Progress(new PrintWriter(progress, true), false, Duration.ZERO));
        Scenario scenario = new Scenario(
                List.of(1),
                List.of("ceiling", "broken", "naive"),
                Duration.ofMillis(300),
                Duration.ofSeconds(1),
                new Settings(1, 64, 5, 2, true, false));

        Comparison run = new Comparison(runner.run(scenario));

        assertThat(run.systems()).containsExactly("ceiling", "broken", "naive");
        StepResult ceiling = run.get("ceiling", 1);
        assertThat(ceiling.consumes()).isFalse();
        assertThat(ceiling.enqueued()).isPositive();
        assertThat(ceiling.seconds()).isBetween(0.9, 5.0);
        assertThat(ceiling.backlog()).isGreaterThanOrEqualTo(ceiling.enqueued());
        assertThat(ceiling.tableBytes()).isPositive();
        assertThat(ceiling.latency().count()).isZero();
        assertThat(ceiling.dequeueRate()).isNaN();
        assertThat(run.enqueueVsCeiling(ceiling)).isEqualTo(1.0);
        assertThat(ceiling.errors()).isZero();

        StepResult naive = run.get("naive", 1);
        assertThat(naive.consumes()).isTrue();
        assertThat(naive.enqueued()).isPositive();
        assertThat(naive.dequeued()).isPositive();
        assertThat(naive.latency().count()).isPositive();
        assertThat(naive.latency().p50()).isLessThanOrEqualTo(naive.latency().p99());
        assertThat(naive.walBytesPerMessage()).isGreaterThan(64);
        assertThat(naive.sqlReadsPerMessage()).isPositive();
        assertThat(naive.backlog()).isGreaterThanOrEqualTo(0);
        assertThat(naive.jvmCpuSeconds()).isPositive();
        assertThat(naive.errors()).isZero();
        assertThat(run.dequeueVsNaive(naive)).isEqualTo(1.0);

        StepResult broken = run.get("broken", 1);
        assertThat(broken.firstError()).contains("no such queue");
        assertThat(broken.enqueueRate()).isNaN();

        assertThat(Tables.exists(db, "shardq_perf.ceiling")).isFalse();
        assertThat(Tables.exists(db, "shardq_perf.naive_queue")).isFalse();
        assertThat(progress.toString())
                .contains("ceiling x1")
                .contains("naive x1")
                .contains("measure")
                .contains("broken x1 failed: no such queue");
    }

    /** A system whose setUp fails, as a half-written one would. */
    static final class BrokenSystem implements QueueSystem {
        @Override
        public String name() {
            return "broken";
        }

        @Override
        public void setUp(DataSource dataSource, Settings settings) {
            throw new IllegalStateException("no such queue");
        }

        @Override
        public Producer producer() {
            throw new AssertionError("not reached");
        }

        @Override
        public long backlog() {
            return 0;
        }

        @Override
        public List<String> tables() {
            return List.of();
        }

        @Override
        public void tearDown() {}
    }
}
