package io.shardq.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

@PgTest
class WalDeltaTest {

    @Test
    void parseLsn_joinsTheTwoHexHalves() {
        assertThat(WalDelta.parseLsn("0/0")).isZero();
        assertThat(WalDelta.parseLsn("0/16B3748")).isEqualTo(0x16B3748L);
        assertThat(WalDelta.parseLsn("16/B374D848")).isEqualTo((0x16L << 32) | 0xB374D848L);
        assertThat(WalDelta.between("0/FFFFFFFF", "1/0").bytes()).isEqualTo(1);
    }

    @Test
    void parseLsn_rejectsWhatIsNotAnLsn() {
        assertThatThrownBy(() -> WalDelta.parseLsn("12345"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("\"12345\"")
                .hasMessageContaining("expected hex/hex");
        assertThatThrownBy(() -> WalDelta.parseLsn("0/xyz")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> WalDelta.parseLsn("0/")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void between_measuresAKnownInsert_moreWalThanPayloadPerRow(TestDatabase db) throws Exception {
        int rows = 200;
        int payload = 512;
        ServerProbe probe = new ServerProbe(db.dataSource());
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("create table wal_probe (id bigserial primary key, payload bytea not null)");
            String start = probe.currentWalLsn().orElseThrow();
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("insert into wal_probe (payload) values (?)")) {
                for (int i = 0; i < rows; i++) {
                    ps.setBytes(1, Payloads.filler(payload, i));
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            c.commit();
            String end = probe.currentWalLsn().orElseThrow();

            WalDelta delta = WalDelta.between(start, end);
            assertThat(delta.bytes()).isPositive();
            assertThat(delta.bytesPerMessage(rows)).isGreaterThan(payload).isLessThan(20.0 * payload);
            try (ResultSet rs = s.executeQuery("select pg_wal_lsn_diff('" + end + "', '" + start + "')")) {
                rs.next();
                assertThat(rs.getLong(1)).isEqualTo(delta.bytes());
            }
        }
    }
}
