package io.shardq.perf;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code perf topic} briefly on a real database: the report's shape, and every message published
 * delivered to every subscription (the run drains after each window). Never asserts on speed.
 */
@PgTest
class TopicCommandTest {
    private final StringWriter out = new StringWriter();

    private TopicReport run(TestDatabase db, TopicScenario scenario) throws Exception {
        Environment env = new ServerProbe(db.dataSource()).environment("test", false);
        Progress progress = new Progress(new PrintWriter(new StringWriter(), true), false, Duration.ZERO);
        return TopicCommand.run(db.dataSource(), db::brokerConfig, env, scenario, progress, new PrintWriter(out, true));
    }

    private static TopicScenario scenario(int subscriptions, int consumerThreads, double rate, List<String> systems) {
        return new TopicScenario(
                List.of(2),
                subscriptions,
                consumerThreads,
                5,
                rate,
                systems,
                Duration.ofMillis(300),
                Duration.ofSeconds(1),
                new Settings(2, 64, 5, 2, true, false),
                "0.00 0.00 0.00");
    }

    @Test
    void topic_deliversEveryPublishToEverySubscription_besideTheQueueAndCeiling(TestDatabase db) throws Exception {
        TopicReport report = run(db, scenario(3, 3, 0, TopicScenario.ALL));

        TopicComparison run = report.run();
        assertThat(run.steps()).extracting(TopicStep::system).containsExactly("ceiling", "queue", "topic");
        TopicStep topic = run.get("topic", 2);
        assertThat(topic.result().errors()).isZero();
        assertThat(topic.totalPublished()).isPositive();
        assertThat(topic.totalDelivered()).isEqualTo(topic.totalPublished() * 3);
        assertThat(topic.backlogs()).extracting(SubscriptionBacklog::name).containsExactly("sub-0", "sub-1", "sub-2");
        assertThat(topic.backlogs()).allSatisfy(b -> assertThat(b.atEnd()).isGreaterThanOrEqualTo(0));
        assertThat(topic.result().dequeued()).isPositive();
        assertThat(topic.storedRows().bitmapBytes()).isBetween(0.0, 1.0); // 3 bits fit one byte
        assertThat(run.deliveriesVsQueue(topic)).isPositive();
        assertThat(run.walVsQueue(topic)).isPositive();
        assertThat(run.get("queue", 2).publishCommits().count()).isPositive();
        assertThat(TopicCommand.exitCode(report)).isZero();
        assertThat(out.toString())
                .startsWith("ShardQ benchmark: topic")
                .contains("subscriptions       3 durable")
                .contains("Issue 10's targets")
                .contains("delivered " + String.format(java.util.Locale.ROOT, "%,d", topic.totalDelivered()))
                .doesNotContain("NOT EQUAL");
    }

    @Test
    void pollers_serveManySubscriptions_atAPacedRate(TestDatabase db) throws Exception {
        TopicReport report = run(db, scenario(40, 2, 200, List.of("topic")));

        TopicStep topic = report.run().get("topic", 2);
        assertThat(topic.result().errors()).isZero();
        assertThat(topic.totalPublished()).isPositive();
        assertThat(topic.totalDelivered()).isEqualTo(topic.totalPublished() * 40);
        assertThat(topic.backlogs()).hasSize(40);
        assertThat(topic.storedRows().bitmapBytes()).isBetween(1.0, 5.0); // 40 bits: at most 5 bytes
        assertThat(topic.publishCommits().count()).isPositive();
        assertThat(out.toString()).contains("2 threads, each polling 20+ subscriptions");
    }

    @Test
    void options_becomeTheScenario_andBadOnesAreRefused() {
        TopicCommand cmd = new TopicCommand();
        CommandLine cli = new CommandLine(cmd);
        cli.parseArgs("--subscriptions", "1000", "--rate", "10", "--publishers", "1,4");
        TopicScenario s = cmd.scenario();
        assertThat(s.consumerThreads()).isEqualTo(4);
        assertThat(s.publishers()).containsExactly(1, 4);
        assertThat(s.rate()).isEqualTo(10.0);
        assertThat(s.receiveBatch()).isEqualTo(10); // --batch's default
        assertThat(s.systems()).containsExactly("ceiling", "queue", "topic");

        StringWriter err = new StringWriter();
        int code = PerfCommand.execute(
                new String[] {"topic", "--subscriptions", "4", "--consumer-threads", "5"},
                new PrintWriter(new StringWriter(), true),
                new PrintWriter(err, true));
        assertThat(code).isEqualTo(2);
        assertThat(err.toString())
                .contains("consumer threads 5 is invalid: expected 1 to the number of subscriptions (4)");
    }
}
