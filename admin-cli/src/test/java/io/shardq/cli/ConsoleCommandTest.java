package io.shardq.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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

/** {@code shardq console} as a user starts it: a process that prints its URL, serves it, and stops on a signal. */
@PgTest
class ConsoleCommandTest {
    @TempDir
    Path tmp;

    @Test
    void console_printsItsUrl_serves_andStopsOnSigterm(TestDatabase db) throws Exception {
        CliRunner cli = new CliRunner(db, tmp);
        cli.run("queue", "create", "seen");
        Path log = tmp.resolve("console.log");
        List<String> args = new ArrayList<>(List.of("console", "--port", "0", "--refresh", "500ms"));
        args.addAll(cli.connectionArgs());
        Process console = CliProcess.start(log, args);
        try {
            Pattern url = Pattern.compile("ShardQ console: (http://127\\.0\\.0\\.1:\\d+/)\n");
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> Files.readString(log).contains("Ctrl-C stops it\n"));
            String out = Files.readString(log);
            Matcher m = url.matcher(out);
            assertThat(m.find()).isTrue();
            assertThat(out).contains("admin actions off (start with --admin)").doesNotContain("warning");
            HttpResponse<String> queues = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create(m.group(1) + "api/queues"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            assertThat(queues.statusCode()).isEqualTo(200);
            List<String> names = new ArrayList<>();
            Json.MAPPER
                    .readTree(queues.body())
                    .forEach(q -> names.add(q.get("name").asText()));
            assertThat(names).contains("seen"); // the methods of a class share a database
        } finally {
            console.destroy(); // SIGTERM, as Ctrl-C
            assertThat(console.waitFor(60, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(Files.readString(log)).doesNotContain("Exception");
    }

    @Test
    void console_onAnotherAddress_warns(TestDatabase db) throws Exception {
        CliRunner cli = new CliRunner(db, tmp);
        Path log = tmp.resolve("console.log");
        List<String> args = new ArrayList<>(List.of("console", "--port", "0", "--bind", "0.0.0.0", "--admin"));
        args.addAll(cli.connectionArgs());
        Process console = CliProcess.start(log, args);
        try {
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> Files.readString(log).contains("Ctrl-C stops it\n"));
            assertThat(Files.readString(log))
                    .contains("shardq: warning: the console listens on 0.0.0.0: whoever can reach it sees every"
                            + " queue and message and can purge them; it has no login")
                    .contains("admin actions on (each asks for confirmation)");
        } finally {
            console.destroy();
            assertThat(console.waitFor(60, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void aPortInUse_isRefusedWithWhatToDo(TestDatabase db) throws Exception {
        CliRunner cli = new CliRunner(db, tmp);
        try (java.net.ServerSocket taken =
                new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            CliRunner.Run r = cli.run("console", "--port", Integer.toString(taken.getLocalPort()));
            assertThat(r.exit()).isEqualTo(2);
            assertThat(r.err())
                    .startsWith("shardq: cannot listen on 127.0.0.1:" + taken.getLocalPort() + ": ")
                    .endsWith(" (another console? choose another --port, or 0 for any free one)\n");
            CliRunner.assertOneLineError(r);
        }
    }

    @Test
    void badOptions_areRefusedBeforeConnecting() {
        for (String[] bad : List.of(
                new String[] {"console", "--refresh", "10ms"},
                new String[] {"console", "--port", "70000"},
                new String[] {"console", "--history", "2h"})) {
            CliRunner.Run r = CliRunner.runBare(bad);
            assertThat(r.exit()).isEqualTo(2);
            assertThat(r.err())
                    .isEqualTo("shardq: --port must be 0 to 65535, --refresh 200ms to 1m, --history from --refresh to"
                            + " 1h (see 'shardq console --help')\n");
        }
    }
}
