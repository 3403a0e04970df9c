package io.shardq.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardq.broker.Broker;
import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A drain killed with SIGKILL mid-way loses nothing: a second drain gets the rest. */
@PgTest
class DrainCrashTest {
    static final int MESSAGES = 4000;
    static final int BATCH = 25;

    @TempDir
    Path tmp;

    @Test
    void drainKilledMidway_thenDrainedAgain_losesNoMessage(TestDatabase db) throws Exception {
        CliRunner cli = new CliRunner(db, tmp);
        cli.run("queue", "create", "crash", "--shards", "4");
        List<BrokerMessage> sent = IntStream.range(0, MESSAGES)
                .mapToObj(i -> Messages.text("crash " + i))
                .toList();
        try (Broker app = cli.broker("producer")) {
            for (int shard = 0; shard < 4; shard++) { // one session per quarter: spread over the shards
                CliRunner.send(app, "crash", sent.subList(shard * MESSAGES / 4, (shard + 1) * MESSAGES / 4));
            }
        }

        Path first = tmp.resolve("first.jsonl");
        List<String> args = new ArrayList<>(
                List.of("queue", "drain", "crash", "--to", first.toString(), "--batch", String.valueOf(BATCH)));
        args.addAll(cli.connectionArgs());
        Process p = CliProcess.start(tmp.resolve("first.log"), args);
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(5))
                .until(() -> Files.exists(first) && Files.size(first) > 300 * 150L);
        assertThat(p.isAlive()).as("still draining when killed").isTrue();
        p.destroyForcibly();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        List<String> firstIds = CliRunner.ids(first);
        assertThat(firstIds.size()).isBetween(1, MESSAGES - 1);

        Path second = tmp.resolve("second.jsonl");
        CliRunner.Run r = cli.run("queue", "drain", "crash", "--to", second.toString());
        assertThat(r.exit())
                .as(r.err() + Files.readString(tmp.resolve("first.log")))
                .isZero();
        List<String> secondIds = CliRunner.ids(second);

        Set<String> all = new HashSet<>(firstIds);
        all.addAll(secondIds);
        Set<String> expected = new HashSet<>();
        sent.forEach(m -> expected.add(m.messageId()));
        assertThat(all).isEqualTo(expected);
        // at least once, and at most the one batch written but not committed when the process died
        assertThat(firstIds.size() + secondIds.size() - all.size()).isBetween(0, BATCH);
        assertThat(new HashSet<>(firstIds)).hasSameSizeAs(firstIds);
        assertThat(cli.backlog("crash")).isZero();
    }
}
