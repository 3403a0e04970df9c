package io.shardq.broker.testing;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.kv.Codec;
import io.shardq.broker.kv.KvCache;
import io.shardq.broker.shard.BrokerSession;
import io.shardq.broker.shard.Delivery;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Run in a separate JVM by {@code AppFailoverTest}: an application whose transactions hold its own
 * SQL, ShardQ's messages and key/value cache entries together, on a JDBC connection of its own to
 * the cluster URL. One producer thread (per transaction: an {@code app_sent} row, a message, a cache
 * entry, one commit) and one consumer thread (per transaction: up to five messages received and an
 * {@code app_consumed} row for each, one commit), each retrying on any failure as an application
 * would. Prints {@code STARTED} once running; appends each id whose producer commit returned to
 * {@code <dir>/<name>.acked}, and each whose commit's connection died to {@code <dir>/<name>.indoubt};
 * the consumer's accounting is in the database. Producing stops when the file {@code <dir>/stop-producing} exists, everything
 * when {@code <dir>/stop} does. Args: JDBC URL, queue, cache, producer name, directory.
 */
public final class AppFailoverMain {
    private AppFailoverMain() {}

    public static void main(String[] args) throws Exception {
        String url = args[0];
        String queue = args[1];
        String cacheName = args[2];
        String name = args[3];
        Path dir = Path.of(args[4]);
        BrokerConfig config = BrokerConfig.builder()
                .isolated()
                .set(BrokerProperty.JDBC_URL, url)
                .set(BrokerProperty.JDBC_USER, "postgres")
                .set(BrokerProperty.HEARTBEAT_MS, 200)
                .set(BrokerProperty.LEASE_TTL_MS, 3000)
                .set(BrokerProperty.POOL_TIMEOUT_MS, 2000)
                .set(BrokerProperty.FAILOVER_WAIT_MS, 120_000)
                .build();
        try (Broker broker = Broker.start(config)) {
            Thread producer = new Thread(() -> produce(broker, url, queue, cacheName, name, dir), "producer");
            Thread consumer = new Thread(() -> consume(broker, url, queue, dir), "consumer");
            producer.start();
            consumer.start();
            print("STARTED");
            producer.join();
            consumer.join();
        }
        print("EXITING");
        System.exit(0);
    }

    private static void produce(Broker broker, String url, String queue, String cacheName, String name, Path dir) {
        int n = 0;
        while (!Files.exists(dir.resolve("stop-producing"))) {
            String id = name + "-" + n++;
            boolean committing = false;
            try (Connection c = DriverManager.getConnection(url, "postgres", "")) {
                c.setAutoCommit(false);
                try (BrokerSession s = broker.openSession(c, true)) {
                    try (PreparedStatement ps = c.prepareStatement("INSERT INTO app_sent (id) VALUES (?)")) {
                        ps.setString(1, id);
                        ps.executeUpdate();
                    }
                    s.send(queue, Messages.text(id));
                    KvCache<String, String> cache =
                            broker.cache(cacheName, Codec.utf8(), Codec.utf8()).in(s);
                    cache.put(id, "v-" + id);
                    s.commit();
                    committing = true;
                    c.commit();
                    s.transactionEnded(BrokerSession.Outcome.COMMITTED);
                    record(dir.resolve(name + ".acked"), id);
                } catch (SQLException | RuntimeException e) {
                    if (committing && isConnectionLoss(e)) {
                        record(dir.resolve(name + ".indoubt"), id);
                    }
                    c.rollback();
                }
            } catch (SQLException | RuntimeException e) {
                pause(); // the connection itself failed: PostgreSQL failing over
            }
        }
    }

    private static void consume(Broker broker, String url, String queue, Path dir) {
        while (!Files.exists(dir.resolve("stop"))) {
            try (Connection c = DriverManager.getConnection(url, "postgres", "")) {
                c.setAutoCommit(false);
                try (BrokerSession s = broker.openSession(c, true)) {
                    while (!Files.exists(dir.resolve("stop"))) {
                        List<String> batch = new ArrayList<>();
                        Delivery d = s.receive(queue, 100, false);
                        while (d != null) {
                            batch.add(Messages.body(d.message()));
                            d = batch.size() < 5 ? s.receive(queue, -1, false) : null;
                        }
                        if (batch.isEmpty()) {
                            continue;
                        }
                        try (PreparedStatement ps = c.prepareStatement("INSERT INTO app_consumed (id) VALUES (?)")) {
                            for (String id : batch) {
                                ps.setString(1, id);
                                ps.addBatch();
                            }
                            ps.executeBatch();
                        }
                        s.commit();
                        try {
                            c.commit();
                        } catch (SQLException e) {
                            s.transactionEnded(
                                    isConnectionLoss(e)
                                            ? BrokerSession.Outcome.UNKNOWN
                                            : BrokerSession.Outcome.ROLLED_BACK);
                            throw e;
                        }
                        s.transactionEnded(BrokerSession.Outcome.COMMITTED);
                    }
                }
            } catch (SQLException | RuntimeException e) {
                pause();
            }
        }
    }

    private static boolean isConnectionLoss(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException se
                    && se.getSQLState() != null
                    && se.getSQLState().startsWith("08")) {
                return true;
            }
        }
        return false;
    }

    private static synchronized void record(Path file, String id) {
        try {
            Files.writeString(
                    file, id + "\n", java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static synchronized void print(String line) {
        System.out.println(line);
        System.out.flush();
    }

    private static void pause() {
        try {
            Thread.sleep(50); // back-off of a retrying application
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
