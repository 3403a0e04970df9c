package io.shardq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@PgTest
class CliTest {
    @TempDir
    Path tmp;

    record Run(int exit, String out, String err) {}

    static Run run(String... args) {
        CliRunner.Run r = CliRunner.runBare(args);
        return new Run(r.exit(), r.out(), r.err());
    }

    @Test
    void migrate_createsSchema_thenChangesNothing(TestDatabase db) throws Exception {
        Path pw = Files.writeString(tmp.resolve("pw"), db.password() + "\n");
        Run first = run("migrate", "--jdbc-url", db.jdbcUrl(), "--user", db.user(), "--password-file", pw.toString());
        Run second = run("migrate", "--jdbc-url", db.jdbcUrl(), "--user", db.user(), "--password-file", pw.toString());

        assertThat(first.exit()).as(first.err()).isZero();
        assertThat(first.out()).contains("schema shardq at version 019").contains("migration(s) applied");
        assertThat(second.exit()).isZero();
        assertThat(second.out()).contains("already up to date");
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("select count(*) from shardq.flyway_schema_history where success")) {
            rs.next();
            assertThat(rs.getInt(1)).isPositive();
        }
    }

    @Test
    void status_reportsServerAndDurability(TestDatabase db) {
        Run r = run("status", "--jdbc-url", db.jdbcUrl(), "--user", db.user());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out())
                .contains("PostgreSQL 1")
                .containsPattern("fsync\\s+on")
                .containsPattern("synchronous_commit\\s+on");
    }

    @Test
    void unreachableDatabase_givesOneLine_withMaskedPassword_andNonZeroExit() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        Run r = run("status", "--jdbc-url", "jdbc:postgresql://127.0.0.1:" + closedPort + "/x?password=topsecret");
        assertThat(r.exit()).isNotZero();
        assertThat(r.err().strip().lines()).hasSize(1);
        assertThat(r.err())
                .startsWith("shardq: cannot connect to PostgreSQL at jdbc:postgresql://127.0.0.1:" + closedPort)
                .contains("password=***")
                .doesNotContain("topsecret")
                .doesNotContain("\tat ");
    }

    @Test
    void version_andHelp_work() {
        assertThat(run("version").out()).contains("shardq ").contains("java 17");
        Run help = run("--help");
        assertThat(help.exit()).isZero();
        assertThat(help.out()).contains("migrate").contains("status");
    }
}
