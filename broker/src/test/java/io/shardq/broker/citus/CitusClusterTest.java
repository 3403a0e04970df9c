package io.shardq.broker.citus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.ShardQException;
import io.shardq.broker.shard.BrokerSession;
import io.shardq.broker.shard.Delivery;
import io.shardq.broker.testing.CitusDatabases;
import io.shardq.broker.testing.Messages;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * ShardQ on a Citus cluster (docs/design/citus.md), run when {@code SHARDQ_TEST_CITUS_URL} names
 * a coordinator whose workers are registered ({@code dev/citus-cluster start} prints one), and
 * skipped, saying so, otherwise. Each run makes a database of its own over the whole cluster.
 */
class CitusClusterTest {
    static final String SKIPPED =
            "SHARDQ_TEST_CITUS_URL is not set: the Citus tests are skipped (dev/citus-cluster start prints one)";
    static String adminUrl;
    static String url;
    static String database;
    static final String USER = System.getenv().getOrDefault("SHARDQ_TEST_USER", "postgres");
    static final String PASSWORD = System.getenv().getOrDefault("SHARDQ_TEST_PASSWORD", "");

    @BeforeAll
    static void cluster() {
        String given = System.getenv("SHARDQ_TEST_CITUS_URL");
        if (given == null || given.isBlank()) {
            System.out.println("[citus] " + SKIPPED);
            return;
        }
        String base = given.contains("?") ? given.substring(0, given.indexOf('?')) : given;
        adminUrl = base.substring(0, base.lastIndexOf('/') + 1) + "postgres";
        database = "t_citus_" + ProcessHandle.current().pid();
        CitusDatabases.create(adminUrl, USER, PASSWORD, database);
        url = base.substring(0, base.lastIndexOf('/') + 1) + database;
    }

    @BeforeEach
    void needsACluster() {
        Assumptions.assumeTrue(url != null, SKIPPED);
    }

    @AfterAll
    static void dropDatabase() {
        if (database != null && url != null) {
            CitusDatabases.drop(adminUrl, USER, PASSWORD, database);
        }
    }

    private static BrokerConfig config() {
        return BrokerConfig.builder()
                .isolated()
                .set(BrokerProperty.JDBC_URL, url)
                .set(BrokerProperty.JDBC_USER, USER)
                .set(BrokerProperty.JDBC_PASSWORD, PASSWORD)
                .set(BrokerProperty.POOL_SIZE, 8)
                .build();
    }

    @Test
    void migrate_distributesTheCatalog_andAQueuesShardsOverBothWorkers() throws Exception {
        try (Broker broker = Broker.start(config())) {
            broker.admin().queues().create("citus.layout", QueueOptions.DEFAULTS.withShards(8));
            long empty = broker.admin().queues().stats("citus.layout").tableBytes();
            try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                for (int i = 0; i < 2_000; i++) {
                    s.send("citus.layout", Messages.text("x".repeat(1_000)));
                }
                s.commit();
            }
            // what queue stats shows is read on the workers, where the rows are (the
            // coordinator's leaves stay empty shells)
            assertThat(broker.admin().queues().stats("citus.layout").tableBytes() - empty)
                    .isGreaterThanOrEqualTo(2_000L * 1_000);
            broker.admin().queues().purge("citus.layout");
        }
        try (Connection c = DriverManager.getConnection(url, USER, PASSWORD);
                Statement s = c.createStatement()) {
            Map<String, String> kinds = new HashMap<>();
            try (ResultSet rs = s.executeQuery("select logicalrelid::text, partmethod::text from pg_dist_partition"
                    + " where logicalrelid::text in ('shardq.shard', 'shardq.cursor', 'shardq.slice',"
                    + " 'shardq.destination', 'shardq.subscription')")) {
                while (rs.next()) {
                    kinds.put(rs.getString(1), rs.getString(2));
                }
            }
            assertThat(kinds)
                    .containsEntry("shardq.shard", "h")
                    .containsEntry("shardq.cursor", "h")
                    .containsEntry("shardq.slice", "h")
                    .containsEntry("shardq.destination", "n")
                    .containsEntry("shardq.subscription", "n");
            int id = destinationId(c, "citus.layout");
            // one level: the destination's table is partitioned by (shard_no, slot), its leaves hang from it
            try (ResultSet rs = s.executeQuery("select p.partnatts, (select count(*) from pg_inherits i"
                    + " where i.inhparent = p.partrelid) from pg_partitioned_table p"
                    + " where p.partrelid = 'shardq.m_" + id + "'::regclass")) {
                rs.next();
                assertThat(rs.getInt(1)).isEqualTo(2);
                assertThat(rs.getInt(2)).isEqualTo(8 * 3);
            }
            assertThat(workersOf(c, List.of(0, 1, 2, 3, 4, 5, 6, 7))).hasSizeGreaterThanOrEqualTo(2);
        }
    }

    @Test
    void anXaSession_isRefusedWithAClearError() {
        try (Broker broker = Broker.start(config())) {
            assertThatThrownBy(() -> broker.xa().openSession())
                    .isInstanceOf(ShardQException.class)
                    .satisfies(e -> assertThat(((ShardQException) e).kind()).isEqualTo(ErrorKind.CONFIGURATION))
                    .hasMessageContaining("not supported on a Citus cluster");
        }
    }

    @Test
    void everyMessageOnce_inEachProducersOrder_overShardsOnBothWorkers() throws Exception {
        int producers = 6;
        int perProducer = 200;
        try (Broker broker = Broker.start(config())) {
            broker.admin().queues().create("citus.once", QueueOptions.DEFAULTS.withShards(8));
            // a thread per producer: the engine places each thread's sends on a shard of its own
            List<Thread> threads = new ArrayList<>();
            List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
            for (int p = 0; p < producers; p++) {
                int producer = p;
                Thread t = new Thread(() -> {
                    try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                        for (int i = 0; i < perProducer; i++) {
                            s.send("citus.once", Messages.text(producer + ":" + i));
                            if (i % 20 == 19) {
                                s.commit();
                            }
                        }
                        s.commit();
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                });
                threads.add(t);
                t.start();
            }
            for (Thread t : threads) {
                t.join();
            }
            assertThat(failures).isEmpty();
            try (Connection c = DriverManager.getConnection(url, USER, PASSWORD)) {
                int id = destinationId(c, "citus.once");
                List<Integer> used = new ArrayList<>();
                try (PreparedStatement ps = c.prepareStatement(
                        "select shard_no from shardq.shard where destination_id = ? and next_seq > 1 order by 1")) {
                    ps.setInt(1, id);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            used.add(rs.getInt(1));
                        }
                    }
                }
                assertThat(workersOf(c, used))
                        .as("workers holding the sent messages (shards %s)", used)
                        .hasSize(2);
            }
            Map<Integer, List<Integer>> received = new HashMap<>();
            Set<String> seen = new HashSet<>();
            try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                int n = 0;
                while (n < producers * perProducer) {
                    Delivery d = s.receive("citus.once", 30_000, false);
                    assertThat(d)
                            .as("message %d of %d", n + 1, producers * perProducer)
                            .isNotNull();
                    String body = Messages.body(d.message());
                    assertThat(seen.add(body)).as("delivered twice: %s", body).isTrue();
                    String[] parts = body.split(":");
                    received.computeIfAbsent(Integer.parseInt(parts[0]), k -> new ArrayList<>())
                            .add(Integer.parseInt(parts[1]));
                    if (++n % 50 == 0) {
                        s.commit();
                    }
                }
                s.commit();
                assertThat(s.receive("citus.once", 500, false)).isNull();
            }
            for (int p = 0; p < producers; p++) {
                assertThat(received.get(p)).as("producer %d", p).isSorted().hasSize(perProducer);
            }
            assertThat(broker.admin().queues().backlog("citus.once")).isZero();
        }
    }

    @Test
    void aTransaction_takesFromAShardOnOneWorker_sendsToAnother_andWritesTheApplicationsDistributedTable()
            throws Exception {
        try (Connection c = DriverManager.getConnection(url, USER, PASSWORD);
                Statement s = c.createStatement()) {
            s.execute("create table app_moves (id text primary key, note text)");
            s.execute("select create_distributed_table('app_moves', 'id')");
        }
        int moves = 40;
        try (Broker broker = Broker.start(config())) {
            broker.admin().queues().create("citus.src", QueueOptions.DEFAULTS.withShards(1));
            broker.admin().queues().create("citus.dst", QueueOptions.DEFAULTS.withShards(8));
            try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                for (int i = 0; i < moves; i++) {
                    s.send("citus.src", Messages.text("m" + i));
                }
                s.commit();
            }
            for (int i = 0; i < moves; i++) {
                // every fifth move is first tried and rolled back: nothing of that try stays, and
                // the message it took is taken again. Each try in a thread of its own: the engine
                // places a thread's sends on a shard of its own, so the moves reach several shards
                for (boolean commit : i % 5 == 0 ? new boolean[] {false, true} : new boolean[] {true}) {
                    List<Throwable> failure = new ArrayList<>();
                    Thread t = new Thread(() -> {
                        try {
                            move(broker, commit);
                        } catch (Throwable e) {
                            failure.add(e);
                        }
                    });
                    t.start();
                    t.join();
                    assertThat(failure).isEmpty();
                }
            }
            Set<String> moved = new TreeSet<>();
            try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                Delivery d;
                while ((d = s.receive("citus.dst", 2_000, false)) != null) {
                    assertThat(moved.add(Messages.body(d.message()))).isTrue();
                }
                s.commit();
            }
            Set<String> expected = new TreeSet<>();
            for (int i = 0; i < moves; i++) {
                expected.add("m" + i);
            }
            assertThat(moved).isEqualTo(expected);
            assertThat(broker.admin().queues().backlog("citus.src")).isZero();
            try (Connection c = DriverManager.getConnection(url, USER, PASSWORD);
                    Statement st = c.createStatement()) {
                Set<String> rows = new TreeSet<>();
                try (ResultSet rs = st.executeQuery("select id from app_moves")) {
                    while (rs.next()) {
                        rows.add(rs.getString(1));
                    }
                }
                assertThat(rows)
                        .as("the application's rows: exactly those of the committed moves")
                        .isEqualTo(expected);
                int dst = destinationId(c, "citus.dst");
                List<Integer> dstShards = new ArrayList<>();
                try (ResultSet rs = st.executeQuery(
                        "select shard_no from shardq.shard where destination_id = " + dst + " and next_seq > 1")) {
                    while (rs.next()) {
                        dstShards.add(rs.getInt(1));
                    }
                }
                Set<Integer> srcWorker = workersOf(c, List.of(0));
                Set<Integer> dstWorkers = workersOf(c, dstShards);
                assertThat(dstWorkers)
                        .as(
                                "some moves crossed workers (source shard 0 on %s, sent to shards %s)",
                                srcWorker, dstShards)
                        .isNotEqualTo(srcWorker);
            }
        }
    }

    /**
     * The statements the JVM sends on the hot path (send: reserve and insert; receive: read-ahead,
     * a large body, priorities; commit: the log beyond the cursor, what a new lease reads) are each
     * planned by Citus as one task on one worker: no subplan through the coordinator, no
     * multi-shard fan-out. The lease and consumer-commit statements that run as functions on Citus
     * (citus.sql) are one router statement per shard by construction and compared with their
     * one-statement forms by CitusFormsTest.
     */
    @Test
    void hotPathStatements_areEachOneTaskOnOneWorker() throws Exception {
        try (Broker broker = Broker.start(config())) {
            broker.admin().queues().create("citus.plans", QueueOptions.DEFAULTS.withShards(4));
        }
        try (Connection c = DriverManager.getConnection(url, USER, PASSWORD);
                Statement s = c.createStatement()) {
            int d = destinationId(c, "citus.plans");
            long sub;
            try (ResultSet rs = s.executeQuery("select id from shardq.subscription where destination_id = " + d)) {
                rs.next();
                sub = rs.getLong(1);
            }
            int shard = 3;
            Map<io.shardq.broker.internal.Query, String[]> statements = new java.util.LinkedHashMap<>();
            statements.put(
                    io.shardq.broker.internal.Query.SHARD_RESERVE, new String[] {"10", "" + d, "" + shard, "10"});
            statements.put(
                    io.shardq.broker.internal.Query.MESSAGE_INSERT,
                    new String[] {"" + shard, "0", "1", "0", "0", "0", "4", "null", "'\\x00'", "'\\x00'", "null"});
            statements.put(
                    io.shardq.broker.internal.Query.MESSAGE_INSERT_ROWS,
                    new String[] {"" + shard, "0", "1", "0", "0", "0", "4", "null", "'\\x00'", "'\\x00'", "null"});
            statements.put(
                    io.shardq.broker.internal.Query.MESSAGE_SELECT_RANGE,
                    new String[] {"65536", "" + shard, "1", "100", "4194304"});
            statements.put(io.shardq.broker.internal.Query.MESSAGE_SELECT_BODY, new String[] {"" + shard, "1"});
            statements.put(
                    io.shardq.broker.internal.Query.MESSAGE_SELECT_PRIORITIES, new String[] {"" + shard, "1", "100"});
            statements.put(
                    io.shardq.broker.internal.Query.DEQUEUE_RANGE_INSERT,
                    new String[] {"'{5}'", "'{6}'", "" + sub, "" + shard, "1", "1"});
            statements.put(
                    io.shardq.broker.internal.Query.DEQUEUE_RANGE_SELECT, new String[] {"" + sub, "" + shard, "0"});
            statements.put(
                    io.shardq.broker.internal.Query.DELIVERY_ATTEMPT_SELECT, new String[] {"" + sub, "" + shard, "0"});
            List<String> notRouted = new ArrayList<>();
            for (Map.Entry<io.shardq.broker.internal.Query, String[]> e : statements.entrySet()) {
                String sql = e.getKey() == io.shardq.broker.internal.Query.MESSAGE_INSERT_ROWS
                        ? io.shardq.broker.internal.Queries.insertRows(d, shard, 0, 1)
                        : io.shardq.broker.internal.Queries.withLeaf(e.getKey(), d, shard, 0);
                s.execute("prepare hot as " + io.shardq.broker.testing.PgSql.numbered(sql));
                StringBuilder plan = new StringBuilder();
                try (ResultSet rs =
                        s.executeQuery("explain (costs off) execute hot(" + String.join(", ", e.getValue()) + ")")) {
                    while (rs.next()) {
                        plan.append(rs.getString(1)).append('\n');
                    }
                }
                s.execute("deallocate hot");
                String p = plan.toString();
                if (!p.contains("Task Count: 1\n")
                        || p.contains("Distributed Subplan")
                        || p.contains("pull to coordinator")
                        || p.contains("repartition")) {
                    notRouted.add(e.getKey() + ":\n" + p);
                }
            }
            assertThat(notRouted).as("statements not routed to one worker").isEmpty();
        }
    }

    /** Takes one message from citus.src, sends it to citus.dst and records it in app_moves, in one transaction. */
    private static void move(Broker broker, boolean commit) throws SQLException {
        try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            Delivery d = s.receive("citus.src", 30_000, false);
            assertThat(d).isNotNull();
            String body = Messages.body(d.message());
            s.send("citus.dst", Messages.text(body));
            try (PreparedStatement ps =
                    s.connection().prepareStatement("insert into app_moves (id, note) values (?, 'moved')")) {
                ps.setString(1, body);
                ps.executeUpdate();
            }
            if (commit) {
                s.commit();
            } else {
                s.rollback();
            }
        }
    }

    private static int destinationId(Connection c, String name) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("select id from shardq.destination where name = ?")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    /** The ports of the workers holding the given shard numbers' rows. */
    private static Set<Integer> workersOf(Connection c, List<Integer> shardNumbers) throws SQLException {
        Set<Integer> ports = new TreeSet<>();
        try (PreparedStatement ps = c.prepareStatement("select p.nodeport from pg_dist_shard_placement p"
                + " where p.shardid = get_shard_id_for_distribution_column('shardq.shard', ?)")) {
            for (int n : shardNumbers) {
                ps.setInt(1, n);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        ports.add(rs.getInt(1));
                    }
                }
            }
        }
        return ports;
    }
}
