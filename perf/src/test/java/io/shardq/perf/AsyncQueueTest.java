package io.shardq.perf;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code perf queue --async} briefly on a real database: the synchronous and the asynchronous
 * ShardQ run back to back, every message sent either way is delivered, and the report compares
 * them. Never asserts on speed.
 */
@PgTest
class AsyncQueueTest {

    @Test
    void asyncAndSync_runBackToBack_andEveryAcceptedSendIsDelivered(TestDatabase db) throws Exception {
        SystemRegistry registry = new SystemRegistry()
                .register(SystemRegistry.SHARDQ, () -> new ShardQSystem(db::brokerConfig, 0))
                .register(ShardQSystem.ASYNC_NAME, () -> ShardQSystem.async(db::brokerConfig, 2));
        Runner runner = new Runner(
                        db.dataSource(),
                        registry,
                        MicroClock.system(),
                        new Progress(new PrintWriter(new StringWriter(), true), false, Duration.ZERO))
                .draining(Duration.ofSeconds(30));
        Scenario scenario = new Scenario(
                List.of(1, 2),
                List.of(SystemRegistry.SHARDQ, ShardQSystem.ASYNC_NAME),
                Duration.ofMillis(300),
                Duration.ofSeconds(1),
                new Settings(1, 64, 5, 2, true, false),
                2);

        Comparison run = new Comparison(runner.run(scenario));

        assertThat(run.hasAsync()).isTrue();
        for (int threads : List.of(1, 2)) {
            StepResult async = run.get(ShardQSystem.ASYNC_NAME, threads);
            StepResult sync = run.get(SystemRegistry.SHARDQ, threads);
            assertThat(async.errors()).as(async.firstError()).isZero();
            assertThat(async.enqueued()).isPositive();
            assertThat(async.dequeued()).isPositive();
            assertThat(async.latency().count()).isPositive();
            assertThat(async.backlog())
                    .as("drained: every send accepted was delivered")
                    .isZero();
            assertThat(sync.backlog()).isZero();
            assertThat(run.enqueueVsSync(async)).isPositive().isFinite();
            assertThat(run.enqueueVsSync(sync)).isNaN();
        }

        Environment env = new ServerProbe(db.dataSource()).environment("test", false);
        String text = TextReport.render(env, scenario, run);
        assertThat(text)
                .contains("async/sync")
                .contains("send: shardq-async")
                .contains("at most 2 batches (10 messages) awaiting completion")
                .contains("send: shardq ");
        String html = HtmlReport.render(new RunReport(env, scenario, run));
        assertThat(html).contains("<th>async/sync</th>").contains(ShardQSystem.ASYNC_NAME);
        assertThat(CsvReport.render(new RunReport(env, scenario, run))).contains("enqueue_vs_sync");
        @SuppressWarnings("unchecked")
        java.util.Map<String, Object> json =
                (java.util.Map<String, Object>) Json.parse(JsonReport.render(new RunReport(env, scenario, run)));
        @SuppressWarnings("unchecked")
        java.util.Map<String, Object> sc = (java.util.Map<String, Object>) json.get("scenario");
        assertThat(sc).containsEntry("async_in_flight_batches", 2.0);
        @SuppressWarnings("unchecked")
        List<java.util.Map<String, Object>> rows = (List<java.util.Map<String, Object>>) json.get("results");
        assertThat(rows)
                .filteredOn(r -> ShardQSystem.ASYNC_NAME.equals(r.get("system")))
                .allSatisfy(r -> assertThat((Double) r.get("enqueue_vs_sync")).isPositive());
    }

    @Test
    void asyncOption_putsTheAsyncSystemRightAfterShardq() {
        assertThat(systems("--async")).containsExactly("shardq", "shardq-async", "ceiling", "naive");
        assertThat(systems("--async", "--systems", "ceiling")).containsExactly("shardq", "shardq-async", "ceiling");
        assertThat(systems("--async", "--systems", "ceiling,shardq"))
                .containsExactly("ceiling", "shardq", "shardq-async");
        assertThat(systems()).containsExactly("shardq", "ceiling", "naive");
    }

    @Test
    void asyncInFlight_ofZero_isRefused() {
        StringWriter err = new StringWriter();
        int code = PerfCommand.execute(
                new String[] {"queue", "--async", "--async-in-flight", "0"},
                new PrintWriter(new StringWriter(), true),
                new PrintWriter(err, true));
        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("--async-in-flight 0 is invalid: expected at least 1 batch");
    }

    private static List<String> systems(String... args) {
        QueueCommand cmd = new QueueCommand();
        new CommandLine(cmd).parseArgs(args);
        return cmd.scenario(new ArrayList<>()).systems();
    }
}
