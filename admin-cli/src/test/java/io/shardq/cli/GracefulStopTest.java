package io.shardq.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SIGTERM (what Ctrl-C also triggers: the JVM's shutdown hooks) stops load and drain at a batch boundary. */
@PgTest
class GracefulStopTest {
    static final int MESSAGES = 30_000;
    static final int BATCH = 20;

    @TempDir
    Path tmp;

    @Test
    void loadThenDrain_stopAtABatchBoundary_andSayHowManyMoved(TestDatabase db) throws Exception {
        CliRunner cli = new CliRunner(db, tmp);
        cli.run("queue", "create", "big", "--shards", "2");
        Path file = tmp.resolve("big.jsonl");
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < MESSAGES; i++) {
            b.append("{\"messageId\":\"ID:big-")
                    .append(i)
                    .append("\",\"bodyType\":\"TEXT\",\"body\":\"m")
                    .append(i)
                    .append("\"}\n");
        }
        Files.writeString(file, b);

        Path loadLog = tmp.resolve("load.log");
        Process load = spawn(cli, loadLog, "queue", "load", "big", "--from", file.toString(), "--batch", "" + BATCH);
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> cli.backlog("big") >= 2000);
        load.destroy(); // SIGTERM
        assertThat(load.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String loadOut = Files.readString(loadLog);
        long loaded = number(loadOut, "stopped after a complete batch: loaded ([\\d,]+) of 30,000 messages");
        assertThat(loadOut).contains("to load the rest: shardq queue load big --from " + file + " --skip " + loaded);
        assertThat(loaded % BATCH).isZero();
        assertThat(loaded).isBetween(1L, MESSAGES - 1L);
        assertThat(cli.backlog("big")).isEqualTo(loaded);

        Path out = tmp.resolve("drained.jsonl");
        Path drainLog = tmp.resolve("drain.log");
        Process drain = spawn(cli, drainLog, "queue", "drain", "big", "--to", out.toString(), "--batch", "" + BATCH);
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> Files.exists(out) && Files.size(out) > 20_000);
        drain.destroy();
        assertThat(drain.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String drainOut = Files.readString(drainLog);
        long drained = number(drainOut, "stopped after a complete batch: drained ([\\d,]+) messages?");
        assertThat(drained).isBetween(1L, loaded - 1);
        assertThat(CliRunner.ids(out)).hasSize((int) drained);
        assertThat(cli.backlog("big")).isEqualTo(loaded - drained);
    }

    private static Process spawn(CliRunner cli, Path log, String... command) throws Exception {
        List<String> args = new ArrayList<>(List.of(command));
        args.addAll(cli.connectionArgs());
        return CliProcess.start(log, args);
    }

    private static long number(String output, String regex) {
        Matcher m = Pattern.compile(regex).matcher(output);
        assertThat(m.find()).as(output).isTrue();
        return Long.parseLong(m.group(1).replace(",", ""));
    }
}
