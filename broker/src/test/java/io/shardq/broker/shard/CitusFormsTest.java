package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.Query;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Citus forms of the lease statements (citus.sql, shardq.citus_* functions: one router
 * statement per shard number, docs/design/citus.md) do what the one-statement forms do: run on
 * one server from the same state, each pair returns the same rows or counts and skips the same
 * locked rows. Each comparison runs in a transaction that is rolled back, so every case starts
 * from the same state.
 */
@PgTest
class CitusFormsTest {
    static final String QUEUE = "citus.forms";
    static long sub;
    static long me;
    static long dead;
    static int destination;

    TestDatabase db;

    CitusFormsTest(TestDatabase db) {
        this.db = db;
    }

    /**
     * A queue of 4 shards and, beside the broker that made it (closed), two instance rows: {@code
     * me}, alive, and {@code dead}, which took its session lock and lost it and still holds the
     * leases of shards 2 and 3 and the enqueue ownership of shards 0 and 1.
     */
    @BeforeAll
    static void state(TestDatabase db) throws SQLException {
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("select exists (select 1 from pg_extension where extname = 'citus')")) {
            rs.next();
            org.junit.jupiter.api.Assumptions.assumeFalse(
                    rs.getBoolean(1),
                    "the test server is a Citus coordinator: the one-statement forms do not run there");
        }
        try (Broker broker = Broker.start(db.brokerConfig().build())) {
            broker.admin().queues().create(QUEUE, QueueOptions.DEFAULTS.withShards(4));
        }
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("select d.id, sub.id from shardq.destination d"
                    + " join shardq.subscription sub on sub.destination_id = d.id where d.name = '" + QUEUE + "'")) {
                rs.next();
                destination = rs.getInt(1);
                sub = rs.getLong(2);
            }
            me = newInstance(s, false);
            dead = newInstance(s, true);
            s.execute("update shardq.cursor set lease_instance = " + dead + ", lease_until = now() + interval '1 hour'"
                    + " where subscription_id = " + sub + " and shard_no in (2, 3)");
            s.execute("update shardq.shard set owner_instance = " + dead + " where destination_id = " + destination
                    + " and shard_no in (0, 1)");
        }
    }

    private static long newInstance(Statement s, boolean sessionLock) throws SQLException {
        try (ResultSet rs = s.executeQuery("insert into shardq.instance (name, session_lock) values ('forms', "
                + sessionLock + ") returning id")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void acquire_takesTheFreeLeases_andSkipsALockedRowWhenAsked() throws Exception {
        for (Query q : List.of(Query.CURSOR_LEASE_ACQUIRE, Query.CURSOR_LEASE_ACQUIRE_SKIP_LOCKED)) {
            assertThat(both(q, ps -> bindAcquire(ps))).as(q.name()).satisfies(r -> {
                assertThat(r.single()).isEqualTo(r.citus());
                assertThat(r.single()).extracting(row -> row.get(0)).containsExactly(0L, 1L); // 2 and 3 are held
            });
        }
        // a row another transaction holds: the skip-locked forms leave it, both alike
        try (Connection holder = db.connect()) {
            holder.setAutoCommit(false);
            try (Statement s = holder.createStatement()) {
                s.execute(
                        "select 1 from shardq.cursor where subscription_id = " + sub + " and shard_no = 1 for update");
            }
            Outcome r = both(Query.CURSOR_LEASE_ACQUIRE_SKIP_LOCKED, ps -> bindAcquire(ps));
            assertThat(r.single()).isEqualTo(r.citus());
            assertThat(r.single()).extracting(row -> row.get(0)).containsExactly(0L);
            holder.rollback();
        }
    }

    @Test
    void expireDead_endsTheLeasesOfAnInstanceWhoseSessionLockIsGone() throws Exception {
        Outcome r = both(Query.CURSOR_LEASE_EXPIRE_DEAD, ps -> {
            ps.setLong(1, me);
            ps.setDouble(2, 3600);
        });
        assertThat(r.single()).isEqualTo(r.citus());
        assertThat(r.single()).containsExactlyInAnyOrder(List.of(dead, sub, 2L), List.of(dead, sub, 3L));
    }

    @Test
    void renew_extendsTheLeasesBelowTheBound() throws Exception {
        Outcome r = both(Query.CURSOR_LEASE_RENEW, ps -> {
            ps.setDouble(1, 7200);
            ps.setLong(2, dead);
            ps.setDouble(3, 7200); // every lease has less than two hours left
        });
        assertThat(r.single()).isEqualTo(r.citus());
        assertThat(r.single()).containsExactlyInAnyOrder(List.of(sub, 2L), List.of(sub, 3L));
        Outcome none = both(Query.CURSOR_LEASE_RENEW, ps -> {
            ps.setDouble(1, 7200);
            ps.setLong(2, dead);
            ps.setDouble(3, 60); // none has less than a minute left
        });
        assertThat(none.single()).isEmpty();
        assertThat(none.citus()).isEmpty();
    }

    @Test
    void releases_andTheFence_countTheSameRows() throws Exception {
        Outcome some = both(Query.CURSOR_LEASE_RELEASE, ps -> {
            ps.setLong(1, sub);
            ps.setArray(2, ps.getConnection().createArrayOf("integer", new Integer[] {1, 3}));
            ps.setLong(3, dead);
        });
        assertThat(some.single()).containsExactly(List.of(1L)); // shard 1 was not held by it
        assertThat(some.citus()).isEqualTo(some.single());
        for (Query q : List.of(Query.CURSOR_LEASE_RELEASE_ALL, Query.CURSOR_LEASE_FENCE_ALL)) {
            Outcome all = both(q, ps -> ps.setLong(1, dead));
            assertThat(all.single()).as(q.name()).containsExactly(List.of(2L));
            assertThat(all.citus()).as(q.name()).isEqualTo(all.single());
        }
        Outcome owners = both(Query.SHARD_RELEASE_OWNER, ps -> ps.setLong(1, dead));
        assertThat(owners.single()).containsExactly(List.of(2L));
        assertThat(owners.citus()).isEqualTo(owners.single());
    }

    @Test
    void commitMove_movesTheCursor_logsAhead_andClears_orChangesNothingWhenItsGuardFails() throws Exception {
        long leaseSeq;
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(
                        "select lease_seq from shardq.cursor where subscription_id = " + sub + " and shard_no = 2")) {
            rs.next();
            leaseSeq = rs.getLong(1);
        }
        // consumed beyond the cursor before: a logged run and a failed delivery at or below 3
        String before = "insert into shardq.dequeue_range values (" + sub + ", 2, 1, 1);"
                + " insert into shardq.delivery_attempt values (" + sub + ", 2, 2, 1)";
        for (long guard : new long[] {leaseSeq, leaseSeq + 1}) {
            Outcome r = both(Query.CURSOR_COMMIT_MOVE, before, ps -> {
                ps.setLong(1, 3);
                ps.setLong(2, sub);
                ps.setInt(3, 2);
                ps.setLong(4, 0);
                ps.setLong(5, dead);
                ps.setLong(6, guard);
                ps.setArray(7, ps.getConnection().createArrayOf("bigint", new Long[] {5L, 9L}));
                ps.setArray(8, ps.getConnection().createArrayOf("bigint", new Long[] {6L, 9L}));
                ps.setBoolean(9, true);
                ps.setBoolean(10, true);
            });
            assertThat(r.citus()).as("lease_seq %d", guard).isEqualTo(r.single());
            assertThat(r.single())
                    .as("lease_seq %d", guard)
                    .containsExactly(guard == leaseSeq ? List.of(1L, 2L, 1L, 1L) : List.of(0L, 0L, 0L, 0L));
        }
    }

    private void bindAcquire(PreparedStatement ps) throws SQLException {
        ps.setLong(1, sub);
        ps.setArray(2, ps.getConnection().createArrayOf("integer", new Integer[] {0, 1, 2, 3}));
        ps.setLong(3, me);
        ps.setLong(4, me);
        ps.setDouble(5, 30);
        ps.setLong(6, me);
    }

    interface Binder {
        void bind(PreparedStatement ps) throws SQLException;
    }

    /** The rows (or, for an UPDATE, the count as one row) of each form, from the same state. */
    record Outcome(List<List<Long>> single, List<List<Long>> citus) {}

    private Outcome both(Query q, Binder binder) throws SQLException {
        return both(q, null, binder);
    }

    /** As above, {@code before} (SQL of the test's own) run first in each form's transaction. */
    private Outcome both(Query q, String before, Binder binder) throws SQLException {
        return new Outcome(run(Queries.get(q, false), before, binder), run(Queries.get(q, true), before, binder));
    }

    private List<List<Long>> run(String sql, String before, Binder binder) throws SQLException {
        try (Connection c = db.connect()) {
            c.setAutoCommit(false);
            if (before != null) {
                try (Statement s = c.createStatement()) {
                    s.execute(before);
                }
            }
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                binder.bind(ps);
                List<List<Long>> rows = new ArrayList<>();
                if (ps.execute()) {
                    try (ResultSet rs = ps.getResultSet()) {
                        int n = rs.getMetaData().getColumnCount();
                        while (rs.next()) {
                            List<Long> row = new ArrayList<>();
                            for (int i = 1; i <= n; i++) {
                                row.add(rs.getLong(i));
                            }
                            rows.add(row);
                        }
                    }
                } else {
                    rows.add(List.of((long) ps.getUpdateCount()));
                }
                rows.sort(java.util.Comparator.comparing(Object::toString));
                return rows;
            } finally {
                c.rollback();
            }
        }
    }
}
