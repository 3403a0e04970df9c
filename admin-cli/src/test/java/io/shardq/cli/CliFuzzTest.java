package io.shardq.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.shardq.broker.Broker;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Generated command lines (seeded; {@code -Dshardq.fuzz.seed=N}): every command path of the CLI
 * with random options and values, some against the database. Each exits 0 or fails with an error
 * text and a non-zero exit, never a stack trace or SQL; nothing hangs; another queue is untouched.
 */
@PgTest
@Tag("fuzz")
class CliFuzzTest {
    static final long SEED = Long.getLong("shardq.fuzz.seed", 20261123L);
    static final String[] VALUES = {
        "", "-1", "0", "1", "65", "1000000", "99999999999999999999", "q", "fuzz.q", "a b", "'; DROP TABLE x; --",
        "\u00e9t\u00e9", "\ud83d\ude00", "x".repeat(300), "--", "-", "--help", "--json", "*", "%", "null",
                "../etc/passwd",
        "true", "color = 'red'", "color = = 1", "1.5", "PT1S", "\u0000"
    };

    @TempDir
    Path tmp;

    @Test
    void generatedCommandLines_exitCleanly(TestDatabase db) {
        Random random = new Random(SEED);
        List<List<String>> paths = new ArrayList<>();
        HelpAndErrorsTest.collect(new CommandLine(new ShardqCommand()), new ArrayList<>(), paths);
        CliRunner cli = new CliRunner(db, tmp);
        assertThat(cli.run("queue", "create", "cli.sentinel").exit()).isZero();
        try (Broker b = cli.broker("sentinel")) {
            CliRunner.send(b, "cli.sentinel", List.of(Messages.text("untouched")));
        }
        int[] runs = {0};
        assertTimeoutPreemptively(Duration.ofMinutes(8), () -> {
            for (int i = 0; i < 1000; i++) {
                List<String> path = paths.get(random.nextInt(paths.size()));
                List<String> args = new ArrayList<>(path);
                for (int k = 0; k < random.nextInt(4); k++) {
                    args.add(
                            random.nextInt(3) == 0
                                    ? "--" + VALUES[random.nextInt(VALUES.length)]
                                    : VALUES[random.nextInt(VALUES.length)]);
                }
                args.removeIf(a -> a.equals("cli.sentinel"));
                if (args.contains("--help")
                        || path.contains("perf")
                        || path.contains("console")
                        || path.contains("demo")
                        || path.contains("embedded-server")
                        || path.contains("stop")) {
                    // help is covered elsewhere; perf and long-running commands are not fuzzed here, nor
                    // those that keep or stop the embedded server (the keeper runs until told to stop)
                    continue;
                }
                boolean database = i % 5 == 0;
                CliRunner.Run r = database
                        ? cli.run(args.toArray(String[]::new))
                        : CliRunner.runBare(args.toArray(String[]::new));
                runs[0]++;
                String what = String.join(" ", args);
                if (r.exit() != 0) {
                    assertThat(r.err()).as(what).isNotBlank();
                }
                assertThat(r.err() + r.out())
                        .as(what)
                        .doesNotContain("\tat ")
                        .doesNotContain("INSERT INTO")
                        .doesNotContain("PSQLException")
                        .doesNotContain("NullPointerException");
            }
        });
        assertThat(cli.backlog("cli.sentinel")).isEqualTo(1);
        System.out.println("CliFuzzTest: " + runs[0] + " generated command lines (seed " + SEED + ")");
        assertThat(runs[0]).isGreaterThan(500);
    }
}
