package io.shardq.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

@PgTest
class CeilingSystemTest {

    @Test
    void sendBatch_insertsEveryPayload_andNothingLeaves(TestDatabase db) throws Exception {
        CeilingSystem system = new CeilingSystem();
        system.setUp(db.dataSource(), new Settings(1, 100, 13, 8, true, false));
        try {
            QueueSystem.Producer producer = system.producer();
            byte[] template = Payloads.filler(100, 7);
            long seq = 0;
            for (int b = 0; b < 7; b++) {
                List<byte[]> batch = new ArrayList<>();
                for (int i = 0; i < 13; i++) {
                    batch.add(Payloads.stamped(template, 1_000 + seq, seq++));
                }
                producer.sendBatch(batch);
            }
            assertThat(system.consumes()).isFalse();
            assertThat(system.backlog()).isEqualTo(91);
            try (Connection c = db.connect();
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("select count(distinct payload), min(length(payload)),"
                            + " max(length(payload)) from shardq_perf.ceiling")) {
                rs.next();
                assertThat(rs.getInt(1)).isEqualTo(91);
                assertThat(rs.getInt(2)).isEqualTo(100);
                assertThat(rs.getInt(3)).isEqualTo(100);
            }
            ServerProbe.TableStats stats = new ServerProbe(db.dataSource()).tableStats(system.tables());
            assertThat(stats.bytes()).isGreaterThan(91 * 100);
            assertThat(stats.deadTuples()).isZero();
            assertThatThrownBy(system::consumer).isInstanceOf(UnsupportedOperationException.class);
        } finally {
            system.tearDown();
        }
        assertThat(Tables.exists(db, "shardq_perf.ceiling")).isFalse();
    }

    @Test
    void setUp_makesAnUnloggedTable_whenNonPersistent(TestDatabase db) throws Exception {
        CeilingSystem system = new CeilingSystem();
        system.setUp(db.dataSource(), new Settings(1, 16, 1, 1, false, false));
        try {
            assertThat(Tables.persistence(db, "shardq_perf.ceiling")).isEqualTo("u");
        } finally {
            system.tearDown();
        }
    }

    @Test
    void insertSql_hasOneBindParameterPerPayload(TestDatabase db) {
        ReferenceTable t = new ReferenceTable(db.dataSource(), "ceiling");
        assertThat(t.insertSql(3)).isEqualTo("insert into shardq_perf.ceiling (payload) values (?),(?),(?)");
        assertThat(t.insertSql(1)).isEqualTo("insert into shardq_perf.ceiling (payload) values (?)");
        assertThatThrownBy(() -> new ReferenceTable(db.dataSource(), "a;b"))
                .hasMessageContaining("\"a;b\"")
                .hasMessageContaining("expected");
    }
}
