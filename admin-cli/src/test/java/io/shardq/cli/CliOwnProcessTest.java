package io.shardq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CLI as a user runs it: {@code ShardqCommand.main} in a JVM of its own, writing to a real
 * stdout (the in-process runs of the other tests write to a StringWriter, which needs no flush).
 */
@PgTest
class CliOwnProcessTest {
    @TempDir
    Path tmp;

    @Test
    void aListPrintedAsATable_reachesStdoutBeforeTheProcessExits(TestDatabase db) throws Exception {
        CliRunner cli = new CliRunner(db, tmp);
        assertThat(cli.run("queue", "create", "listed", "--shards", "2").exit()).isZero();
        List<String> args = new ArrayList<>(List.of("queue", "list"));
        args.addAll(cli.connectionArgs());
        Path output = tmp.resolve("list.out");
        Process p = CliProcess.start(output, args);
        assertThat(p.waitFor(2, TimeUnit.MINUTES)).as("queue list ended").isTrue();
        String printed = Files.readString(output);
        assertThat(p.exitValue()).as(printed).isZero();
        assertThat(printed).contains("QUEUE").containsPattern("(?m)^listed\\s+2\\s");
    }
}
