package io.shardq.broker.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import io.shardq.sql.Migrations;
import java.nio.charset.StandardCharsets;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * V004 gives destinations created before it the trigger that refuses raw writes to their message
 * table (new ones get it from shardq.create_queue).
 */
@PgTest
class GrantsMigrationTest {

    @Test
    void v004_addsTheRawWriteGuard_toDestinationsThatExistedBeforeIt(TestDatabase db) throws Exception {
        db.assumeNotCitus("it builds an older single-server schema with destinations, which is never distributed");
        Migrations.migrate(db.dataSource());
        String v004;
        try (var in = Migrations.class
                .getClassLoader()
                .getResourceAsStream("io/shardq/sql/migration/V004__destination_grants.sql")) {
            v004 = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        try (var c = db.connect();
                Statement s = c.createStatement()) {
            int id;
            try (ResultSet rs = s.executeQuery("select shardq.create_queue('before.v004')")) {
                rs.next();
                id = rs.getInt(1);
            }
            String table = "shardq.m_" + id;
            // a destination as V003 left it: no guard
            s.execute("DROP TRIGGER refuse_raw_write ON " + table);
            s.execute("DELETE FROM " + table);
            s.execute(v004);
            assertThatThrownBy(() -> s.execute("DELETE FROM " + table)).hasMessageContaining("is refused");
            assertThatThrownBy(() -> s.execute("TRUNCATE " + table)).hasMessageContaining("is refused");
            try (ResultSet rs = s.executeQuery("select shardq.purge_queue('before.v004')")) {
                rs.next(); // ShardQ's own purge truncates the leaves, which the guard does not cover
                assertThat(rs.getLong(1)).isZero();
            }
        }
    }
}
