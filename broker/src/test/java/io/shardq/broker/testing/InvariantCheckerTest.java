package io.shardq.broker.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.shard.BrokerSession;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Each invariant of {@link InvariantChecker} can fail: a test corrupts a quiet database inside
 * its own transaction, checks it there and rolls the corruption back, so the check PgExtension
 * runs after this class finds the database clean.
 */
@PgTest
class InvariantCheckerTest {
    static final String QUEUE = "inv.q";
    static final int SENT = 100;
    static final int CONSUMED = 10;

    static int destination;
    static int shard; // the shard the one producer session was pinned to
    static long subscription;

    TestDatabase db;
    Connection c;

    /**
     * A queue of 2 shards and slices of 16, one shard holding 100 messages of which 10 were
     * consumed (so no slice has been passed yet and the state does not depend on when the
     * retirer ran), and no instance alive.
     */
    @BeforeAll
    static void quietDatabase(TestDatabase db) throws SQLException {
        try (Broker broker = Broker.start(db.brokerConfig().build())) {
            broker.admin()
                    .queues()
                    .create(QUEUE, QueueOptions.DEFAULTS.withShards(2).withSliceSize(16));
            try (BrokerSession producer = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                for (int i = 0; i < SENT; i++) {
                    producer.send(QUEUE, Messages.text("m" + i));
                }
                producer.commit();
            }
            try (BrokerSession consumer = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                for (int i = 0; i < CONSUMED; i++) {
                    assertThat(consumer.receive(QUEUE, 10_000, false)).isNotNull();
                }
                consumer.commit();
            }
        }
        try (Connection c = db.connect();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT c.destination_id, c.shard_no, c.subscription_id, c.position"
                        + " FROM shardq.cursor c JOIN shardq.shard s USING (destination_id, shard_no)"
                        + " WHERE s.next_seq > 1")) {
            assertThat(rs.next()).as("the shard the producer wrote").isTrue();
            destination = rs.getInt(1);
            shard = rs.getInt(2);
            subscription = rs.getLong(3);
            assertThat(rs.getLong(4)).isEqualTo(CONSUMED);
            assertThat(rs.next()).as("one producer session writes one shard").isFalse();
        }
    }

    @BeforeEach
    void begin(TestDatabase db) throws SQLException {
        this.db = db;
        c = db.connect();
        c.setAutoCommit(false);
    }

    @AfterEach
    void rollBack() throws SQLException {
        c.rollback();
        c.close();
    }

    private void exec(String sql) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    @Test
    void cleanDatabase_holdsEveryInvariant() throws SQLException {
        InvariantChecker.Report report = InvariantChecker.check(db);

        assertThat(report.violations()).isEmpty();
        assertThat(report.notes()).isEmpty();
        assertThat(report.checked())
                .containsExactly(
                        "cursor_beyond_head",
                        "lease_held_by_dead_instance",
                        "shard_owned_by_dead_instance",
                        "dequeue_range_at_or_below_cursor",
                        "needed_slice_retired",
                        "slices_overlap",
                        "passed_slice_retained",
                        "draining_shard_receiving_enqueues",
                        "shards_match_count");
        assertThat(report.skipped()).isEmpty();
        assertThat(InvariantChecker.invariants()).hasSize(9);
    }

    @Test
    void cursorBeyondHead_isReported_withDestinationShardAndValues() throws SQLException {
        exec("UPDATE shardq.cursor SET position = " + (SENT + 5) + " WHERE subscription_id = " + subscription
                + " AND shard_no = " + shard);

        InvariantChecker.Report report = InvariantChecker.check(c);

        InvariantChecker.Violation v = report.violation("cursor_beyond_head");
        assertThat(v).isNotNull();
        assertThat(v.rows())
                .containsExactly(Map.of(
                        "destination",
                        QUEUE,
                        "shard",
                        shard,
                        "subscription",
                        "(queue)",
                        "position",
                        (long) SENT + 5,
                        "head",
                        (long) SENT));
        assertThat(report.toString()).contains("cursor_beyond_head", "inv.q", "position=105", "head=100");
    }

    @Test
    void leaseOfAStoppedInstance_isReported_butNotAnExpiredOneNorALiveInstancesOne() throws SQLException {
        long stopped = newInstance("stopped_at = now()");
        long alive = newInstance("stopped_at = NULL");
        exec("UPDATE shardq.cursor SET lease_instance = " + stopped + ", lease_until = now() + interval '1 hour'"
                + " WHERE subscription_id = " + subscription + " AND shard_no = " + shard);
        exec("UPDATE shardq.cursor SET lease_instance = " + alive + ", lease_until = now() + interval '1 hour'"
                + " WHERE subscription_id = " + subscription + " AND shard_no <> " + shard);

        InvariantChecker.Violation v = InvariantChecker.check(c).violation("lease_held_by_dead_instance");

        assertThat(v).isNotNull();
        assertThat(v.rowCount()).isEqualTo(1);
        assertThat(v.rows().get(0))
                .containsEntry("destination", QUEUE)
                .containsEntry("shard", shard)
                .containsEntry("instance", stopped);
        assertThat((String) v.rows().get(0).get("holder_state")).startsWith("stopped at ");

        exec("UPDATE shardq.cursor SET lease_until = now() - interval '1 second' WHERE lease_instance = " + stopped);
        assertThat(InvariantChecker.check(c).violation("lease_held_by_dead_instance"))
                .as("an expired lease is free for anyone")
                .isNull();
    }

    @Test
    void leaseOfAnUnknownInstance_isReported() throws SQLException {
        exec("UPDATE shardq.cursor SET lease_instance = 987654, lease_until = now() + interval '1 hour'"
                + " WHERE subscription_id = " + subscription + " AND shard_no = " + shard);

        InvariantChecker.Violation v = InvariantChecker.check(c).violation("lease_held_by_dead_instance");

        assertThat(v).isNotNull();
        assertThat(v.rows().get(0)).containsEntry("instance", 987654L).containsEntry("holder_state", "no instance row");
    }

    @Test
    void shardOwnedByAStoppedInstance_isReported_butNotOneOwnedByALiveInstance() throws SQLException {
        long stopped = newInstance("stopped_at = now()");
        long alive = newInstance("stopped_at = NULL");
        exec("UPDATE shardq.shard SET owner_instance = " + stopped + " WHERE destination_id = " + destination
                + " AND shard_no = " + shard);
        exec("UPDATE shardq.shard SET owner_instance = " + alive + " WHERE destination_id = " + destination
                + " AND shard_no <> " + shard);

        InvariantChecker.Violation v = InvariantChecker.check(c).violation("shard_owned_by_dead_instance");

        assertThat(v).isNotNull();
        assertThat(v.rowCount()).isEqualTo(1);
        assertThat(v.rows().get(0))
                .containsEntry("destination", QUEUE)
                .containsEntry("shard", shard)
                .containsEntry("instance", stopped);
    }

    @Test
    void overlappingSlices_areReported() throws SQLException {
        // slot 999 claims 20..40, which the slices from 17 and from 33 already hold
        exec("INSERT INTO shardq.slice (destination_id, shard_no, slot, first_seq, last_seq) VALUES (" + destination
                + ", " + shard + ", 999, 20, 40)");

        InvariantChecker.Violation v = InvariantChecker.check(c).violation("slices_overlap");

        assertThat(v).isNotNull();
        assertThat(v.rowCount()).isEqualTo(2);
        assertThat(v.rows()).allSatisfy(row -> assertThat(row).containsEntry("other_slot", 999));
    }

    @Test
    void dequeueRunAtOrBelowTheCursor_isReported_butNotOneBeyondIt() throws SQLException {
        exec("INSERT INTO shardq.dequeue_range (subscription_id, shard_no, first_seq, last_seq) VALUES ("
                + subscription + ", " + shard + ", 3, 5), (" + subscription + ", " + shard + ", 20, 22), ("
                + subscription + ", " + shard + ", " + CONSUMED + ", " + (CONSUMED + 2) + ")");

        InvariantChecker.Violation v = InvariantChecker.check(c).violation("dequeue_range_at_or_below_cursor");

        assertThat(v).isNotNull();
        assertThat(v.rows())
                .as("only the run wholly at or below the cursor (10): not 20..22, not 10..12 which it is inside of")
                .containsExactly(Map.of(
                        "destination",
                        QUEUE,
                        "shard",
                        shard,
                        "subscription",
                        "(queue)",
                        "first_seq",
                        3L,
                        "last_seq",
                        5L,
                        "position",
                        (long) CONSUMED));
    }

    @Test
    void aFreedSliceTheCursorStillNeeds_isReported() throws SQLException {
        // seqs 17..32: beyond the cursor (10), so still needed
        exec("UPDATE shardq.slice SET first_seq = NULL, last_seq = NULL WHERE destination_id = " + destination
                + " AND shard_no = " + shard + " AND first_seq = 17");

        InvariantChecker.Violation v = InvariantChecker.check(c).violation("needed_slice_retired");

        assertThat(v).isNotNull();
        assertThat(v.rows().get(0))
                .containsEntry("destination", QUEUE)
                .containsEntry("shard", shard)
                .containsEntry("subscription", "(queue)")
                .containsEntry("lowest_cursor", (long) CONSUMED)
                .containsEntry("head", (long) SENT)
                .containsEntry("needed", (long) SENT - CONSUMED)
                .containsEntry("in_slices", (long) SENT - CONSUMED - 16);
    }

    @Test
    void aTruncatedSliceTheCursorStillNeeds_isReported_byItsMissingRows() throws SQLException {
        String leaf;
        try (Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT slot FROM shardq.slice WHERE destination_id = " + destination
                        + " AND shard_no = " + shard + " AND first_seq = 33")) {
            assertThat(rs.next()).isTrue();
            leaf = "shardq.\"m_" + destination + "_" + shard + "_" + rs.getInt(1) + "\"";
        }
        exec("TRUNCATE " + leaf); // rolled back with the rest

        InvariantChecker.Violation v = InvariantChecker.check(c).violation("needed_slice_retired");

        assertThat(v).isNotNull();
        assertThat(v.rows().get(0))
                .containsEntry("needed", (long) SENT - CONSUMED)
                .containsEntry("in_slices", (long) SENT - CONSUMED)
                .containsEntry("rows_stored", (long) SENT - CONSUMED - 16);
    }

    @Test
    void aPassedSliceStillAssigned_isNoted_notFailed_onlyWhenNoInstanceIsAlive() throws SQLException {
        // a slice of seqs -15..0, which every cursor of the shard (at 10 and at 0) has passed
        exec("INSERT INTO shardq.slice (destination_id, shard_no, slot, first_seq, last_seq) VALUES (" + destination
                + ", " + shard + ", 999, -15, 0)");

        InvariantChecker.Report report = InvariantChecker.check(c);
        assertThat(report.ok())
                .as("retirement is asynchronous: a note, not a failure")
                .isTrue();
        InvariantChecker.Violation v = report.note("passed_slice_retained");
        assertThat(v).isNotNull();
        assertThat(v.rows().get(0))
                .containsEntry("shard", shard)
                .containsEntry("slot", 999)
                .containsEntry("last_seq", 0L)
                .containsEntry("lowest_cursor", (long) CONSUMED);

        newInstance("stopped_at = NULL"); // alive: retirement may still be on its way
        report = InvariantChecker.check(c);
        assertThat(report.note("passed_slice_retained")).isNull();
        assertThat(report.skipped()).contains("passed_slice_retained (an instance is alive)");
    }

    @Test
    void drainingShard_ownedOrWrittenAfterItBeganToDrain_isReported() throws SQLException {
        long owner = newInstance("stopped_at = NULL");
        exec("UPDATE shardq.shard SET drain_head = next_seq - 1, owner_instance = " + owner + " WHERE destination_id = "
                + destination + " AND shard_no = " + shard);

        InvariantChecker.Report report = InvariantChecker.check(c);

        assertThat(report.violation("draining_shard_receiving_enqueues").rows())
                .containsExactly(Map.of(
                        "destination", QUEUE,
                        "shard", shard,
                        "owner_instance", owner,
                        "drain_head", (long) SENT,
                        "head", (long) SENT));
        // and a draining shard that the catalog does not say drains (no draining_from)
        assertThat(report.violation("shards_match_count")).isNotNull();

        // a write past the drain head, as if the CHECK that refuses it were gone (rolled back with the rest)
        exec("ALTER TABLE shardq.shard DROP CONSTRAINT shard_draining_frozen");
        exec("UPDATE shardq.shard SET owner_instance = NULL, drain_head = next_seq - 2 WHERE destination_id = "
                + destination + " AND shard_no = " + shard);
        report = InvariantChecker.check(c);
        assertThat(report.violation("draining_shard_receiving_enqueues").rows())
                .singleElement()
                .satisfies(r -> assertThat(r).containsEntry("drain_head", (long) SENT - 1));
    }

    @Test
    void shardRows_notMatchingTheCount_areReported() throws SQLException {
        exec("UPDATE shardq.destination SET shard_count = shard_count + 1 WHERE id = " + destination);

        InvariantChecker.Report report = InvariantChecker.check(c);

        assertThat(report.violation("shards_match_count").rows())
                .singleElement()
                .satisfies(r -> assertThat(r).containsEntry("destination", QUEUE));
    }

    /** An instance row (stopped or alive, as {@code stoppedAt} says), in the test's transaction. */
    private long newInstance(String stoppedAt) throws SQLException {
        try (Statement st = c.createStatement();
                ResultSet rs =
                        st.executeQuery("INSERT INTO shardq.instance (name) VALUES ('invariant-test') RETURNING id")) {
            rs.next();
            long id = rs.getLong(1);
            exec("UPDATE shardq.instance SET " + stoppedAt + " WHERE id = " + id);
            return id;
        }
    }
}
