package io.shardq.examples.orders;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The Python example ({@code examples/python/orders.py}, psycopg2 over ShardQ's SQL functions)
 * against the running order service: an order it sends is taken by the service's JMS listener, and
 * it receives the service's event for it. Runs where a python3 with psycopg2 is installed (Debian:
 * {@code python3-psycopg2}); elsewhere it is skipped, saying so.
 */
@PgTest
class PythonClientTest {

    @Test
    void anOrderPlacedFromPython_isTakenByTheJmsListener_andItsEventReceivedInPython(TestDatabase db) throws Exception {
        String python = pythonWithPsycopg();
        Assumptions.assumeTrue(
                python != null,
                "no python3 with psycopg2 here (Debian: apt-get install python3-psycopg2): the Python example is not tested");
        Path script = Path.of("..", "python", "orders.py").toAbsolutePath().normalize();
        assertThat(script).exists();
        try (TestApp app = new TestApp(db)) {
            Result setup = run(python, script, db, "setup");
            assertThat(setup.exit()).as(setup.output()).isZero();
            Result placed = run(python, script, db, "place", "o-py", "widget", "4");
            assertThat(placed.exit()).as(placed.output()).isZero();
            assertThat(placed.output()).contains("sent o-py as ID:sql-").contains("accepted o-py");
            assertThat(app.orders("o-py")).isEqualTo(1);
            assertThat(app.jdbc.queryForObject("select quantity from orders where id = 'o-py'", Integer.class))
                    .isEqualTo(4);
            // consumed by Python's commit: nothing left for anyone
            assertThat(app.event("o-py", 500)).isNull();

            Result refused = run(python, script, db, "send", "o-bad", "widget", "x");
            assertThat(refused.exit()).isNotZero();
            assertThat(refused.output()).contains("invalid int value: 'x'");
        }
    }

    record Result(int exit, String output) {}

    private static Result run(String python, Path script, TestDatabase db, String... args) throws Exception {
        URI uri = URI.create(db.jdbcUrl().substring("jdbc:".length()));
        List<String> cmd = new ArrayList<>(List.of(
                python,
                script.toString(),
                "--dsn",
                "host=" + uri.getHost() + " port=" + uri.getPort() + " dbname="
                        + uri.getPath().substring(1) + " user=" + db.user() + " password=" + db.password()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        assertThat(p.waitFor(2, TimeUnit.MINUTES)).as("orders.py ended").isTrue();
        return new Result(p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    /** python3 on the PATH if it has psycopg2, else Debian's /usr/bin/python3 if it has; else null. */
    private static String pythonWithPsycopg() throws InterruptedException {
        for (String candidate : List.of("python3", "/usr/bin/python3")) {
            if (!candidate.startsWith("/") || Files.isExecutable(Path.of(candidate))) {
                try {
                    Process p = new ProcessBuilder(candidate, "-c", "import psycopg2")
                            .redirectErrorStream(true)
                            .start();
                    p.getInputStream().readAllBytes();
                    if (p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0) {
                        return candidate;
                    }
                } catch (IOException e) {
                    // not installed: try the next
                }
            }
        }
        return null;
    }
}
