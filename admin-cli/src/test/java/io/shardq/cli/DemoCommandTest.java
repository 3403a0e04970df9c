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
        assertThat(r.err()).contains("sending: sent").contains("killed with kill -9");

        try (Connection c = db.connect();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("select count(*), count(distinct order_id), max(deliveries),"
                        + " min(order_id), max(order_id), (select " + DemoCommand.INITIAL_STOCK * DemoCommand.ITEMS
                        + " - sum(stock) from shardq_demo.inventory) from shardq_demo.processed")) {
            rs.next();
            assertThat(rs.getLong(1)).isEqualTo(sent);
            assertThat(rs.getLong(2)).isEqualTo(sent);
            assertThat(rs.getInt(3)).isEqualTo(1);
            assertThat(rs.getLong(4)).isZero();
            assertThat(rs.getLong(5)).isEqualTo(sent - 1);
            long ordered = 0;
            for (long o = 0; o < sent; o++) {
                ordered += DemoCommand.quantity(o);
            }
            assertThat(rs.getLong(6)).isEqualTo(ordered);
        }
        assertThat(cli.backlog(DemoCommand.ORDERS)).isZero();
    }

    @Test
    void demo_refusesBadOptions_withUsageExit() {
        CliRunner.Run r = CliRunner.runBare("demo", "--consumers", "0");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err())
                .startsWith("shardq: --duration must be more than 0, --rate 1 to 100000, --consumers 1 to 8");
    }
}
