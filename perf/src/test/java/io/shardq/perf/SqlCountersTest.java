package io.shardq.perf;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/** What the server ran, counted on a real server, and the difference of two readings. */
@PgTest
class SqlCountersTest {

    @Test
    void transactions_areCounted_fromPgStatDatabase(TestDatabase db) throws Exception {
        SqlCounters counters = new SqlCounters(db.dataSource());
        SqlCounters.Snapshot before = counters.snapshot();
        try (Connection c = db.dataSource().getConnection();
                Statement s = c.createStatement()) {
            c.setAutoCommit(true);
            for (int i = 0; i < 20; i++) {
                s.execute("select 1");
            }
        }
        // backends report their counters at most once a second: wait for them, with a deadline
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        SqlCounters.Delta d = SqlCounters.between(before, counters.snapshot(), 5);
        while (d.transactions() < 20 && System.nanoTime() < deadline) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
            d = SqlCounters.between(before, counters.snapshot(), 5);
        }
        assertThat(d.transactions()).isGreaterThanOrEqualTo(20);
        if (!counters.statementsAvailable()) {
            assertThat(d.statements()).isEqualTo(-1);
            assertThat(d.statementsCounted()).isFalse();
            assertThat(d.top()).isEmpty();
        }
    }

    @Test
    void between_subtractsPerStatement_andOrdersByCalls() {
        var select = new SqlCounters.QueryCalls(1, "select", 10, 5.0, 0, 0);
        var delete = new SqlCounters.QueryCalls(2, "delete", 3, 3.0, 900, 2);
        var a = new SqlCounters.Snapshot(13, Map.of(1L, select, 2L, delete), 100, 0, 0, 0, 0, 4);
        var b = new SqlCounters.Snapshot(
                143,
                Map.of(
                        1L, new SqlCounters.QueryCalls(1, "select", 20, 9.0, 0, 0),
                        2L, new SqlCounters.QueryCalls(2, "delete", 103, 53.0, 100_900, 52),
                        3L, new SqlCounters.QueryCalls(3, "insert", 17, 1.7, 3_400, 0)),
                160,
                17,
                0,
                100,
                0,
                6);

        SqlCounters.Delta d = SqlCounters.between(a, b, 2);

        assertThat(d.statements()).isEqualTo(130);
        assertThat(d.transactions()).isEqualTo(60);
        assertThat(d.inserted()).isEqualTo(17);
        assertThat(d.deleted()).isEqualTo(100);
        assertThat(d.checkpoints()).isEqualTo(2);
        assertThat(d.top())
                .extracting(SqlCounters.QueryCalls::query)
                .containsExactly("delete", "insert"); // select (10 calls) is third: left out
        SqlCounters.QueryCalls del = d.top().get(0);
        assertThat(del.calls()).isEqualTo(100);
        assertThat(del.walBytes()).isEqualTo(100_000);
        assertThat(del.walFpi()).isEqualTo(50);
        assertThat(del.meanMillis()).isEqualTo(0.5);
        assertThat(SqlCounters.between(a, a, 5).top()).isEqualTo(List.of());
    }
}
