package io.shardq.broker.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.testing.MigrateMain;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import io.shardq.sql.Migrations;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

@PgTest
class MigrationsTest {

    @Test
    void migrate_isIdempotent(TestDatabase db) throws Exception {
        dropSchema(db);
        Migrations.Result first = Migrations.migrate(db.dataSource());
        String schemaBefore = schemaFingerprint(db);
        Migrations.Result second = Migrations.migrate(db.dataSource());

        assertThat(first.applied()).isPositive();
        assertThat(second.applied()).isZero();
        assertThat(second.schemaVersion()).isEqualTo(first.schemaVersion());
        assertThat(schemaFingerprint(db)).isEqualTo(schemaBefore).contains("shardq.destination");
    }

    @Test
    void migrate_succeedsInTwoJvmsAtOnce(TestDatabase db) throws Exception {
        String url = db.jdbcUrl();
        dropSchema(db);
        Process a = MigrateMain.spawn("--url", url);
        Process b = MigrateMain.spawn("--url", url);
        String outA = new String(a.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String outB = new String(b.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(a.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(b.waitFor(120, TimeUnit.SECONDS)).isTrue();

        assertThat(a.exitValue()).as(outA).isZero();
        assertThat(b.exitValue()).as(outB).isZero();
        // exactly one of them applied the migrations, the other found nothing to do
        assertThat(outA + outB).contains("applied=0");
        assertThat(Migrations.currentVersion(db.dataSource())).isPresent();
    }

    static void dropSchema(TestDatabase db) throws Exception {
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("drop schema if exists shardq cascade");
        }
    }

    static String schemaFingerprint(TestDatabase db) throws Exception {
        StringBuilder sb = new StringBuilder();
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("select table_schema || '.' || table_name || '.' || column_name"
                        + " from information_schema.columns where table_schema = 'shardq' order by 1")) {
            while (rs.next()) {
                sb.append(rs.getString(1)).append('\n');
            }
        }
        return sb.toString();
    }
}
