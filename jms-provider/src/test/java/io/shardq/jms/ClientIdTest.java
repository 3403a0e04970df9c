package io.shardq.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import jakarta.jms.Connection;
import jakarta.jms.InvalidClientIDException;
import jakarta.jms.InvalidClientIDRuntimeException;
import jakarta.jms.JMSContext;
import java.sql.PreparedStatement;
import org.junit.jupiter.api.Test;

/** A client id is used by one connection at a time across every instance, and freed on close. */
@PgTest
class ClientIdTest {

    @Test
    void aClientIdInUse_isRefusedOnAnyInstance_andFreedOnClose(TestDatabase db) throws Exception {
        try (ShardQConnectionFactory one =
                        new ShardQConnectionFactory(db.brokerConfig().build());
                ShardQConnectionFactory two =
                        new ShardQConnectionFactory(db.brokerConfig().build())) {
            Connection a = one.createConnection();
            a.setClientID("billing");
            try (Connection sameInstance = one.createConnection();
                    Connection otherInstance = two.createConnection()) {
                assertThatThrownBy(() -> sameInstance.setClientID("billing"))
                        .isInstanceOf(InvalidClientIDException.class)
                        .hasMessageContaining("\"billing\" is in use");
                assertThatThrownBy(() -> otherInstance.setClientID("billing"))
                        .isInstanceOf(InvalidClientIDException.class);
                otherInstance.setClientID("shipping"); // a refused id leaves the connection usable
                assertThat(otherInstance.getClientID()).isEqualTo("shipping");
            }
            try (JMSContext ctx = two.createContext()) {
                assertThatThrownBy(() -> ctx.setClientID("billing"))
                        .isInstanceOf(InvalidClientIDRuntimeException.class);
            }
            a.close();
            try (Connection again = two.createConnection()) {
                again.setClientID("billing");
                assertThat(again.getClientID()).isEqualTo("billing");
            }
            try (Connection tooLong = two.createConnection()) {
                assertThatThrownBy(() -> tooLong.setClientID("x".repeat(300)))
                        .isInstanceOf(InvalidClientIDException.class)
                        .hasMessageContaining("256");
            }
        }
    }

    @Test
    void aClientIdHeldByADeadInstance_isTakenOver(TestDatabase db) throws Exception {
        try (ShardQConnectionFactory dying =
                        new ShardQConnectionFactory(db.brokerConfig().build());
                ShardQConnectionFactory alive =
                        new ShardQConnectionFactory(db.brokerConfig().build())) {
            Connection held = dying.createConnection();
            held.setClientID("reports");
            long dead = dying.broker().instanceId();
            dying.broker().close(); // stops heartbeats; its rows go
            try (var c = db.connect();
                    PreparedStatement ps =
                            c.prepareStatement("INSERT INTO shardq.client_id (client_id, instance_id, connection_id)"
                                    + " VALUES ('orphan', ?, gen_random_uuid())")) {
                ps.setLong(1, dead); // as if the instance had died without closing
                ps.executeUpdate();
            }
            try (Connection c = alive.createConnection()) {
                c.setClientID("orphan");
                assertThat(c.getClientID()).isEqualTo("orphan");
            }
            try (Connection c = alive.createConnection()) {
                c.setClientID("reports"); // released when the instance stopped
            }
        }
    }
}
