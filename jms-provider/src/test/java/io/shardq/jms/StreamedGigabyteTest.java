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
                    .queues()
                    .create("stream.gib", QueueOptions.DEFAULTS.withShards(1).withSliceSize(SLICE));
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
        // 1% of the body), free for reuse. Twice in CI, on a loaded machine, plain VACUUMs emptied the
        // table but did not give the TOAST file back (no snapshot or lock left, heap truncated): its
        // truncation takes the TOAST table's lock only if it can at once, and an autovacuum worker on
        // the freshly deleted gigabyte holds a conflicting one. So autovacuum is off for this table
        // here, each VACUUM's VERBOSE report is kept, and after 3 minutes VACUUM FULL (which waits
        // for its lock) decides: the claim is that nothing keeps the storage, not which VACUUM frees it
        try (java.sql.Connection c = db.connect();
                java.sql.Statement st = c.createStatement()) {
            st.execute("alter table shardq.large_body_chunk set (autovacuum_enabled = false,"
                    + " toast.autovacuum_enabled = false)");
        }
        AtomicReference<String> lastLook = new AtomicReference<>("no VACUUM finished");
        AtomicReference<String> report = new AtomicReference<>("");
        String freedBy = "VACUUM";
        try {
            vacuumUntilSmall(
                    db, "vacuum (verbose) shardq.large_body_chunk", stored, Duration.ofMinutes(3), lastLook, report);
        } catch (ConditionTimeoutException plainVacuumDidNotTruncate) {
            System.out.println("1 GiB streamed: plain VACUUM did not give the space back within 3 minutes ("
                    + lastLook.get() + "; its report: " + report.get() + "); VACUUM FULL next");
            freedBy = "VACUUM FULL";
            try {
                vacuumUntilSmall(
                        db,
                        "vacuum (full, verbose) shardq.large_body_chunk",
                        stored,
                        SLOW_DISK_DEADLINE,
                        lastLook,
                        report);
            } catch (ConditionTimeoutException e) {
                throw new AssertionError(
                        "neither VACUUM nor VACUUM FULL gave the chunk table's space back; the last" + " look: "
                                + lastLook.get() + "; the last report: " + report.get(),
                        e);
            }
        }
        System.out.println("1 GiB streamed: chunk table " + (stored >> 20) + " MB before retirement, "
                + (chunkTableBytes(db) >> 10) + " KB after it and " + freedBy + " (" + lastLook.get() + ")");
    }

    /** Runs {@code vacuum} until the chunk table is under 2% of {@code stored}, keeping what it said. */
    private static void vacuumUntilSmall(
            TestDatabase db,
            String vacuum,
            long stored,
            Duration deadline,
            AtomicReference<String> lastLook,
            AtomicReference<String> report) {
        Awaitility.await().atMost(deadline).pollInterval(Duration.ofMillis(500)).until(() -> {
            try (java.sql.Connection c = db.connect();
                    java.sql.Statement st = c.createStatement()) {
                st.execute(vacuum);
                StringBuilder said = new StringBuilder();
                for (java.sql.SQLWarning w = st.getWarnings(); w != null; w = w.getNextWarning()) {
                    String m = w.getMessage();
                    if (m.contains("pg_toast") || m.contains("truncat") || m.contains("removable")) {
                        said.append(m.replaceAll("\\s+", " ")).append(" | ");
                    }
                }
                report.set(said.toString());
            }
            lastLook.set(vacuumHorizon(db));
            return chunkTableBytes(db) < stored / 50;
        });
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
        String query = "select format('heap %s, toast %s, toast index %s; dead rows %s, in the toast table %s;"
                + " sessions holding a snapshot or an xid: %s; autovacuum workers: %s; locks on the table: %s',"
                + " pg_relation_size(t.oid), pg_relation_size(t.reltoastrelid), pg_indexes_size(t.reltoastrelid),"
                + " s.n_dead_tup, ts.n_dead_tup,"
                + " (select coalesce(string_agg(a.pid || ' ' || coalesce(a.datname, '-') || ' ' || coalesce(a.state, '-')"
                + " || ' xmin ' || coalesce(a.backend_xmin::text, '-') || ' xid ' || coalesce(a.backend_xid::text, '-'),"
                + " ', '), 'none') from pg_stat_activity a where (a.backend_xmin is not null or a.backend_xid is not null)"
                + " and a.pid <> pg_backend_pid()),"
                + " (select coalesce(string_agg(a.pid || ' ' || coalesce(a.query, ''), ', '), 'none')"
                + " from pg_stat_activity a where a.backend_type = 'autovacuum worker'),"
                + " (select coalesce(string_agg(l.pid || ' ' || l.mode || case when l.granted then '' else ' (waiting)' end,"
                + " ', '), 'none') from pg_locks l"
                + " where l.relation in (t.oid, t.reltoastrelid) and l.pid <> pg_backend_pid()))"
                + " from pg_class t left join pg_stat_user_tables s on s.relid = t.oid"
                + " left join pg_stat_all_tables ts on ts.relid = t.reltoastrelid"
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
