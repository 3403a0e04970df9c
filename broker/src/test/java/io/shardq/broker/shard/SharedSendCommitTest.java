package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.Engines;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.ShardQException;
import io.shardq.broker.internal.Queries;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Send batches of different sessions to different destinations share one transaction when they
 * wait for the instance's send committer together (issue 25), and one session's refused batch
 * does not fail the others. The group is lined up deterministically: a first batch is held on a
 * shard row another connection locks, the next two are handed over while it waits, then the lock
 * goes and those two form the next group.
 */
@PgTest
class SharedSendCommitTest {
    /** A thread per send: the common pool may have a single worker, and the sends block each other. */
    private static final Executor THREADS = r -> new Thread(r, "shared-send-test").start();

    @Test
    void batchesToTwoDestinations_waitingTogether_commitAsOneTransaction(TestDatabase db) throws Exception {
        try (Broker broker = Broker.start(shared(db))) {
            for (String q : List.of("shared.block", "shared.a", "shared.b")) {
                broker.admin().queues().create(q, QueueOptions.DEFAULTS.withShards(1));
            }
            warm(broker, "shared.block", "shared.a", "shared.b");
            long shared = Engines.of(broker).stats().sharedSendCommits();
            long alone = Engines.of(broker).stats().sharedSendAlone();
            List<CompletableFuture<Void>> sends = lineUp(db, broker, "shared.block", "shared.a", "shared.b");
            for (CompletableFuture<Void> f : sends) {
                f.get();
            }
            assertThat(Engines.of(broker).stats().sharedSendCommits() - shared)
                    .as("the two batches that waited together went out in one transaction")
                    .isEqualTo(1);
            // on Citus each shard of the group is written by its own router statements (no
            // one-statement form there), in the same one transaction
            assertThat(Engines.of(broker).stats().sharedSendAlone() - alone)
                    .as("in its one statement")
                    .isEqualTo(db.citus() ? 2 : 0);
            assertThat(drain(broker, "shared.block")).containsExactly("block");
            assertThat(drain(broker, "shared.a")).containsExactly("a1", "a2");
            assertThat(drain(broker, "shared.b")).containsExactly("b1", "b2");
        }
    }

    @Test
    void aBatchTheDatabaseRefuses_failsAlone_theOtherCommits(TestDatabase db) throws Exception {
        db.assumeNotCitus("the refusal is a trigger, which Citus does not support on a distributed table");
        // (each test has queues of its own: the database is the class's)
        try (Broker broker = Broker.start(shared(db))) {
            for (String q : List.of("refuse.block", "shared.bad", "shared.ok")) {
                broker.admin().queues().create(q, QueueOptions.DEFAULTS.withShards(1));
            }
            warm(broker, "refuse.block", "shared.bad", "shared.ok");
            int bad = broker.admin().require("shared.bad").id();
            try (Connection c = db.connect();
                    Statement st = c.createStatement()) {
                // a refusal by PostgreSQL, as a constraint or a full disk would give
                st.execute("CREATE FUNCTION public.refuse_insert() RETURNS trigger LANGUAGE plpgsql AS"
                        + " $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$");
                st.execute("CREATE TRIGGER refuse BEFORE INSERT ON " + Queries.parentTable(bad)
                        + " FOR EACH ROW EXECUTE FUNCTION public.refuse_insert()");
            }
            long retries = Engines.of(broker).stats().sharedSendRetries();
            List<CompletableFuture<Void>> sends = lineUp(db, broker, "refuse.block", "shared.bad", "shared.ok");
            sends.get(0).get();
            assertThatThrownBy(() -> sends.get(1).join())
                    .cause()
                    .isInstanceOf(ShardQException.class)
                    .hasMessageContaining("refused by the test")
                    .extracting(e -> ((ShardQException) e).kind())
                    .isEqualTo(ErrorKind.ROLLED_BACK);
            sends.get(2).get(); // the batch that shared the refused transaction committed on its own
            assertThat(Engines.of(broker).stats().sharedSendRetries() - retries).isEqualTo(1);
            assertThat(drain(broker, "shared.ok")).containsExactly("b1", "b2");
            assertThat(drain(broker, "shared.bad")).isEmpty();
            assertThat(broker.admin().queues().backlog("shared.bad")).isZero();
        }
    }

    private static io.shardq.broker.BrokerConfig shared(TestDatabase db) {
        return db.brokerConfig().set(BrokerProperty.COMMIT_SHARED_SENDS, true).build();
    }

    /**
     * Another instance wrote to one of the two shards since this instance last knew its head (it
     * waits on nothing there, so it is not told): that shard's part of the shared statement
     * reserves nothing and inserts nothing, the other shard's part commits, and the first shard's
     * batch is then written on its own after the other instance's message.
     */
    @Test
    void aShardWhoseHeadMovedElsewhere_isWrittenAlone_theOtherInTheStatement(TestDatabase db) throws Exception {
        db.assumeNotCitus("every shard is written alone there: there is no one-statement form to leave");
        try (Broker broker = Broker.start(shared(db))) {
            for (String q : List.of("moved.block", "moved.a", "moved.b")) {
                broker.admin().queues().create(q, QueueOptions.DEFAULTS.withShards(1));
            }
            warm(broker, "moved.block", "moved.b");
            send(broker, "moved.a", "warm"); // this instance knows moved.a's head; nobody here waits on it
            try (Broker other = Broker.start(db.brokerConfig().build())) {
                send(other, "moved.a", "elsewhere");
            }
            long alone = Engines.of(broker).stats().sharedSendAlone();
            for (CompletableFuture<Void> f : lineUp(db, broker, "moved.block", "moved.a", "moved.b")) {
                f.get();
            }
            assertThat(Engines.of(broker).stats().sharedSendAlone() - alone).isEqualTo(1);
            assertThat(drain(broker, "moved.a")).containsExactly("warm", "elsewhere", "a1", "a2");
            assertThat(drain(broker, "moved.b")).containsExactly("b1", "b2");
        }
    }

    /** One committed batch to each queue first, so every later batch takes the one-statement path. */
    private static void warm(Broker broker, String... queues) {
        for (String q : queues) {
            try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                s.send(q, Messages.text("warm"));
                s.commit();
            }
            assertThat(drain(broker, q)).containsExactly("warm");
        }
    }

    /**
     * Holds a batch to {@code blockQueue} on its shard row, hands two batches (to {@code first} and
     * {@code second}) over while it waits, then lets it go. Returns the three sends.
     */
    private static List<CompletableFuture<Void>> lineUp(
            TestDatabase db, Broker broker, String blockQueue, String first, String second) throws Exception {
        SendCommitter committer = Engines.of(broker).sendCommitter();
        int block = broker.admin().require(blockQueue).id();
        List<CompletableFuture<Void>> sends = new ArrayList<>();
        try (Connection lock = db.connect()) {
            lock.setAutoCommit(false);
            try (PreparedStatement ps = lock.prepareStatement(
                    "SELECT 1 FROM shardq.shard WHERE destination_id = ? AND shard_no = 0 FOR UPDATE")) {
                ps.setInt(1, block);
                ps.executeQuery().close();
            }
            sends.add(CompletableFuture.runAsync(() -> send(broker, blockQueue, "block"), THREADS));
            Awaitility.await("the first batch's group is running")
                    .atMost(Duration.ofSeconds(60))
                    .until(committer::running);
            sends.add(CompletableFuture.runAsync(() -> send(broker, first, "a1", "a2"), THREADS));
            sends.add(CompletableFuture.runAsync(() -> send(broker, second, "b1", "b2"), THREADS));
            Awaitility.await("both batches wait behind it")
                    .atMost(Duration.ofSeconds(60))
                    .until(() -> committer.waiting() == 2);
            assertThat(sends.get(0)).isNotDone();
            lock.commit();
        }
        return sends;
    }

    private static void send(Broker broker, String queue, String... bodies) {
        try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            for (String b : bodies) {
                s.send(queue, Messages.text(b));
            }
            s.commit();
        }
    }

    private static List<String> drain(Broker broker, String queue) {
        List<String> out = new ArrayList<>();
        try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            Delivery d;
            while ((d = s.receive(queue, out.isEmpty() ? 2_000 : 200, false)) != null) {
                out.add(Messages.body(d.message()));
            }
            s.commit();
        }
        return out;
    }

    /** The per-shard committers of {@code shardq.commit.shared-sends=false} never share a transaction. */
    @Test
    void perShardCommitters_neverShare(TestDatabase db) throws Exception {
        try (Broker broker = Broker.start(
                db.brokerConfig().set(BrokerProperty.COMMIT_SHARED_SENDS, false).build())) {
            for (String q : List.of("alone.a", "alone.b")) {
                broker.admin().queues().create(q, QueueOptions.DEFAULTS.withShards(1));
            }
            List<CompletableFuture<Void>> sends = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                String q = i % 2 == 0 ? "alone.a" : "alone.b";
                String body = "m" + i;
                sends.add(CompletableFuture.runAsync(() -> send(broker, q, body), THREADS));
            }
            for (CompletableFuture<Void> f : sends) {
                f.get();
            }
            assertThat(Engines.of(broker).stats().sharedSendCommits()).isZero();
            assertThat(drain(broker, "alone.a")).containsExactlyInAnyOrder("m0", "m2", "m4", "m6");
            assertThat(drain(broker, "alone.b")).containsExactlyInAnyOrder("m1", "m3", "m5", "m7");
        }
    }
}
