package io.shardq.perf;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code perf delay} at a tiny size on a real database: every message delivered exactly once and
 * never before its JMSDeliveryTime, the report's shape and files. Never asserts on speed.
 */
@PgTest
class DelayCommandTest {
    private final StringWriter out = new StringWriter();

    @Test
    void delay_deliversEveryMessageOnce_neverEarly_andReportsLatenessAndSql(TestDatabase db, @TempDir Path dir)
            throws Exception {
        Environment env = new ServerProbe(db.dataSource()).environment("test", false);
        DelayScenario scenario = new DelayScenario(
                2_000,
                Duration.ofSeconds(2),
                Duration.ofSeconds(2),
                2,
                2,
                50,
                64,
                2,
                Duration.ofSeconds(30),
                "0.00 0.00 0.00");

        DelayReport report =
                DelayCommand.run(db.dataSource(), () -> db.brokerConfig(), env, scenario, new PrintWriter(out, true));

        DelayResult r = report.result();
        assertThat(r.errors()).as(r.firstError()).isZero();
        assertThat(r.scheduled()).isEqualTo(2_000);
        assertThat(r.delivered()).isEqualTo(2_000);
        assertThat(r.duplicates()).isZero();
        assertThat(r.missing()).isZero();
        assertThat(r.early()).isZero();
        assertThat(r.minLatenessMicros()).isNotNegative();
        assertThat(r.leftScheduled()).isZero();
        assertThat(r.lateness().count()).isEqualTo(2_000);
        assertThat(r.lateness().p50()).isLessThanOrEqualTo(r.lateness().p99());
        assertThat(r.timeline()).isNotEmpty();
        assertThat(r.timeline().stream()
                        .mapToLong(DelayResult.Second::delivered)
                        .sum())
                .isEqualTo(2_000);
        assertThat(r.delivering().transactions()).isPositive();
        assertThat(r.transactionsPerDelivery()).isPositive();
        assertThat(r.balanced()).isTrue();
        assertThat(DelayCommand.exitCode(report)).isZero();
        assertThat(out.toString())
                .startsWith("ShardQ benchmark: delay")
                .contains("messages            2,000 persistent, 64 bytes")
                .contains("lateness p99")
                .contains("transactions per delivered message")
                .contains("balance: all 2,000 messages delivered exactly once, none early");

        List<Path> files = report.writeTo(dir);
        assertThat(files)
                .extracting(p -> p.getFileName().toString())
                .containsExactly("results.json", "results.csv", "results.html");
        Map<String, Object> json = (Map<String, Object>) Json.parse(Files.readString(dir.resolve("results.json")));
        @SuppressWarnings("unchecked")
        Map<String, Object> summary = (Map<String, Object>) json.get("summary");
        assertThat(summary)
                .containsEntry("delivered", 2000.0)
                .containsEntry("early", 0.0)
                .containsEntry("balanced", true);
        assertThat(Files.readString(dir.resolve("results.csv"))).startsWith("due_second,delivered,lateness_p50_ms");
        assertThat(Files.readString(dir.resolve("results.html"))).contains("Lateness by second of delivery time");
    }

    @Test
    void options_haveTheIssuesFigures_andBadOnesAreRefused() {
        DelayCommand cmd = new DelayCommand();
        new CommandLine(cmd).parseArgs();
        DelayScenario s = cmd.scenario();
        assertThat(s.messages()).isEqualTo(1_000_000);
        assertThat(s.spread()).isEqualTo(Duration.ofSeconds(60));
        assertThat(s.producers()).isEqualTo(4);
        assertThat(s.consumers()).isEqualTo(4);

        StringWriter err = new StringWriter();
        int code = PerfCommand.execute(
                new String[] {"delay", "--spread", "0"},
                new PrintWriter(new StringWriter(), true),
                new PrintWriter(err, true));
        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("spread PT0S is invalid: expected at least 1 ms");
    }
}
