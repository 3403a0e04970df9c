package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.testing.ConsumeAndReportMain;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The demo's shape with real JVMs: a queue of 4 shards with a backlog on every shard, two
 * consumer processes with one session each. Leases are shared between them while both work; when
 * one is killed (SIGKILL) every shard with a backlog gets a live holder well before the lease TTL
 * (its session lock went with its connections); when one is stopped (SIGSTOP) they move after the
 * TTL. Every message is consumed exactly once and no shard stays without a holder while messages
 * wait. Deadlines are generous (a loaded machine); the measured times are printed.
 */
@PgTest
@Tag("fault")
class FleetLeaseTest {
    static final int MESSAGES = 8000;
    static final int PRODUCERS = 4;

    @Test
    void aKilledConsumerInstancesShards_getALiveHolder_longBeforeTheLeaseTtl(TestDatabase db) throws Exception {
        int ttl = 30_000; // far beyond the deadline below: only the session lock can move them in time
        try (Broker producer = Broker.start(config(db, ttl))) {
            producer.admin().queues().create("kill.q", QueueOptions.DEFAULTS.withShards(4));
            Child a = Child.start(db, "kill.q", ttl);
            Child b = Child.start(db, "kill.q", ttl);
            try {
                // both consume before the messages arrive (a JVM starting on a loaded machine would
                // otherwise find the backlog gone): they share the shards by count first
                Awaitility.await()
                        .atMost(Duration.ofSeconds(60))
                        .until(() -> liveLeasesOf(db, a.instanceId()) >= 1 && liveLeasesOf(db, b.instanceId()) >= 1);
                fill(producer, "kill.q");
                awaitBothServe(db, a, b);
                long killedAt = System.nanoTime();
                a.process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
                Awaitility.await()
                        .atMost(Duration.ofSeconds(10))
                        .pollInterval(Duration.ofMillis(20))
                        .until(() -> unheldWithBacklog(db, "kill.q").isEmpty() && leasesOf(db, a.instanceId()) == 0);
                long moved = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
                System.out.println(
                        "FLEET kill -9: every shard with a backlog had a live holder after " + moved + " ms");
                long longestUnheld = drain(db, producer, "kill.q");
                System.out.println("FLEET kill -9: longest time a shard with a backlog had no holder while draining: "
                        + longestUnheld + " ms");
                assertThat(longestUnheld)
                        .as("a shard with a backlog stayed without a holder (ms)")
                        .isLessThan(10_000);
                // the killed one may have committed its last batch without printing it: at most one batch
                assertExactlyOnce(List.of(a, b), 5);
            } finally {
                a.process.destroyForcibly();
                b.process.destroyForcibly();
            }
        }
    }

    @Test
    void aStoppedConsumerInstancesShards_allMove_afterTheLeaseTtl(TestDatabase db) throws Exception {
        int ttl = 2000;
        try (Broker producer = Broker.start(config(db, ttl))) {
            producer.admin().queues().create("stop.q", QueueOptions.DEFAULTS.withShards(4));
            Child a = Child.start(db, "stop.q", ttl);
            Child b = Child.start(db, "stop.q", ttl);
            try {
                // both consume before the messages arrive (a JVM starting on a loaded machine would
                // otherwise find the backlog gone): they share the shards by count first
                Awaitility.await()
                        .atMost(Duration.ofSeconds(60))
                        .until(() -> liveLeasesOf(db, a.instanceId()) >= 1 && liveLeasesOf(db, b.instanceId()) >= 1);
                fill(producer, "stop.q");
                awaitBothServe(db, a, b);
                signal("-STOP", a.process.pid());
                long stoppedAt = System.nanoTime();
                Awaitility.await()
                        .atMost(Duration.ofSeconds(30))
                        .pollInterval(Duration.ofMillis(20))
                        .until(() ->
                                unheldWithBacklog(db, "stop.q").isEmpty() && liveLeasesOf(db, a.instanceId()) == 0);
                long moved = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stoppedAt);
                System.out.println("FLEET SIGSTOP: every shard with a backlog had a live holder after " + moved
                        + " ms (lease TTL " + ttl + " ms)");
                drain(db, producer, "stop.q");
                java.sql.Timestamp resumed = dbNow(db);
                signal("-CONT", a.process.pid());
                // it resumes; its commits of shards that moved fail their guard. Once its heartbeat ran
                // it knows the leases are gone; what it printed committed by then counts
                Awaitility.await()
                        .atMost(Duration.ofSeconds(30))
                        .pollInterval(Duration.ofMillis(50))
                        .until(() -> heartbeatOf(db, a.instanceId()).after(resumed));
                a.process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
                assertExactlyOnce(List.of(a, b), 0);
            } finally {
                signal("-CONT", a.process.pid());
                a.process.destroyForcibly();
                b.process.destroyForcibly();
            }
        }
    }

    private static io.shardq.broker.BrokerConfig config(TestDatabase db, int ttl) {
        return db.brokerConfig()
                .set(BrokerProperty.HEARTBEAT_MS, 200)
                .set(BrokerProperty.LEASE_TTL_MS, ttl)
                .build();
    }

    /** A backlog on every shard: one producing thread per shard (a thread's sessions share a shard). */
    private static void fill(Broker broker, String queue) throws Exception {
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < PRODUCERS; t++) {
            int thread = t;
            threads.add(new Thread(() -> {
                try (BrokerSession p = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                    for (int i = 0; i < MESSAGES / PRODUCERS; i++) {
                        p.send(queue, Messages.text("m" + thread + "-" + i));
                        if (i % 100 == 99) {
                            p.commit();
                        }
                    }
                    p.commit();
                }
            }));
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join();
        }
        assertThat(broker.admin().queues().shards(queue).stream()
                        .filter(s -> s.nextSeq() > 1)
                        .count())
                .as("shards written")
                .isEqualTo(4);
    }

    /** Both consumers committed something and each holds a lease: they share the shards. */
    private static void awaitBothServe(TestDatabase db, Child a, Child b) throws Exception {
        try {
            awaitBothServe0(db, a, b);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            try (Connection c = db.connect();
                    ResultSet rs = c.createStatement()
                            .executeQuery(
                                    "SELECT 'cursor', shard_no, position, lease_instance, lease_until > now() FROM shardq.cursor"
                                            + " UNION ALL SELECT 'instance '||hungry_for::text, id::int, 0, 0, session_lock FROM shardq.instance")) {
                while (rs.next()) {
                    System.out.println("DUMP " + rs.getString(1) + " " + rs.getInt(2) + " " + rs.getLong(3) + " "
                            + rs.getLong(4) + " " + rs.getBoolean(5));
                }
            }
            System.out.println("DUMP a=" + a.instanceId() + " " + a.count("COMMITTED") + " b=" + b.instanceId() + " "
                    + b.count("COMMITTED"));
            throw e;
        }
    }

    private static void awaitBothServe0(TestDatabase db, Child a, Child b) {
        Awaitility.await()
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> a.count("COMMITTED") > 2
                        && b.count("COMMITTED") > 2
                        && liveLeasesOf(db, a.instanceId()) >= 1
                        && liveLeasesOf(db, b.instanceId()) >= 1);
    }

    /** Consumes until the backlog is gone; returns the longest time a shard with a backlog had no live holder. */
    private static long drain(TestDatabase db, Broker producer, String queue) throws Exception {
        Map<Integer, Long> unheldSince = new HashMap<>();
        long longest = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        while (producer.admin().queues().backlog(queue) > 0) {
            assertThat(System.nanoTime() - deadline).as("drained in time").isNegative();
            long now = System.nanoTime();
            List<Integer> unheld = unheldWithBacklog(db, queue);
            unheldSince.keySet().retainAll(unheld);
            for (int shard : unheld) {
                long since = unheldSince.computeIfAbsent(shard, k -> now);
                longest = Math.max(longest, TimeUnit.NANOSECONDS.toMillis(now - since));
            }
            Thread.sleep(50);
        }
        return longest;
    }

    private static void assertExactlyOnce(List<Child> children, int mayMiss) {
        Map<String, Integer> all = new HashMap<>();
        for (Child c : children) {
            synchronized (c.lines) {
                for (String l : c.lines) {
                    if (l.startsWith("COMMITTED ")) {
                        for (String id : l.substring("COMMITTED ".length()).split(",")) {
                            all.merge(id, 1, Integer::sum);
                        }
                    }
                }
            }
        }
        assertThat(all.values()).allMatch(n -> n == 1, "consumed at most once");
        assertThat(all.size()).as("consumed").isBetween(MESSAGES - mayMiss, MESSAGES);
    }

    /** Shards of the queue with a backlog and no live lease holder (expired, free, or a dead holder's). */
    static List<Integer> unheldWithBacklog(TestDatabase db, String queue) throws Exception {
        try (Connection c = db.connect();
                PreparedStatement ps = c.prepareStatement("SELECT c.shard_no FROM shardq.cursor c"
                        + " JOIN shardq.shard s ON s.destination_id = c.destination_id AND s.shard_no = c.shard_no"
                        + " JOIN shardq.destination d ON d.id = c.destination_id"
                        + " WHERE d.name = ? AND s.next_seq - 1 > c.position"
                        + " AND NOT (c.lease_until > now() AND c.lease_instance IN (SELECT shardq.live_instances(3600)))"
                        + " ORDER BY 1")) {
            ps.setString(1, queue);
            List<Integer> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getInt(1));
                }
            }
            return out;
        }
    }

    static int liveLeasesOf(TestDatabase db, long instance) throws Exception {
        return count(
                db, "SELECT count(*) FROM shardq.cursor WHERE lease_instance = ? AND lease_until > now()", instance);
    }

    static int leasesOf(TestDatabase db, long instance) throws Exception {
        return liveLeasesOf(db, instance);
    }

    private static int count(TestDatabase db, String sql, long instance) throws Exception {
        try (Connection c = db.connect();
                PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setLong(1, instance);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    private static java.sql.Timestamp dbNow(TestDatabase db) throws Exception {
        try (Connection c = db.connect();
                ResultSet rs = c.createStatement().executeQuery("SELECT now()")) {
            rs.next();
            return rs.getTimestamp(1);
        }
    }

    private static java.sql.Timestamp heartbeatOf(TestDatabase db, long instance) throws Exception {
        try (Connection c = db.connect();
                PreparedStatement ps = c.prepareStatement("SELECT heartbeat_at FROM shardq.instance WHERE id = ?")) {
            ps.setLong(1, instance);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getTimestamp(1);
            }
        }
    }

    private static void signal(String sig, long pid) throws Exception {
        new ProcessBuilder("kill", sig, Long.toString(pid)).start().waitFor();
    }

    /** A ConsumeAndReportMain JVM and what it printed. */
    static final class Child {
        final Process process;
        final List<String> lines = Collections.synchronizedList(new ArrayList<>());
        private volatile long instanceId = -1;

        private Child(Process process) {
            this.process = process;
        }

        static Child start(TestDatabase db, String queue, int ttl) throws Exception {
            Process p = new ProcessBuilder(
                            java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java")
                                    .toString(),
                            "-cp",
                            System.getProperty("java.class.path"),
                            ConsumeAndReportMain.class.getName(),
                            db.jdbcUrl(),
                            queue,
                            Integer.toString(ttl))
                    .redirectErrorStream(true)
                    .start();
            Child child = new Child(p);
            Thread reader = new Thread(() -> {
                try (BufferedReader in =
                        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                    String l;
                    while ((l = in.readLine()) != null) {
                        if (l.startsWith("INSTANCE ")) {
                            child.instanceId = Long.parseLong(
                                    l.substring("INSTANCE ".length()).trim());
                        }
                        child.lines.add(l);
                    }
                } catch (java.io.IOException e) {
                    // the process ended
                }
            });
            reader.setDaemon(true);
            reader.start();
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> child.instanceId > 0);
            return child;
        }

        long instanceId() {
            return instanceId;
        }

        long count(String prefix) {
            synchronized (lines) {
                return lines.stream().filter(l -> l.startsWith(prefix)).count();
            }
        }
    }
}
