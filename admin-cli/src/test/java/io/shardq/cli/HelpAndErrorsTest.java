package io.shardq.cli;

import static io.shardq.cli.CliRunner.assertOneLineError;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

@PgTest
class HelpAndErrorsTest {
    @TempDir
    Path tmp;

    @Test
    void everyCommand_hasHelp() {
        List<List<String>> paths = new ArrayList<>();
        collect(new CommandLine(new ShardqCommand()), new ArrayList<>(), paths);
        assertThat(paths).hasSizeGreaterThan(15);
        for (List<String> path : paths) {
            List<String> args = new ArrayList<>(path);
            args.add("--help");
            CliRunner.Run r = CliRunner.runBare(args.toArray(String[]::new));
            assertThat(r.exit()).as(String.join(" ", args)).isZero();
            assertThat(r.out()).as(String.join(" ", args)).startsWith("Usage: shardq");
        }
    }

    @Test
    void topLevelHelp_listsCommands() {
        CliRunner.Run r = CliRunner.runBare("--help");
        assertThat(r.out())
                .contains("queue ")
                .contains("dlq ")
                .contains("status ")
                .contains("topic ")
                .contains("subscription ")
                .contains("cache ")
                .doesNotContain("Coming later");
        CliRunner.Run queue = CliRunner.runBare("queue");
        assertThat(queue.out())
                .contains("drain")
                .contains("load")
                .contains("browse")
                .contains("purge");
    }

    @Test
    void topLevelHelp_listsEveryExitCode() {
        String help = CliRunner.runBare("--help").out().replaceAll("\\s+", " ");
        // every code a command returns: ShardqCommand's handlers (1, 2), CacheGetCommand.NO_ENTRY,
        // the demo's failed check (1), GracefulStop's 130
        assertThat(help)
                .contains("0 done")
                .contains("1 unexpected failure")
                .contains("the demo's check failed")
                .contains("2 bad input or refused")
                .contains(CacheGetCommand.NO_ENTRY + " cache get found no live entry")
                .contains("130 stopped by Ctrl-C");
        // one code per line, none wrapped by the 80-column help layout
        assertThat(CliRunner.runBare("--help").out().lines().filter(l -> l.matches("  (0|1|2|3|130) +\\S.*")))
                .hasSize(5);
    }

    @Test
    void version_printsTheProjectVersion() {
        CliRunner.Run r = CliRunner.runBare("version");
        assertThat(r.exit()).isZero();
        // the build's version (version.properties, filtered), not "development build"
        assertThat(r.out()).matches("(?s)shardq \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?\njava .*");
        assertThat(CliRunner.runBare("--version").out()).isEqualTo(r.out());
    }

    @Test
    void subscriber_isNotACommand_andPointsToSubscription() {
        CliRunner.Run subscriber = CliRunner.runBare("subscriber", "list");
        assertOneLineError(subscriber);
        assertThat(subscriber.exit()).isEqualTo(2);
        assertThat(subscriber.err())
                .isEqualTo("shardq: 'subscriber' is not a command: a topic's subscribers are"
                        + " 'shardq subscription add|remove|list' (see 'shardq subscription --help')\n");
    }

    @Test
    void usageErrors_areOneLine_withAPointerToHelp() {
        CliRunner.Run missing = CliRunner.runBare("queue", "create");
        assertOneLineError(missing);
        assertThat(missing.err())
                .isEqualTo("shardq: Missing required parameter: 'NAME' (see 'shardq queue create --help')\n");
        CliRunner.Run unknown = CliRunner.runBare("queue", "dran", "q");
        assertOneLineError(unknown);
        assertThat(unknown.err()).contains("'dran' is not a command of 'shardq queue': expected one of create");
        CliRunner.Run notNumber = CliRunner.runBare("queue", "create", "q", "--shards", "many");
        assertOneLineError(notNumber);
        assertThat(notNumber.err()).contains("--shards").contains("many");
    }

    @Test
    void badBounds_areRefusedBeforeConnecting() {
        // a server that refuses connections: a refusal naming the value proves nothing was started
        String nowhere = "jdbc:postgresql://127.0.0.1:1/nowhere";
        String[][] cases = {
            {"queue", "create", "q", "--shards", "0"},
            {"queue", "alter", "q", "--shards", "257"},
            {"topic", "create", "t", "--slice-size", "15"},
            {"topic", "alter", "t", "--max-attempts", "0"},
        };
        String[] expected = {
            "--shards 0 is invalid: expected 1 to 256",
            "--shards 257 is invalid: expected 1 to 256",
            "--slice-size 15 is invalid: expected 16 to 100000000 messages",
            "--max-attempts 0 is invalid: expected 1 or more",
        };
        for (int i = 0; i < cases.length; i++) {
            List<String> args = new ArrayList<>(List.of(cases[i]));
            args.addAll(List.of("--jdbc-url", nowhere));
            CliRunner.Run r = CliRunner.runBare(args.toArray(String[]::new));
            assertOneLineError(r);
            assertThat(r.exit()).as(String.join(" ", args)).isEqualTo(2);
            assertThat(r.err()).as(String.join(" ", args)).startsWith("shardq: " + expected[i]);
        }
    }

    @Test
    void completionScript_coversTheQueueCommands() {
        CliRunner.Run r = CliRunner.runBare("generate-completion");
        assertThat(r.exit()).isZero();
        assertThat(r.out())
                .contains("shardq")
                .contains("drain")
                .contains("requeue")
                .contains("--dead-letter-queue");
    }

    @Test
    void unreachableDatabase_isOneLine_forQueueCommandsToo() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        CliRunner.Run r = CliRunner.runBare(
                "queue", "list", "--jdbc-url", "jdbc:postgresql://127.0.0.1:" + closedPort + "/x?password=hunter2");
        assertOneLineError(r);
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).startsWith("shardq: cannot connect to PostgreSQL").doesNotContain("hunter2");
    }

    @Test
    void verbose_addsTheStackTrace(TestDatabase db) {
        CliRunner cli = new CliRunner(db, tmp);
        CliRunner.Run r = cli.run("queue", "stats", "nope", "--verbose");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err())
                .contains("\tat ")
                .endsWith("shardq: queue \"nope\" does not exist (shardq queue list shows" + " the queues)\n");
    }

    @Test
    void queueList_withNoQueues_saysHowToCreateOne(TestDatabase db) {
        CliRunner cli = new CliRunner(db, tmp);
        CliRunner.Run r = cli.run("queue", "list");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo("no queues yet (create one: shardq queue create NAME)\n");
    }

    /** Every command path of the CLI (help left out). */
    static void collect(CommandLine c, List<String> path, List<List<String>> out) {
        c.getSubcommands().forEach((name, sub) -> {
            if (name.equals("help")) {
                return;
            }
            List<String> p = new ArrayList<>(path);
            p.add(name);
            out.add(p);
            collect(sub, p, out);
        });
    }
}
