package io.shardq.cli;

import static io.shardq.cli.CliRunner.assertOneLineError;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.shardq.broker.Broker;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@PgTest
class QueueBrowseAndPurgeCommandsTest {
    @TempDir
    Path tmp;

    CliRunner cli;

    @BeforeEach
    void setUp(TestDatabase db) {
        cli = new CliRunner(db, tmp);
    }

    @Test
    void browse_showsWaitingMessages_filtersBySelector_andConsumesNothing() {
        cli.run("queue", "create", "browse-q", "--shards", "1");
        try (Broker app = cli.broker("producer")) {
            CliRunner.send(
                    app,
                    "browse-q",
                    IntStream.range(0, 30)
                            .mapToObj(i -> Messages.text(
                                    "hello " + i + " \u00e9\u6f22", Map.of("n", i, "region", i % 2 == 0 ? "eu" : "us")))
                            .toList());
        }

        CliRunner.Run all = cli.run("queue", "browse", "browse-q", "--limit", "5");
        assertThat(all.exit()).as(all.err()).isZero();
        assertThat(all.out())
                .containsPattern("SHARD\\s+SEQ\\s+ENQUEUED\\s+MESSAGE ID\\s+BODY\\s+PROPERTIES")
                .contains("\"hello 0 \u00e9\u6f22\"")
                .containsPattern("(n=0, region='eu'|region='eu', n=0)") // Map.of has no order
                .endsWith("(5 of 30 messages waiting)\n");
        assertThat(all.out().lines()).hasSize(7);

        CliRunner.Run some =
                cli.run("queue", "browse", "browse-q", "--selector", "region = 'us' AND n >= 20", "--json");
        JsonNode j = some.json();
        assertThat(j).hasSize(5);
        for (JsonNode b : j) {
            JsonNode props = b.get("message").get("properties");
            assertThat(props.get("region").get("value").asText()).isEqualTo("us");
            assertThat(props.get("n").get("type").asText()).isEqualTo("int");
            assertThat(props.get("n").get("value").asInt()).isGreaterThanOrEqualTo(20);
        }

        CliRunner.Run bad = cli.run("queue", "browse", "browse-q", "--selector", "region = = 'us'");
        assertOneLineError(bad);
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.err()).startsWith("shardq: selector \"region = = 'us'\" is invalid");

        assertThat(cli.backlog("browse-q")).isEqualTo(30);

        CliRunner.Run refused = cli.run("queue", "purge", "browse-q");
        assertOneLineError(refused);
        assertThat(refused.exit()).isEqualTo(2);
        assertThat(refused.err())
                .isEqualTo("shardq: queue browse-q holds 30 messages; purge discards them: add --force (or keep them:"
                        + " shardq queue drain browse-q --to FILE)\n");
        assertThat(cli.backlog("browse-q")).isEqualTo(30);

        CliRunner.Run purge = cli.run("queue", "purge", "browse-q", "--force");
        assertThat(purge.exit()).as(purge.err()).isZero();
        assertThat(purge.out()).matches("purged queue browse-q: 30 messages discarded in [\\d.]+ m?s\\n");
        assertThat(cli.backlog("browse-q")).isZero();
        // an empty queue needs no --force: nothing is discarded
        assertThat(cli.run("queue", "purge", "browse-q").out()).startsWith("purged queue browse-q: 0 messages");
    }

    @Test
    void browseSelector_findsAMatchBehindThousandsOfOthers_andStopsAtScan() {
        cli.run("queue", "create", "browse-deep", "--shards", "1");
        try (Broker app = cli.broker("producer")) {
            CliRunner.send(
                    app,
                    "browse-deep",
                    IntStream.range(0, 3000)
                            .mapToObj(i -> Messages.text("m" + i, Map.of("n", i)))
                            .toList());
        }

        CliRunner.Run last = cli.run("queue", "browse", "browse-deep", "--selector", "n = 2999");
        assertThat(last.exit()).as(last.err()).isZero();
        assertThat(last.out()).contains("\"m2999\"").endsWith("(1 shown; looked at 3,000 of 3,000 messages waiting)\n");

        CliRunner.Run capped = cli.run("queue", "browse", "browse-deep", "--selector", "n = 2999", "--scan", "1000");
        assertThat(capped.exit()).as(capped.err()).isZero();
        assertThat(capped.out())
                .endsWith("(0 shown; looked at 1,000 of 3,000 messages waiting; raise --scan to look further)\n");
        assertThat(cli.backlog("browse-deep")).isEqualTo(3000);
    }
}
