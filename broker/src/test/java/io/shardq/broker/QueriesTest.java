package io.shardq.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.Query;
import io.shardq.broker.testing.PgSql;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Every named runtime query PREPAREs against the migrated schema: a typo fails the build. */
@PgTest
class QueriesTest {

    @Test
    void everyNamedQuery_prepares(TestDatabase db) throws Exception {
        try (Broker broker = Broker.start(db.brokerConfig().build())) {
            broker.admin().queues().create("q", QueueOptions.DEFAULTS.withShards(1));
            broker.admin().caches().create("c", CacheOptions.DEFAULTS);
        }
        assertThat(Queries.all()).hasSizeGreaterThan(20);
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            int i = 0;
            for (Map.Entry<Query, String> e : Queries.all().entrySet()) {
                Query q = e.getKey();
                String sql = templated(e.getValue());
                if (q.sqlName().endsWith("_part")) {
                    sql = "WITH " + sql.replace("_N", "_0") + " SELECT 1"; // a part is CTEs of a statement
                } else if (q == Query.MESSAGE_INSERT_RESERVING_TOGETHER) {
                    sql = templated(Queries.insertReservingTogether(List.of(
                            Queries.insertReservingPart(0, 1, 0, 0, 1), Queries.insertReservingPart(1, 1, 0, 0, 2))));
                } else if (q == Query.MESSAGE_INSERT_RESERVING_TOGETHER_RESULT) {
                    continue; // a piece of the statement above
                } else if (UTILITY.contains(q)) {
                    continue; // not PREPAREd: run below
                }
                s.execute("prepare q" + (i++) + " as " + PgSql.numbered(sql));
            }
            // utility statements cannot be PREPAREd: each runs for real, where it harms nothing
            s.execute(Queries.withChannel(Query.INSTANCE_LISTEN, "shardq_queries_test"));
            s.execute(templated(Queries.get(Query.SLICE_VACUUM_LEAF)));
            s.execute(Queries.get(Query.SESSION_RESET_LOCK_TIMEOUT));
            c.setAutoCommit(false);
            s.execute(templated(Queries.get(Query.SLICE_TRUNCATE_LEAF)));
            c.rollback();
            s.execute("select 1");
            s.execute(Queries.withGid(Query.PREPARED_XACT_PREPARE, "queries-test"));
            c.setAutoCommit(true);
            s.execute(Queries.withGid(Query.PREPARED_XACT_ROLLBACK, "queries-test"));
            assertThatThrownBy(() -> s.execute(Queries.withGid(Query.PREPARED_XACT_COMMIT, "queries-test")))
                    .isInstanceOf(SQLException.class)
                    .satisfies(x -> assertThat(((SQLException) x).getSQLState()).isEqualTo("42704"));
        }
    }

    private static final Set<Query> UTILITY = EnumSet.of(
            Query.INSTANCE_LISTEN,
            Query.SLICE_VACUUM_LEAF,
            Query.SLICE_TRUNCATE_LEAF,
            Query.SESSION_RESET_LOCK_TIMEOUT,
            Query.PREPARED_XACT_PREPARE,
            Query.PREPARED_XACT_COMMIT,
            Query.PREPARED_XACT_ROLLBACK);

    private static String templated(String sql) {
        return sql.replace("/* TEMPLATE: leaf */", Queries.leafTable(1, 0, 0))
                .replace("/* TEMPLATE: parent */", Queries.parentTable(1))
                .replace("/* TEMPLATE: kv */", Queries.kvTable(1))
                .replace("/* TEMPLATE: kv_partition */", "shardq.\"kv_1_forever\"")
                .replace("/* TEMPLATE: condition */", "true")
                .replace("/* TEMPLATE: full_rows */", Queries.FULL_ROW)
                .replace(
                        "/* TEMPLATE: rows */",
                        "(?::bigint, ?::bigint, ?::bigint, ?::bigint, ?::smallint, ?::bytea, ?::bytea, ?::bytea, ?::jsonb)");
    }
}
