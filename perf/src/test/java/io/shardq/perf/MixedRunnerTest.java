package io.shardq.perf;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import io.shardq.jms.ShardQConnectionFactory;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One short stage of the default templates on ShardQ, on a real database: every template runs,
 * and the application rows change exactly as often as the transactions that change them
 * committed. Never asserts on speed.
 */
@PgTest
class MixedRunnerTest {
    private static final String WORKLOAD =
            """
            accounts = 50
            payload = 64
            shards = 2
            prefill = 200
            receive-wait-ms = 20
            send10-update     40  send 10, update-account
            receive10-insert  40  receive 10, insert-audit
            browse            10  browse 100
            send1             10  send 1
            """;

    @Test
    void stage_runsEveryTemplate_andTheApplicationRowsMatchTheCommittedTransactions(TestDatabase db, @TempDir Path out)
            throws Exception {
        Workload w = WorkloadParser.parse(WORKLOAD, "test");
        MixedScenario scenario = new MixedScenario(w, List.of(3), Duration.ZERO, Duration.ofSeconds(2), false);
        StringWriter progress = new StringWriter();
        MixedRunner runner = new MixedRunner(
                db.dataSource(),
                db::brokerConfig,
                scenario,
                new MixedProgress(new PrintWriter(progress, true), false, Duration.ZERO));
        StageResult stage;
        ApplicationCheck check;
        try {
            runner.setUp();
            stage = runner.runStage(3);

            List<TemplateMeter.Counts> counts = runner.counts(); // whole run, all stopped now
            assertThat(counts).allSatisfy(c -> assertThat(c.committed()).isPositive());
            assertThat(counts).allSatisfy(c -> assertThat(c.failed()).isZero());
            long sendUpdate = counts.get(0).committed();
            long receiveInsert = counts.get(1).committed();
            assertThat(counts.get(0).sent()).isEqualTo(10 * sendUpdate);
            assertThat(counts.get(1).received()).isPositive();
            assertThat(counts.get(2).browsed()).isPositive();
            assertThat(counts.get(3).sent()).isEqualTo(counts.get(3).committed());

            assertThat(query(db, "select sum(updates) from shardq_perf.accounts"))
                    .isEqualTo(sendUpdate);
            assertThat(query(db, "select count(*) from shardq_perf.accounts where updates > 0"))
                    .isPositive();
            assertThat(query(db, "select count(*) from shardq_perf.audit")).isEqualTo(receiveInsert);
            assertThat(query(db, "select count(*) from shardq_perf.audit where template = 'receive10-insert'"))
                    .isEqualTo(receiveInsert);
            assertThat(query(db, "select sum(messages) from shardq_perf.audit"))
                    .as("each audit row counts the messages its transaction received")
                    .isEqualTo(counts.get(1).received());
            long sent = counts.stream().mapToLong(TemplateMeter.Counts::sent).sum();
            long received =
                    counts.stream().mapToLong(TemplateMeter.Counts::received).sum();
            check = runner.check();
            assertThat(check.backlog()).isEqualTo(200 + sent - received);
            assertThat(check.consistent()).as(check.describe()).isTrue();
        } finally {
            runner.close();
        }

        assertThat(stage.users()).isEqualTo(3);
        assertThat(stage.templates())
                .extracting(StageResult.TemplateResult::template)
                .containsExactly("send10-update", "receive10-insert", "browse", "send1");
        assertThat(stage.all().counts().committed())
                .isEqualTo(stage.templates().stream()
                        .mapToLong(t -> t.counts().committed())
                        .sum());
        // counts and latencies are taken a moment apart: a few transactions may fall in only one
        assertThat(stage.all().latency().count()).isPositive();
        assertThat(progress.toString()).contains("mixed x3", "measure");
        assertThat(Tables.exists(db, "shardq_perf.accounts")).isFalse();
        assertThat(Tables.exists(db, "shardq_perf.audit")).isFalse();
        try (ShardQConnectionFactory f =
                new ShardQConnectionFactory(db.brokerConfig().build())) {
            assertThat(f.broker().admin().list()).noneMatch(d -> d.name().equals(MixedRunner.QUEUE));
        }

        MixedReport report = new MixedReport(Samples.environment("on"), scenario, List.of(stage), check);
        assertThat(report.writeTo(out)).hasSize(3);
        assertThat(Files.readString(out.resolve("results.html")))
                .contains("<figure class=\"chart\"", "receive10-insert", "consistent");
        assertThat(MixedTextReport.render(report)).contains("Application rows, whole run: consistent");
    }

    private static long query(TestDatabase db, String sql) throws Exception {
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
