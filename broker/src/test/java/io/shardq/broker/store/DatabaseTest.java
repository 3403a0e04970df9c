package io.shardq.broker.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

@PgTest
class DatabaseTest {

    @Test
    void open_runsAgainstARealDurableServer(TestDatabase db) throws Exception {
        try (Database database = Database.open(db.brokerConfig().build(), "t");
                Connection c = database.dataSource().getConnection();
                Statement s = c.createStatement()) {
            ResultSet rs = s.executeQuery("select version(), current_setting('fsync'),"
                    + " current_setting('synchronous_commit'), current_database()");
            rs.next();
            assertThat(rs.getString(1)).startsWith("PostgreSQL ");
            assertThat(rs.getString(2)).isEqualTo("on");
            assertThat(rs.getString(3)).isEqualTo("on");
            assertThat(rs.getString(4)).isEqualTo(db.name());
        }
    }

    @Test
    void open_failsFastWithMaskedUrl_whenServerUnreachable() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        String url = "jdbc:postgresql://127.0.0.1:" + closedPort + "/nope?password=hunter2";
        BrokerConfig config = BrokerConfig.builder()
                .isolated()
                .set(BrokerProperty.JDBC_URL, url)
                .set(BrokerProperty.JDBC_PASSWORD, "s3cret")
                .set(BrokerProperty.CONNECT_TIMEOUT_MS, 2000)
                .build();
        assertThatThrownBy(() -> Database.open(config, "t"))
                .isInstanceOf(ShardQException.class)
                .satisfies(e -> assertThat(((ShardQException) e).kind()).isEqualTo(ErrorKind.CONNECTION))
                .hasMessageContaining("127.0.0.1:" + closedPort + "/nope?password=***")
                .hasMessageNotContaining("hunter2")
                .hasMessageNotContaining("s3cret");
        assertThat(config.toString()).doesNotContain("hunter2").doesNotContain("s3cret");
    }

    @Test
    void open_refusesANonPostgresUrl() {
        BrokerConfig config = BrokerConfig.builder()
                .isolated()
                .set(BrokerProperty.JDBC_URL, "jdbc:mysql://localhost/x")
                .build();
        assertThatThrownBy(() -> Database.open(config, "t"))
                .isInstanceOf(ShardQException.class)
                .hasMessageContaining("is not a PostgreSQL URL");
    }
}
