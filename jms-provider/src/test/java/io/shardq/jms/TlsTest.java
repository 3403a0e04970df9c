package io.shardq.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import jakarta.jms.Connection;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS to PostgreSQL as the README documents it: pgjdbc's SSL settings in the JDBC URL
 * ({@code sslmode=verify-full} with the server's CA), for the pool and for the password check of
 * {@code createConnection(user, password)}. Runs its own embedded PostgreSQL with a self-signed
 * certificate made by {@code openssl}; skipped, saying so, where openssl is absent.
 */
class TlsTest {
    @TempDir
    Path tmp;

    @Test
    void verifyFullTls_carriesTheFactorysWork(@TempDir Path data) throws Exception {
        Path crt = tmp.resolve("server.crt");
        Path key = tmp.resolve("server.key");
        Process openssl;
        try {
            openssl = new ProcessBuilder(
                            "openssl",
                            "req",
                            "-new",
                            "-x509",
                            "-days",
                            "2",
                            "-nodes",
                            "-subj",
                            "/CN=localhost",
                            "-addext",
                            "subjectAltName=DNS:localhost,IP:127.0.0.1",
                            "-keyout",
                            key.toString(),
                            "-out",
                            crt.toString())
                    .redirectErrorStream(true)
                    .start();
        } catch (java.io.IOException e) {
            assumeThat(false)
                    .as("openssl is not installed: TLS not tested (" + e.getMessage() + ")")
                    .isTrue();
            return;
        }
        openssl.getInputStream().readAllBytes();
        assertThat(openssl.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(openssl.exitValue()).isZero();
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));

        try (EmbeddedPostgres pg = EmbeddedPostgres.builder()
                .setDataDirectory(data)
                .setServerConfig("listen_addresses", "127.0.0.1")
                .setServerConfig("ssl", "on")
                .setServerConfig("ssl_cert_file", crt.toString())
                .setServerConfig("ssl_key_file", key.toString())
                .start()) {
            try (var c = pg.getPostgresDatabase().getConnection();
                    Statement s = c.createStatement()) {
                String hba;
                try (ResultSet rs = s.executeQuery("SHOW hba_file")) {
                    rs.next();
                    hba = rs.getString(1);
                }
                // only TLS connections over TCP from now on
                Files.writeString(Path.of(hba), "local all all trust\nhostssl all all 127.0.0.1/32 trust\n");
                s.execute("SELECT pg_reload_conf()");
            }
            String url =
                    "jdbc:postgresql://127.0.0.1:" + pg.getPort() + "/postgres?sslmode=verify-full&sslrootcert=" + crt;
            try (ShardQConnectionFactory f = new ShardQConnectionFactory(BrokerConfig.builder()
                            .isolated()
                            .set(BrokerProperty.JDBC_URL, url)
                            .set(BrokerProperty.JDBC_USER, "postgres")
                            .build());
                    Connection c = f.createConnection("postgres", "")) {
                Session s = c.createSession(true, Session.SESSION_TRANSACTED);
                var q = s.createQueue("tls.q");
                s.createProducer(q).send(s.createTextMessage("over tls"));
                boolean ssl;
                try (ResultSet rs = ((ShardQSession) s)
                        .getConnection()
                        .createStatement()
                        .executeQuery("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")) {
                    rs.next();
                    ssl = rs.getBoolean(1);
                }
                s.commit();
                assertThat(ssl).as("the session's connection uses TLS").isTrue();
                c.start();
                assertThat(((TextMessage) s.createConsumer(q).receive(5000)).getText())
                        .isEqualTo("over tls");
                s.commit();
            }
        }
    }
}
