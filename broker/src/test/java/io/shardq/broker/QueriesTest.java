package io.shardq.broker;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.internal.Queries;
import io.shardq.broker.testing.PgSql;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Every named runtime query PREPAREs against the migrated schema: a typo fails the build. */
@PgTest
class QueriesTest {

    @Test
    void everyNamedQuery_prepares(TestDatabase db) throws Exception {
        try (Broker broker = Broker.start(db.brokerConfig().build())) {
            broker.admin().createQueue("q", QueueOptions.DEFAULTS.withShards(1));
            broker.admin().createCache("c", CacheOptions.DEFAULTS);
        }
        assertThat(Queries.all()).hasSizeGreaterThan(20);
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            int i = 0;
            for (Map.Entry<String, String> e : Queries.all().entrySet()) {
                String sql = e.getValue()
                        .replace("/* TEMPLATE: leaf */", Queries.leafTable(1, 0, 0))
                        .replace("/* TEMPLATE: parent */", Queries.parentTable(1))
                        .replace("/* TEMPLATE: kv */", Queries.kvTable(1))
                        .replace("/* TEMPLATE: kv_partition */", "shardq.\"kv_1_forever\"")
                        .replace(
                                "/* TEMPLATE: rows */",
                                "(?::bigint, ?::bigint, ?::bigint, ?::bigint, ?::smallint, ?::bytea, ?::bytea, ?::bytea)");
                if (e.getKey().endsWith("_part")) {
                    sql = "WITH " + sql.replace("_N", "_0") + " SELECT 1"; // a part is CTEs of a statement
                }
                s.execute("prepare q" + (i++) + " as " + PgSql.numbered(sql));
            }
        }
    }
}
