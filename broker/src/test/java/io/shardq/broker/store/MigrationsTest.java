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

    @Test
    void v005_turnsTheOldPerMessageLog_intoRuns(TestDatabase db) throws Exception {
        db.assumeNotCitus("it builds an older single-server schema with destinations, which is never distributed");
        dropSchema(db);
        Migrations.migrate(db.dataSource(), "5");
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            // the schema as it was before V005, with a per-message log holding two runs of one
            // subscription and shard, and one message of another shard
            s.execute("drop trigger subscription_deleted on shardq.subscription");
            s.execute("drop function shardq.subscription_deleted()");
            s.execute("drop table shardq.dequeue_range");
            s.execute("create table shardq.dequeue_log (subscription_id bigint not null references"
                    + " shardq.subscription (id) on delete cascade, shard_no integer not null, seq bigint not null,"
                    + " primary key (subscription_id, shard_no, seq))");
            s.execute("delete from shardq.flyway_schema_history where version in ('5', '005')");
            s.execute("select shardq.create_queue('v5', shards => 2)");
            s.execute("insert into shardq.dequeue_log select sub.id, x.shard, x.seq from shardq.subscription sub,"
                    + " (values (0, 3), (0, 4), (0, 5), (0, 9), (1, 7)) as x (shard, seq)"
                    + " where sub.destination_id = shardq.destination_id('v5')");
        }
        assertThat(Migrations.migrate(db.dataSource(), "5").applied()).isEqualTo(1);
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("select shard_no, first_seq, last_seq from shardq.dequeue_range"
                        + " order by shard_no, first_seq")) {
            StringBuilder runs = new StringBuilder();
            while (rs.next()) {
                runs.append(rs.getInt(1))
                        .append(':')
                        .append(rs.getLong(2))
                        .append('-')
                        .append(rs.getLong(3))
                        .append(' ');
            }
            assertThat(runs.toString().trim()).isEqualTo("0:3-5 0:9-9 1:7-7");
            try (ResultSet gone = s.executeQuery("select to_regclass('shardq.dequeue_log') is null")) {
                gone.next();
                assertThat(gone.getBoolean(1)).as("the old log is dropped").isTrue();
            }
            // a dropped queue takes its runs with it
            s.execute("select shardq.drop_queue('v5', force => true)");
            try (ResultSet left = s.executeQuery("select count(*) from shardq.dequeue_range")) {
                left.next();
                assertThat(left.getLong(1)).isZero();
            }
        }
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
