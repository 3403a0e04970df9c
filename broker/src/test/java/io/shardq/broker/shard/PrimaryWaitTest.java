package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.shardq.broker.Broker;
import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.ShardQException;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.OwnPostgres;
import io.shardq.broker.testing.ReplicatedPostgres;
import io.shardq.broker.testing.ReplicatedPostgres.Replication;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What a client sees while no writable primary is there: an operation that starts then waits,
 * retrying with back-off, and succeeds once a standby is promoted within {@code
 * shardq.failover.wait-ms}; past that bound it fails with an error that names what happened; a
 * server that refuses writes (SQLSTATE 25006: a standby, or a primary fenced read-only by a
 * failover manager) is recognised as such, its connections are dropped, and work resumes by itself
 * once a writable primary is back.
 */
@Tag("fault")
class PrimaryWaitTest {
    @Test
    void aSendStartedWhileThePrimaryIsDead_waitsForThePromotion_andCommits() throws Exception {
        try (ReplicatedPostgres pg = ReplicatedPostgres.start("shardq-primary-wait", Replication.SYNCHRONOUS)) {
            BrokerConfig config = config(pg.jdbcUrl(), 120_000);
            try (Broker broker = Broker.start(config)) {
                broker.admin().queues().create("wait.q", QueueOptions.DEFAULTS.withShards(2));
                sendOne(broker, "wait.q", "before");

                pg.killPrimary();
                // the pool has learnt the server is gone (as from its validation or a failed
                // statement), so the send below starts with no connection and must make one
                ((HikariDataSource) broker.dataSource()).getHikariPoolMXBean().softEvictConnections();
                CountDownLatch starting = new CountDownLatch(1);
                CompletableFuture<Void> send = CompletableFuture.runAsync(() -> {
                    starting.countDown();
                    sendOne(broker, "wait.q", "during");
                });
                starting.await();
                pg.promote();
                send.get(3, TimeUnit.MINUTES); // no exception: the send waited and committed

                assertThat(receiveAll(broker, "wait.q")).containsExactlyInAnyOrder("before", "during");
            }
        }
    }

    @Test
    void aPrimaryFencedReadOnly_isRecognised_operationsFailNamingIt_andResumeWhenItIsWritable() throws Exception {
        OwnPostgres pg = OwnPostgres.start("shardq-read-only");
        try (Broker broker = Broker.start(config(pg.jdbcUrl(), 500))) {
            broker.admin().queues().create("fenced.q", QueueOptions.DEFAULTS.withShards(2));
            sendOne(broker, "fenced.q", "before");
            setReadOnly(pg.jdbcUrl(), true);

            // sends on connections made before the fence hit 25006 and drop their connection;
            // once none is left, a send waits for a writable primary and fails after the bound.
            // pg_reload_conf() only signals the backends: one that has not yet read the new
            // setting still commits, so a send may be accepted; what counts is that every
            // accepted send is delivered and no refused one is.
            List<String> refused = new ArrayList<>();
            List<String> accepted = new ArrayList<>();
            Set<String> seen = new HashSet<>();
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
            int n = 0;
            while (!(seen.contains("read-only") && seen.contains("no primary")) && System.nanoTime() < deadline) {
                String body = "fenced-" + n++;
                try {
                    sendOne(broker, "fenced.q", body);
                    accepted.add(body);
                } catch (ShardQException e) {
                    refused.add(body);
                    if (e.getMessage().contains("the server is read-only")) {
                        // refused, so not in doubt: nothing of the transaction was kept
                        assertThat(e.kind()).as(e.getMessage()).isEqualTo(ErrorKind.ROLLED_BACK);
                        seen.add("read-only");
                    } else {
                        assertThat(e.kind()).as(e.getMessage()).isEqualTo(ErrorKind.CONNECTION);
                        assertThat(e.getMessage())
                                .contains("no writable PostgreSQL primary accepted a connection")
                                .contains(BrokerProperty.FAILOVER_WAIT_MS.key());
                        seen.add("no primary");
                    }
                }
            }
            assertThat(seen).containsExactlyInAnyOrder("read-only", "no primary");
            assertThat(refused.size() + accepted.size()).isEqualTo(n);

            setReadOnly(pg.jdbcUrl(), false);
            sendAfterwards(broker, "after");
            List<String> expected = new ArrayList<>(accepted);
            expected.add("before");
            expected.add("after");
            // nothing refused was kept, nothing accepted was lost
            assertThat(receiveAll(broker, "fenced.q")).containsExactlyInAnyOrderElementsOf(expected);
        } finally {
            pg.close();
        }
    }

    private static BrokerConfig config(String url, int failoverWaitMs) {
        return BrokerConfig.builder()
                .isolated()
                .set(BrokerProperty.JDBC_URL, url)
                .set(BrokerProperty.JDBC_USER, "postgres")
                .set(BrokerProperty.HEARTBEAT_MS, 200)
                .set(BrokerProperty.LEASE_TTL_MS, 3000)
                .set(BrokerProperty.POOL_SIZE, 4)
                .set(BrokerProperty.POOL_TIMEOUT_MS, 500)
                .set(BrokerProperty.FAILOVER_WAIT_MS, failoverWaitMs)
                .build();
    }

    private static void sendOne(Broker broker, String queue, String body) {
        try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            s.send(queue, Messages.text(body));
            s.commit();
        }
    }

    /** The first send once the fence is lifted may still meet a connection the fence refused: retried until the deadline. */
    private static void sendAfterwards(Broker broker, String body) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (true) {
            try {
                sendOne(broker, "fenced.q", body);
                return;
            } catch (ShardQException e) {
                if (System.nanoTime() > deadline
                        || e.kind() != ErrorKind.CONNECTION && e.kind() != ErrorKind.ROLLED_BACK) {
                    throw e;
                }
                Thread.sleep(50); // an application's retry
            }
        }
    }

    private static List<String> receiveAll(Broker broker, String queue) {
        List<String> got = new ArrayList<>();
        try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            Delivery d = s.receive(queue, 10_000, false);
            while (d != null) {
                got.add(Messages.body(d.message()));
                d = s.receive(queue, 1_000, false);
            }
            s.commit();
        }
        return got;
    }

    private static void setReadOnly(String url, boolean on) throws Exception {
        try (Connection c = DriverManager.getConnection(url, "postgres", "");
                Statement s = c.createStatement()) {
            s.execute("SET default_transaction_read_only = off");
            s.execute(
                    on
                            ? "ALTER SYSTEM SET default_transaction_read_only = on"
                            : "ALTER SYSTEM RESET default_transaction_read_only");
            s.execute("SELECT pg_reload_conf()");
        }
    }
}
