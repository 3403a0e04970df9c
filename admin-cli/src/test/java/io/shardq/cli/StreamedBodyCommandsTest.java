package io.shardq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.shard.BrokerSession;
import io.shardq.broker.shard.Delivery;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A dead letter with a streamed body (issue 12) through the CLI: browse shows its size, drain
 * refuses it and leaves it where it is (its file would need the body), and requeue streams the body
 * back to the queue intact.
 */
@PgTest
class StreamedBodyCommandsTest {
    static final int SIZE = 2 * 1024 * 1024 + 17;

    @TempDir
    Path tmp;

    CliRunner cli;

    @BeforeEach
    void setUp(TestDatabase db) {
        cli = new CliRunner(db, tmp);
    }

    @Test
    void streamedDeadLetter_isShownBySize_refusedByDrain_andRequeuedIntact() throws Exception {
        cli.run("queue", "create", "films", "--max-attempts", "1", "--shards", "1");
        byte[] body = new byte[SIZE];
        new Random(21).nextBytes(body);
        try (Broker app = cli.broker("studio")) {
            try (BrokerSession s = app.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
                s.send("films", message("reel-1"), new ByteArrayInputStream(body));
            }
            try (BrokerSession s = app.openSession(BrokerSession.Mode.TRANSACTED)) {
                assertThat(s.receive("films", 5000, false)).isNotNull();
                s.rollback();
                assertThat(s.receive("films", 500, false)).isNull(); // dead-lettered on the way
                s.commit();
            }
        }
        assertThat(cli.backlog("films.DLQ")).isEqualTo(1);

        CliRunner.Run browse = cli.run("queue", "browse", "films.DLQ", "--json");
        assertThat(browse.exit()).as(browse.err()).isZero();
        assertThat(browse.json().get(0).get("message").get("bodyStreamed").asLong())
                .isEqualTo(SIZE);

        CliRunner.Run drain = cli.run(
                "queue", "drain", "films.DLQ", "--to", tmp.resolve("out.jsonl").toString());
        assertThat(drain.exit()).isNotZero();
        assertThat(drain.err())
                .contains("has a streamed body of " + SIZE + " bytes")
                .contains("stays in the queue");
        assertThat(cli.backlog("films.DLQ")).isEqualTo(1);

        CliRunner.Run requeue = cli.run("dlq", "requeue", "films");
        assertThat(requeue.exit()).as(requeue.err()).isZero();
        assertThat(cli.backlog("films")).isEqualTo(1);
        try (Broker app = cli.broker("projector");
                BrokerSession s = app.openSession(BrokerSession.Mode.TRANSACTED)) {
            Delivery d = s.receive("films", 5000, false);
            BrokerMessage m = d.message();
            assertThat(m.properties()).containsOnlyKeys("title");
            assertThat(m.streamedBody().size()).isEqualTo(SIZE);
            try (InputStream in = app.openBody(m.streamedBody(), "the requeued film")) {
                assertThat(in.readAllBytes()).isEqualTo(body);
            }
            s.commit();
        }
    }

    private static BrokerMessage message(String title) {
        return new BrokerMessage(
                "ID:" + title,
                BrokerMessage.BodyType.BYTES,
                System.currentTimeMillis(),
                null,
                null,
                null,
                4,
                0,
                0,
                true,
                Map.of("title", title),
                null);
    }
}
