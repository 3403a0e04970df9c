package io.shardq.perf;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code perf queue --systems shardq,ceiling,ceiling2,naive} briefly on a real database: every
 * system has its row in the text report and in results.csv and results.json, with a positive rate,
 * commits per message and CPU per message. Never asserts on speed.
 */
@PgTest
class QueueCommandTest {
    private static final List<String> SYSTEMS = List.of("shardq", "ceiling", "ceiling2", "naive");

    @Test
    @SuppressWarnings("unchecked")
    void everyBaseline_hasItsRow_withRatesCommitsAndCpuPerMessage(TestDatabase db, @TempDir Path dir) throws Exception {
        SystemRegistry registry =
                SystemRegistry.standard().register(SystemRegistry.SHARDQ, () -> new ShardQSystem(db::brokerConfig, 0));
        QueueCommand cmd = new QueueCommand(registry);
        new CommandLine(cmd)
                .parseArgs(
                        "--systems", String.join(",", SYSTEMS),
                        "--threads", "1",
                        "--warmup", "1",
                        "--duration", "2",
                        "--payload", "64",
                        "--batch", "5",
                        "--shards", "2",
                        "--out", dir.toString());
        List<String> notes = new ArrayList<>();
        Scenario scenario = cmd.scenario(notes);
        Environment env = new ServerProbe(db.dataSource()).environment("test", false);
        StringWriter out = new StringWriter();
        Progress quiet = new Progress(new PrintWriter(new StringWriter(), true), false, Duration.ZERO);

        Comparison run = cmd.run(db.dataSource(), env, scenario, notes, quiet, new PrintWriter(out, true));

        assertThat(notes).isEmpty();
        assertThat(run.systems()).containsExactlyElementsOf(SYSTEMS);
        for (String system : SYSTEMS) {
            StepResult r = run.get(system, 1);
            assertThat(r.errors()).as(system + ": " + r.firstError()).isZero();
            assertThat(r.messages()).as(system).isPositive();
            assertThat(r.messageRate()).as(system).isPositive();
            assertThat(r.commits()).as(system).isPositive();
            assertThat(r.commitsPerMessage()).as(system).isPositive();
            assertThat(r.jvmCpuMicrosPerMessage()).as(system).isPositive();
            assertThat(r.pgCpuMicrosPerMessage())
                    .as(system + ": the server runs here")
                    .isPositive();
            assertThat(run.messagesVsCeiling2(r)).as(system).isPositive();
            assertThat(run.messagesVsCeiling(r)).as(system).isPositive();
        }
        assertThat(run.messagesVsCeiling2(run.get("ceiling2", 1))).isEqualTo(1.0);
        assertThat(run.get("ceiling2", 1).consumes()).isFalse();
        for (String system : List.of("shardq", "naive")) {
            LatencyStats l = run.get(system, 1).latency();
            assertThat(l.count()).as(system).isPositive();
            assertThat(l.p50()).as(system).isLessThanOrEqualTo(l.p99());
        }
        assertThat(Tables.exists(db, "shardq_perf.ceiling2")).isFalse();

        String text = out.toString();
        assertThat(text)
                .contains("Per message against the ceilings")
                .contains("/ceiling2")
                .contains("commits/msg")
                .contains("JVM us/msg")
                .contains("PG us/msg");
        String table = text.substring(text.indexOf("Per message against the ceilings"));
        for (String system : SYSTEMS) {
            // threads, system, msg/s, /ceiling2, /ceiling, commits/msg, JVM us/msg, PG us/msg, p50, p99
            assertThat(table.lines())
                    .as(system)
                    .anyMatch(l -> l.matches("\\s*1\\s+" + system + "\\s+[\\d,]+\\s+\\d+\\.\\d\\dx\\s+\\d+\\.\\d\\dx"
                            + "\\s+\\d+\\.\\d{3}\\s+[\\d,]+\\.\\d\\s+[\\d,]+\\.\\d\\s+.*"));
        }

        List<List<String>> csv = MiniCsv.parse(Files.readString(dir.resolve("results.csv")));
        List<String> header = csv.get(0);
        assertThat(header)
                .contains(
                        "msg_per_s",
                        "msg_vs_ceiling2",
                        "msg_vs_ceiling",
                        "commits",
                        "commits_per_msg",
                        "jvm_cpu_us_per_msg",
                        "pg_cpu_us_per_msg");
        assertThat(csv).hasSize(1 + SYSTEMS.size());
        for (List<String> row : csv.subList(1, csv.size())) {
            String system = row.get(header.indexOf("system"));
            for (String column : List.of("msg_per_s", "commits_per_msg", "jvm_cpu_us_per_msg", "pg_cpu_us_per_msg")) {
                assertThat(Double.parseDouble(row.get(header.indexOf(column))))
                        .as(system + " " + column)
                        .isPositive();
            }
        }

        Map<String, Object> json = (Map<String, Object>) Json.parse(Files.readString(dir.resolve("results.json")));
        List<Map<String, Object>> rows = (List<Map<String, Object>>) json.get("results");
        assertThat(rows).extracting(r -> r.get("system")).containsExactlyElementsOf(SYSTEMS);
        assertThat(rows)
                .allSatisfy(r -> assertThat((Double) r.get("msg_vs_ceiling2")).isPositive());
        assertThat(Files.readString(dir.resolve("results.html")))
                .contains("<th>/ceiling2</th>")
                .contains("<th>commits/msg</th>");
    }
}
