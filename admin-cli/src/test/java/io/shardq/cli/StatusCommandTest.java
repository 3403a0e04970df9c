package io.shardq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.shardq.broker.Broker;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@PgTest
class StatusCommandTest {
    @TempDir
    Path tmp;

    @Test
    void status_showsSchemaDurabilityAndLiveInstances_thenNotAStoppedOne(TestDatabase db) {
        CliRunner cli = new CliRunner(db, tmp);
        CliRunner.Run before = cli.run("status");
        assertThat(before.exit()).as(before.err()).isZero();
        assertThat(before.out())
                .contains("schema version      not created (run: shardq migrate)")
                .doesNotContain("instances alive");

        CliRunner.Run text;
        CliRunner.Run json;
        try (Broker app = cli.broker("order-service@host-1")) {
            text = cli.run("status");
            json = cli.run("status", "--json");
        }
        CliRunner.Run after = cli.run("status", "--json");

        assertThat(text.exit()).as(text.err()).isZero();
        assertThat(text.out())
                .contains("server version      PostgreSQL 1")
                .contains("schema version      019")
                .containsPattern("fsync\\s+on")
                .containsPattern("synchronous_commit\\s+on")
                .containsPattern("full_page_writes\\s+on")
                .contains("instances alive     1")
                .containsPattern("ID\\s+NAME\\s+STARTED\\s+LAST HEARTBEAT")
                .containsPattern(
                        "order-service@host-1\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ\\s+[\\d.]+ m?s ago");
        JsonNode j = json.json();
        assertThat(j.get("schemaVersion").asText()).isEqualTo("019");
        assertThat(j.get("settings").get("fsync").asText()).isEqualTo("on");
        assertThat(names(j)).containsExactly("order-service@host-1");
        assertThat(j.get("instances").get(0).get("heartbeatAgeMillis").asLong()).isBetween(0L, 30_000L);
        assertThat(names(after.json())).isEmpty();
        assertThat(j.toString()).doesNotContain(db.password().isEmpty() ? "\u0000" : db.password());
    }

    private static List<String> names(JsonNode status) {
        List<String> names = new ArrayList<>();
        status.get("instances").forEach(i -> names.add(i.get("name").asText()));
        return names;
    }
}
