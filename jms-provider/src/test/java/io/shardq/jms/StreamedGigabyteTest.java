package io.shardq.jms;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.testing.ChildJvm;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Issue 12: "1 GiB streamed through with -Xmx256m; storage reclaimed afterwards". A child JVM with
 * a 256 MiB heap streams a 1 GiB body into a queue and receives it back ({@link
 * StreamGigabyteMain}); it could not hold the body once, so finishing is the bounded-memory claim.
 * The bytes come from a seeded generator and the receiving side's SHA-256 is checked against
 * them. Then the message's slice is retired, and with it every chunk. {@code
 * -Dshardq.test.stream.xmx=64m} runs the child with another heap (the default is the 256m).
 */
@PgTest
@Tag("long")
class StreamedGigabyteTest {
    static final long GIB = 1L << 30;
    static final int SLICE = 16;
    /** A deadline for work over the whole gigabyte on disk (deleting it, vacuuming it), not a target. */
    static final Duration SLOW_DISK_DEADLINE = Duration.ofMinutes(10);

    @Test
    void aGigabyte_streamsThroughA256MegabyteHeap_andItsStorageIsReclaimed(TestDatabase db) throws Exception {
        try (Broker admin = Broker.start(db.brokerConfig().build())) {
            admin.admin()
                    .createQueue(
                            "stream.gib", QueueOptions.DEFAULTS.withShards(1).withSliceSize(SLICE));
        }
        String line;
        try (ChildJvm child = ChildJvm.start(
                List.of("-Xmx" + System.getProperty("shardq.test.stream.xmx", "256m")),
                StreamGigabyteMain.class,
                db.jdbcUrl(),
                db.user(),
                db.password() == null ? "" : db.password(),
                "stream.gib",
                Long.toString(GIB),
                "12",
                Integer.toString(SLICE - 1))) {
            line = child.awaitLine("DONE ", Duration.ofMinutes(15));
        }
        System.out.println("1 GiB streamed: " + line);
        assertThat(line).startsWith("DONE ");
        assertThat(field(line, "saved")).isEqualTo(Long.toString(GIB));
        assertThat(field(line, "sha256")).isEqualTo(HexFormat.of().formatHex(SeededStream.sha256(12, GIB)));
        assertThat(Long.parseLong(field(line, "heapMaxMb")))
                .as("the child's heap is smaller than the body")
                .isLessThan(GIB >> 20);
        long stored = chunkTableBytes(db);
        assertThat(stored).as("the chunks, with their TOAST table").isGreaterThanOrEqualTo(GIB);

        // the child's instance has stopped; this one leads, scans and retires the consumed slice
        try (Broker broker = Broker.start(db.brokerConfig().build())) {
            Awaitility.await()
                    .atMost(SLOW_DISK_DEADLINE)
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> StreamedBytesMessageTest.chunks(db) == 0);
            assertThat(StreamedBytesMessageTest.storage(db, "stream.gib")).isEqualTo(new long[] {0, 0});
        }
        // deleted rows: VACUUM (what autovacuum runs) frees them and gives back the emptied end of the
        // files, once no snapshot older than the delete is left; the TOAST index keeps its pages (about
        // 1% of the body), free for reuse. One VACUUM reads the whole gigabyte: on a slow CI disk that
        // took more than the minute this deadline once was, so it is the same generous one as above
        AtomicReference<String> lastLook = new AtomicReference<>("no VACUUM finished");
        try {
            Awaitility.await()
                    .atMost(SLOW_DISK_DEADLINE)
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> {
                        try (java.sql.Connection c = db.connect();
                                java.sql.Statement st = c.createStatement()) {
                            st.execute("vacuum shardq.large_body_chunk");
                        }
                        lastLook.set(vacuumHorizon(db));
                        return chunkTableBytes(db) < stored / 50;
                    });
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(
                    "VACUUM did not give the chunk table's space back; the last look: " + lastLook.get(), e);
        }
        System.out.println("1 GiB streamed: chunk table " + (stored >> 20) + " MB before retirement, "
                + (chunkTableBytes(db) >> 10) + " KB after it and VACUUM (" + lastLook.get() + ")");
    }

    /** shardq.large_body_chunk with its TOAST table and indexes, in bytes. */
    private static long chunkTableBytes(TestDatabase db) throws Exception {
        try (java.sql.Connection c = db.connect();
                java.sql.Statement st = c.createStatement();
                java.sql.ResultSet rs = st.executeQuery("select pg_total_relation_size('shardq.large_body_chunk')")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** What a failed reclamation needs explained: the relations' sizes and who could hold VACUUM back. */
    private static String vacuumHorizon(TestDatabase db) throws Exception {
        String query = "select format('heap %s, toast %s, toast index %s; dead rows %s; sessions with a snapshot: %s;"
                + " locks on the table: %s', pg_relation_size(t.oid), pg_relation_size(t.reltoastrelid),"
                + " pg_indexes_size(t.reltoastrelid), s.n_dead_tup,"
                + " (select coalesce(string_agg(a.pid || ' ' || a.state || ' ' || coalesce(a.backend_xmin::text, ''),"
                + " ', '), 'none') from pg_stat_activity a where a.backend_xmin is not null and a.pid <> pg_backend_pid()),"
                + " (select coalesce(string_agg(l.pid || ' ' || l.mode, ', '), 'none') from pg_locks l"
                + " where l.relation in (t.oid, t.reltoastrelid) and l.pid <> pg_backend_pid()))"
                + " from pg_class t left join pg_stat_user_tables s on s.relid = t.oid"
                + " where t.oid = 'shardq.large_body_chunk'::regclass";
        try (java.sql.Connection c = db.connect();
                java.sql.Statement st = c.createStatement();
                java.sql.ResultSet rs = st.executeQuery(query)) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static String field(String line, String name) {
        for (String part : line.split(" ")) {
            if (part.startsWith(name + "=")) {
                return part.substring(name.length() + 1);
            }
        }
        throw new AssertionError(name + " is missing from: " + line);
    }
}
