package io.shardq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 14: {@code shardq demo} runs to its summary and its exactly-once check passes with a
 * consumer process killed with SIGKILL mid-way. The check is the demo's own; this test also reads
 * the database itself, so a demo that passed its check wrongly would still fail here.
 */
@PgTest
@Tag("fault")
class DemoCommandTest {
    @TempDir
    Path tmp;

    @Test
    void demo_withAConsumerKilledMidway_passesItsExactlyOnceCheck(TestDatabase db) throws Exception {
        CliRunner cli = new CliRunner(db, tmp);

        CliRunner.Run r = cli.run("demo", "--duration", "6s", "--rate", "150", "--json");

        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode summary = r.json();
        assertThat(summary.path("exactlyOnce").asBoolean()).as(r.out()).isTrue();
        assertThat(summary.path("verdict").asText()).isEqualTo("PASS");
        assertThat(summary.path("stillWaiting").asLong()).isZero();
        assertThat(summary.path("missing").asLong()).isZero();
        long sent = summary.path("sent").asLong();
        assertThat(sent).isGreaterThan(100);
        assertThat(summary.path("processed").asLong()).isEqualTo(sent);
        assertThat(summary.path("killed").asText()).contains("killed with kill -9");
        assertThat(summary.path("consumers").toString()).contains("killed");
        for (String s : DemoCommand.SUBSCRIPTIONS) {
            assertThat(summary.path("subscriptions").path(s).path("received").asLong())
                    .as(s)
                    .isEqualTo(sent);
        }
        // the live view went to stderr, the JSON alone to stdout
        assertThat(r.err()).contains(": sent ").contains("processed").contains("killed with kill -9");
        // orders were committed after the kill: it came while they flowed
        assertThat(summary.path("sentAtKill").asLong()).as(r.out()).isBetween(1L, sent - 1);

        // the orders the producers committed: producer k sent k, k + 4, k + 8, ...
        java.util.Set<Long> expected = new java.util.HashSet<>();
        long ordered = 0;
        JsonNode perProducer = summary.path("sentPerProducer");
        assertThat(perProducer).hasSize(DemoCommand.PRODUCERS);
        for (int k = 0; k < DemoCommand.PRODUCERS; k++) {
            for (long j = 0; j < perProducer.get(k).asLong(); j++) {
                long order = k + j * DemoCommand.PRODUCERS;
                expected.add(order);
                ordered += DemoCommand.quantity(order);
            }
        }
        assertThat(expected).hasSize((int) sent);
        java.util.List<Long> processed = new java.util.ArrayList<>();
        try (Connection c = db.connect();
                Statement st = c.createStatement()) {
            try (ResultSet rs = st.executeQuery("select order_id, deliveries from shardq_demo.processed")) {
                while (rs.next()) {
                    processed.add(rs.getLong(1));
                    assertThat(rs.getInt(2))
                            .as("deliveries of order %d", rs.getLong(1))
                            .isEqualTo(1);
                }
            }
            try (ResultSet rs = st.executeQuery("select " + DemoCommand.INITIAL_STOCK * DemoCommand.ITEMS
                    + " - sum(stock) from shardq_demo.inventory")) {
                rs.next();
                assertThat(rs.getLong(1)).isEqualTo(ordered);
            }
        }
        io.shardq.broker.testing.SameElements.assertSameElements("processed orders", processed, expected);
        assertThat(cli.backlog(DemoCommand.ORDERS)).isZero();
    }

    @Test
    void ctrlC_stopsTheProducers_letsTheConsumersFinish_andPrintsTheSummary(TestDatabase db) throws Exception {
        CliRunner cli = new CliRunner(db, tmp);
        cli.broker("setup").close(); // migrates the database (the demo's JVM does not), also when this case runs alone
        Path output = tmp.resolve("demo.out");
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of(
                "demo", "--duration", "10m", "--rate", "50", "--consumers", "1", "--no-kill", "--json"));
        args.addAll(cli.connectionArgs());
        Process demo = CliProcess.start(output, args, true);
        try {
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MINUTES.toNanos(3);
            while (!java.nio.file.Files.readString(output).contains("sending orders")) {
                assertThat(demo.isAlive())
                        .as(java.nio.file.Files.readString(output))
                        .isTrue();
                assertThat(System.nanoTime()).as("the demo starts sending").isLessThan(deadline);
                Thread.sleep(200);
            }
            org.junit.jupiter.api.Assumptions.assumeFalse(
                    sigintIgnored(demo.pid()),
                    "SIGINT is ignored in the demo's process (inherited from a shell that started this build in the"
                            + " background, and no /usr/bin/perl to reset it): Ctrl-C cannot reach it, so this case"
                            + " cannot run here");
            // SIGINT, as Ctrl-C in a terminal sends it
            assertThat(new ProcessBuilder("kill", "-INT", Long.toString(demo.pid()))
                            .start()
                            .waitFor())
                    .isZero();
            // a deadline, not a claim on speed: the demo waits for its consumers up to the lease TTL
            // plus 10 s, then closes them and its instance, on whatever CPU it gets
            boolean ended = demo.waitFor(6, java.util.concurrent.TimeUnit.MINUTES);
            assertThat(ended)
                    .as("the demo ends after Ctrl-C; it printed:%n%s", java.nio.file.Files.readString(output))
                    .isTrue();
        } finally {
            demo.destroyForcibly();
        }
        String out = java.nio.file.Files.readString(output);
        assertThat(demo.exitValue()).as(out).isEqualTo(130);
        String json = out.substring(out.indexOf("{\n"));
        JsonNode summary = Json.MAPPER.readTree(json);
        assertThat(summary.path("stoppedEarly").asBoolean()).isTrue();
        assertThat(summary.path("exactlyOnce").asBoolean()).as(json).isTrue();
        assertThat(summary.path("missing").asLong()).isZero();
        assertThat(summary.path("processed").asLong()
                        + summary.path("stillWaiting").asLong())
                .as(json)
                .isEqualTo(summary.path("sent").asLong());
        // the demo's own instance was stopped, not left to look alive
        try (Connection c = db.connect();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery(
                        "select count(*) from shardq.instance where name like 'shardq demo (%' and stopped_at is null")) {
            rs.next();
            assertThat(rs.getLong(1)).isZero();
        }
    }

    @Test
    void demo_refusesBadOptions_withUsageExit() {
        CliRunner.Run r = CliRunner.runBare("demo", "--consumers", "0");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err())
                .startsWith("shardq: --duration must be more than 0, --rate 1 to 100000, --consumers 1 to 8");
    }

    /** Whether process {@code pid} ignores SIGINT (Linux: bit 1 of SigIgn in /proc/PID/status). */
    private static boolean sigintIgnored(long pid) throws java.io.IOException {
        java.nio.file.Path status = java.nio.file.Path.of("/proc", Long.toString(pid), "status");
        if (!java.nio.file.Files.exists(status)) {
            return false; // not Linux, or already gone: the wait below says what happened
        }
        for (String line : java.nio.file.Files.readAllLines(status)) {
            if (line.startsWith("SigIgn:")) {
                return (Long.parseUnsignedLong(line.substring(7).trim(), 16) & 0x2) != 0;
            }
        }
        return false;
    }
}
