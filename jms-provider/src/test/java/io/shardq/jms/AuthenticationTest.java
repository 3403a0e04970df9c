package io.shardq.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import jakarta.jms.Connection;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSSecurityException;
import jakarta.jms.JMSSecurityRuntimeException;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Statement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * JMS users are PostgreSQL roles and PostgreSQL checks their passwords (what a role may then do
 * is {@code DestinationGrantsTest}'s subject). Runs its own embedded
 * PostgreSQL whose {@code pg_hba.conf} asks for scram-sha-256 passwords over TCP (the shared test
 * server trusts every login, so it could not refuse a wrong password).
 */
class AuthenticationTest {
    static EmbeddedPostgres pg;
    static String url;

    @BeforeAll
    static void server() throws Exception {
        pg = EmbeddedPostgres.builder()
                .setServerConfig("listen_addresses", "127.0.0.1")
                .start();
        url = "jdbc:postgresql://127.0.0.1:" + pg.getPort() + "/postgres";
        try (var c = pg.getPostgresDatabase().getConnection();
                Statement s = c.createStatement()) {
            s.execute("SET password_encryption = 'scram-sha-256'");
            s.execute("CREATE ROLE alice LOGIN SUPERUSER PASSWORD 'secret'");
            s.execute("CREATE ROLE nobody LOGIN PASSWORD 'pw'"); // no grants at all
            String hbaFile;
            try (var rs = s.executeQuery("SHOW hba_file")) {
                rs.next();
                hbaFile = rs.getString(1);
            }
            Files.writeString(
                    Path.of(hbaFile),
                    "local all all trust\n"
                            + "host all postgres 127.0.0.1/32 trust\n"
                            + "host all all 127.0.0.1/32 scram-sha-256\n");
            s.execute("SELECT pg_reload_conf()");
        }
    }

    @AfterAll
    static void stop() throws Exception {
        pg.close();
    }

    static ShardQConnectionFactory factory(String user, String password) {
        return new ShardQConnectionFactory(BrokerConfig.builder()
                .isolated()
                .set(BrokerProperty.JDBC_URL, url)
                .set(BrokerProperty.JDBC_USER, user)
                .set(BrokerProperty.JDBC_PASSWORD, password)
                .build());
    }

    @Test
    void theRightPassword_connects_aWrongOne_isRefusedNamingTheUserNotThePassword() throws Exception {
        try (ShardQConnectionFactory f = factory("alice", "secret")) {
            try (Connection c = f.createConnection("alice", "secret")) {
                Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                var q = s.createQueue("auth.q");
                s.createProducer(q).send(s.createTextMessage("hello"));
                c.start();
                assertThat(((TextMessage) s.createConsumer(q).receive(5000)).getText())
                        .isEqualTo("hello");
            }
            assertThatThrownBy(() -> f.createConnection("alice", "wrong-password"))
                    .isInstanceOf(JMSSecurityException.class)
                    .hasMessageContaining("\"alice\"")
                    .hasMessageNotContaining("wrong-password");
            assertThatThrownBy(() -> f.createConnection("alice", null)).isInstanceOf(JMSSecurityException.class);
            assertThatThrownBy(() -> f.createConnection("bob", "secret"))
                    .isInstanceOf(JMSSecurityException.class)
                    .hasMessageContaining("\"bob\"");
            // another role with the right password connects, and acts as itself: no grant, no send
            try (Connection c = f.createConnection("nobody", "pw")) {
                Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                assertThatThrownBy(() -> s.createProducer(s.createQueue("auth.q")))
                        .isInstanceOf(JMSSecurityException.class)
                        .hasMessageContaining("\"nobody\" may not send to destination \"auth.q\"");
            }
            assertThatThrownBy(() -> f.createConnection("nobody", "not-pw"))
                    .isInstanceOf(JMSSecurityException.class)
                    .hasMessageContaining("\"nobody\"");
            assertThatThrownBy(() -> f.createContext("alice", "wrong-password"))
                    .isInstanceOf(JMSSecurityRuntimeException.class)
                    .hasMessageNotContaining("wrong-password");
            try (JMSContext ctx = f.createContext("alice", "secret")) {
                assertThat(ctx.createQueue("auth.q").getQueueName()).isEqualTo("auth.q");
            }
        }
    }

    @Test
    void aFactoryWithAWrongPassword_orARoleWithoutGrants_failsWithASecurityException() {
        try (ShardQConnectionFactory f = factory("alice", "not-her-password")) {
            assertThatThrownBy(f::createConnection)
                    .isInstanceOf(JMSSecurityException.class)
                    .hasMessageContaining("alice")
                    .hasMessageNotContaining("not-her-password");
        }
        try (ShardQConnectionFactory f = factory("nobody", "pw")) {
            assertThatThrownBy(f::createConnection)
                    .isInstanceOf(JMSSecurityException.class)
                    .hasMessageContaining("\"nobody\"")
                    .hasMessageContaining("shardq schema")
                    .hasMessageNotContaining("Flyway");
        }
    }
}
