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
class SessionSettingDataSourceTest {

    @Test
    void everyBorrowedConnection_hasTheSetting_setOncePerPhysicalConnection(TestDatabase db) throws Exception {
        SessionSettingDataSource ds = new SessionSettingDataSource(db.dataSource(), "synchronous_commit", "off");
        for (int round = 0; round < 3; round++) {
            List<Connection> held = new ArrayList<>();
            try {
                for (int i = 0; i < 3; i++) {
                    Connection c = ds.getConnection();
                    held.add(c);
                    assertThat(setting(c)).isEqualTo("off");
                }
            } finally {
                for (Connection c : held) {
                    c.close();
                }
            }
        }
        assertThat(ds.configuredConnections()).isBetween(1, 4);
        Environment env = new ServerProbe(ds).environment("url", false);
        assertThat(env.synchronousCommit()).isEqualTo("off");
        assertThat(env.serverSynchronousCommit()).isEqualTo("on");
        assertThat(env.durable()).isFalse();
        assertThat(env.unsafeBanner()).startsWith("!!! UNSAFE: durability off");
    }

    @Test
    void constructor_refusesAnythingButAPlainNameAndValue(TestDatabase db) {
        assertThatThrownBy(() -> new SessionSettingDataSource(db.dataSource(), "synchronous_commit", "off; drop"))
                .hasMessageContaining("is invalid");
    }

    private static String setting(Connection c) throws Exception {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("show synchronous_commit")) {
            rs.next();
            return rs.getString(1);
        }
    }
}
