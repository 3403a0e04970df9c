package io.shardq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.shardq.broker.Broker;
import io.shardq.broker.shard.BrokerSession;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The console's rates and ring buffer, rounds taken by hand on a clock the test moves. */
@PgTest
class ConsoleSamplerTest {
    @TempDir
    Path tmp;

    /** A clock that moves only when told. */
    static final class TestClock extends Clock {
        final AtomicLong millis = new AtomicLong(1_000_000);

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis.get());
        }
    }

    @Test
    void rates_areTheDifferenceOfTwoRounds_andTheRingKeepsTheHistory(TestDatabase db) {
        CliRunner cli = new CliRunner(db, tmp);
        cli.run("queue", "create", "rated", "--shards", "1");
        cli.run("topic", "create", "rated-topic");
        cli.run("subscription", "add", "rated-topic", "audit");
        TestClock clock = new TestClock();
        try (Broker app = cli.broker("app");
                ConsoleSampler sampler = new ConsoleSampler(app, clock, 1000, 3000)) {
            sampler.refreshNow();
            assertThat(sampler.snapshot().queueStats().get("rated").has("rates"))
                    .isFalse(); // one round: no rate yet

            CliRunner.send(
                    app,
                    "rated",
                    IntStream.range(0, 10).mapToObj(i -> Messages.text("m" + i)).toList());
            clock.millis.addAndGet(2000);
            sampler.refreshNow();
            JsonNode rates = sampler.snapshot().queueStats().get("rated").get("rates");
            assertThat(rates.get("enqueuePerSecond").asDouble()).isEqualTo(5.0);
            assertThat(rates.get("dequeuePerSecond").asDouble()).isEqualTo(0.0);
            assertThat(rates.get("sampleSeconds").asDouble()).isEqualTo(2.0);

            try (BrokerSession s = app.openSession(BrokerSession.Mode.TRANSACTED)) {
                for (int i = 0; i < 4; i++) {
                    assertThat(s.receive("rated", 5000, false)).isNotNull();
                }
                s.commit();
            }
            clock.millis.addAndGet(1000);
            sampler.refreshNow();
            rates = sampler.snapshot().queueStats().get("rated").get("rates");
            assertThat(rates.get("enqueuePerSecond").asDouble()).isEqualTo(0.0);
            assertThat(rates.get("dequeuePerSecond").asDouble()).isEqualTo(4.0);
            assertThat(sampler.snapshot()
                            .queueStats()
                            .get("rated")
                            .get("backlog")
                            .asLong())
                    .isEqualTo(6);

            try (BrokerSession s = app.openSession(BrokerSession.Mode.TRANSACTED)) {
                for (int i = 0; i < 6; i++) {
                    s.send("rated-topic", Messages.text("e" + i));
                }
                s.commit();
            }
            clock.millis.addAndGet(3000);
            sampler.refreshNow();
            JsonNode topic = sampler.snapshot().topicStats().get("rated-topic");
            assertThat(topic.get("rates").get("publishPerSecond").asDouble()).isEqualTo(2.0);
            assertThat(topic.get("subscriptions").get(0).get("lag").asLong()).isEqualTo(6);

            // 4 rounds, 3 s of history at 1 s: the oldest round is gone
            List<ConsoleSampler.Sample> history = sampler.history();
            assertThat(history)
                    .extracting(ConsoleSampler.Sample::atMillis)
                    .containsExactly(1_002_000L, 1_003_000L, 1_006_000L);
            assertThat(history.get(0).queues().get("rated")).containsExactly(10, 5.0, 0.0, 0.0);
            assertThat(history.get(1).queues().get("rated")).containsExactly(6, 0.0, 4.0, 0.0);
            assertThat(history.get(2).topics().get("rated-topic")).containsExactly(6, 2.0);

            // a purge is a purge, not a dequeue spike, whoever purged (here the CLI): the 6 waiting are discarded
            cli.run("queue", "purge", "rated", "--force");
            clock.millis.addAndGet(2000);
            sampler.refreshNow();
            rates = sampler.snapshot().queueStats().get("rated").get("rates");
            assertThat(rates.get("dequeuePerSecond").asDouble()).isEqualTo(0.0);
            assertThat(rates.get("purgedPerSecond").asDouble()).isEqualTo(3.0);
            assertThat(sampler.snapshot()
                            .queueStats()
                            .get("rated")
                            .get("purged")
                            .asLong())
                    .isEqualTo(6);
            assertThat(sampler.history()
                            .get(sampler.history().size() - 1)
                            .queues()
                            .get("rated"))
                    .containsExactly(0, 0.0, 0.0, 3.0);

            // a dropped queue leaves the next round
            cli.run("queue", "drop", "rated", "--force");
            clock.millis.addAndGet(1000);
            sampler.refreshNow();
            assertThat(sampler.snapshot().queueStats()).doesNotContainKey("rated");
            assertThat(sampler.snapshot().error()).isNull();
        }
    }
}
