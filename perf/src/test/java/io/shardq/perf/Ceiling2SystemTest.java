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
class Ceiling2SystemTest {

    @Test
    void eachBatch_isCommittedOnTheProducersOwnConnection_andNothingLeaves(TestDatabase db) throws Exception {
        Ceiling2System system = new Ceiling2System();
        system.setUp(db.dataSource(), new Settings(2, 100, 13, 8, true, false));
        try (QueueSystem.Producer first = system.producer();
                QueueSystem.Producer second = system.producer()) {
            byte[] template = Payloads.filler(100, 7);
            long seq = 0;
            for (int b = 0; b < 7; b++) {
                List<byte[]> batch = new ArrayList<>();
                for (int i = 0; i < 13; i++) {
                    batch.add(Payloads.stamped(template, 1_000 + seq, seq++));
                }
                (b % 2 == 0 ? first : second).sendBatch(batch);
                // committed: another connection sees it at once
                assertThat(count(db)).isEqualTo(13L * (b + 1));
            }
            assertThat(system.consumes()).isFalse();
            assertThat(system.backlog()).isEqualTo(91);
            assertThatThrownBy(() -> first.sendBatch(List.of())).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(system::consumer).isInstanceOf(UnsupportedOperationException.class);
        } finally {
            system.tearDown();
        }
        assertThat(Tables.exists(db, "shardq_perf.ceiling2")).isFalse();
    }

    @Test
    void setUp_makesAnUnloggedTable_whenNonPersistent(TestDatabase db) throws Exception {
        Ceiling2System system = new Ceiling2System();
        system.setUp(db.dataSource(), new Settings(1, 16, 1, 1, false, false));
        try {
            assertThat(Tables.persistence(db, "shardq_perf.ceiling2")).isEqualTo("u");
        } finally {
            system.tearDown();
        }
    }

    private static long count(TestDatabase db) throws Exception {
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("select count(*) from shardq_perf.ceiling2")) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
