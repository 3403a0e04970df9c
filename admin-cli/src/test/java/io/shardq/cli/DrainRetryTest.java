package io.shardq.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.Broker;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.shard.BrokerSession;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A drain whose batch is rolled back (here: its dequeue lease is taken away between receive and
 * commit, so the commit's cursor guard fails) receives the batch again, and every message ends up
 * in the output exactly once; too many rollbacks in a row end the drain, the batch still in the queue
 * and not in the output.
 */
@PgTest
class DrainRetryTest {
    static final int MESSAGES = 100;
    static final int BATCH = 10;

    @TempDir
    Path tmp;

    /** Delegates to the drain's own handler; after writing the batches chosen, takes the lease away. */
    private static final class Sabotage implements BatchMover.Handler {
        final BatchMover.Handler real;
        final TestDatabase db;
        final String queue;
        final IntPredicate when;
        int accepted;
        int sabotaged;

        Sabotage(BatchMover.Handler real, TestDatabase db, String queue, IntPredicate when) {
            this.real = real;
            this.db = db;
            this.queue = queue;
            this.when = when;
        }

        @Override
        public void accept(BrokerSession session, List<BrokerMessage> batch) throws IOException {
            real.accept(session, batch);
            if (when.test(++accepted)) {
                sabotaged++;
                try (var c = db.connect();
                        PreparedStatement ps = c.prepareStatement("update shardq.cursor set lease_instance = null,"
                                + " lease_until = null where destination_id = (select id from shardq.destination"
                                + " where name = ?)")) {
                    ps.setString(1, queue);
                    ps.executeUpdate();
                } catch (java.sql.SQLException e) {
                    throw new IllegalStateException(e);
                }
            }
        }

        @Override
        public void rolledBack() throws IOException {
            real.rolledBack();
        }

        @Override
        public void committed() {
            real.committed();
        }
    }

    private static List<String> fill(CliRunner cli, String queue) {
        assertThat(cli.run("queue", "create", queue, "--shards", "2", "--max-attempts", "10")
                        .exit())
                .isZero();
        List<BrokerMessage> sent = IntStream.range(0, MESSAGES)
                .mapToObj(i -> Messages.text(queue + " " + i))
                .toList();
        try (Broker app = cli.broker("producer")) {
            CliRunner.send(app, queue, sent);
        }
        return sent.stream().map(BrokerMessage::messageId).toList();
    }

    private static BatchMover mover(Broker broker, String queue, GracefulStop stop, PrintWriter err) {
        return new BatchMover(
                broker, queue, null, BATCH, 0, 30_000, stop, Progress.forTerminal(err, "draining", MESSAGES), err);
    }

    @Test
    void aRolledBackBatch_isReceivedAgain_andEveryMessageIsInTheFileOnce(TestDatabase db) throws Exception {
        CliRunner cli = new CliRunner(db, tmp);
        List<String> sent = fill(cli, "retry.file");
        Path file = tmp.resolve("drained.jsonl");
        StringWriter err = new StringWriter();
        Sabotage handler;
        BatchMover.Result r;
        try (GracefulStop stop = GracefulStop.install();
                Broker broker = cli.broker("drain");
                DrainOutput output = DrainOutput.file(file, false)) {
            // batches 1, 3 and 4 roll back: once, then twice in a row
            handler = new Sabotage(new DrainHandler(output), db, "retry.file", n -> n == 1 || n == 3 || n == 4);
            r = mover(broker, "retry.file", stop, new PrintWriter(err, true)).run(handler);
        }
        assertThat(handler.sabotaged).isEqualTo(3);
        assertThat(r.end()).isEqualTo(BatchMover.End.EMPTY);
        assertThat(r.moved()).isEqualTo(MESSAGES);
        assertThat(CliRunner.ids(file)).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(sent);
        assertThat(cli.backlog("retry.file")).isZero();
        assertThat(err.toString()).contains("was rolled back").contains("receiving it again (2 of 3 retries)");
    }

    @Test
    void onStdout_aMessageReceivedAgainIsNotPrintedAgain(TestDatabase db) throws Exception {
        CliRunner cli = new CliRunner(db, tmp);
        List<String> sent = fill(cli, "retry.stdout");
        StringWriter out = new StringWriter();
        BatchMover.Result r;
        try (GracefulStop stop = GracefulStop.install();
                Broker broker = cli.broker("drain");
                DrainOutput output = DrainOutput.stdout(new PrintWriter(out, true))) {
            DrainHandler drain = new DrainHandler(output);
            r = mover(broker, "retry.stdout", stop, new PrintWriter(new StringWriter(), true))
                    .run(new Sabotage(drain, db, "retry.stdout", n -> n == 2));
            assertThat(drain.printedButNotReceivedAgain()).isZero(); // this drain was the only consumer
        }
        assertThat(r.moved()).isEqualTo(MESSAGES);
        List<String> printed = new ArrayList<>();
        for (String line : out.toString().split("\n")) {
            printed.add(MessageJson.fromJson(Json.MAPPER.readTree(line)).messageId());
        }
        assertThat(printed).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(sent);
    }

    @Test
    void rollbacksBeyondTheBound_endTheDrain_leavingTheBatchInTheQueueAndNotInTheFile(TestDatabase db)
            throws Exception {
        CliRunner cli = new CliRunner(db, tmp);
        fill(cli, "retry.bound");
        Path file = tmp.resolve("bound.jsonl");
        Sabotage handler;
        try (GracefulStop stop = GracefulStop.install();
                Broker broker = cli.broker("drain");
                DrainOutput output = DrainOutput.file(file, false)) {
            handler = new Sabotage(new DrainHandler(output), db, "retry.bound", n -> true);
            BatchMover mover = mover(broker, "retry.bound", stop, new PrintWriter(new StringWriter(), true));
            assertThatThrownBy(() -> mover.run(handler))
                    .isInstanceOf(ShardQException.class)
                    .hasMessageContaining("will be moved again")
                    .extracting(e -> ((ShardQException) e).kind())
                    .isEqualTo(ErrorKind.ROLLED_BACK);
        }
        assertThat(handler.sabotaged).isEqualTo(BatchMover.MAX_ROLLBACKS + 1);
        assertThat(CliRunner.ids(file)).isEmpty(); // the last batch too was taken back out
        assertThat(cli.backlog("retry.bound")).isEqualTo(MESSAGES);
    }
}
