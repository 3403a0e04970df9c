package io.shardq.broker.kv;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.CacheOptions;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Measures the two ways of writing a putAll of 20 (docs/design/kv-cache.md): the
 * engine's three prepared statements (lock, delete, insert) and a COMMIT, four round trips with
 * plans cached, against one call of a plpgsql function doing the same (one round trip, but its
 * dynamic SQL is planned on every call; created here, in the test's database, as it was in the
 * first version of {@code R__shardq_kv.sql}). Prints the figures; asserts only that both wrote.
 * Runs with {@code -Dshardq.kv.measure=true}: {@code (cd broker && ../mvnw verify
 * -Dtest=KvPutPathTest -Dshardq.kv.measure=true -Dsurefire.failIfNoSpecifiedTests=false)}.
 */
@PgTest
class KvPutPathTest {
    static final int BATCHES = Integer.getInteger("shardq.kv.measure.batches", 3000);

    static final String FUNCTION =
            """
            CREATE OR REPLACE FUNCTION public.kv_put_function(
                p_cache integer, p_now_ms bigint, p_mode integer, p_keys bytea[], p_hashes integer[], p_values bytea[],
                p_expires_ms bigint[], p_buckets bigint[])
            RETURNS SETOF bytea LANGUAGE plpgsql AS $$
            DECLARE
                v_table text := 'kv_' || p_cache;
                v_now timestamptz := shardq.kv_ts(p_now_ms);
            BEGIN
                PERFORM pg_advisory_xact_lock(p_cache, h) FROM unnest(p_hashes) h;
                EXECUTE format('DELETE FROM shardq.%I WHERE k = ANY($1)', v_table) USING p_keys;
                RETURN QUERY EXECUTE format(
                    'INSERT INTO shardq.%I AS t (k, v, expires_at, bucket, touched_at, size)'
                    ' SELECT u.k, u.v, shardq.kv_ts(u.e), u.b, $5, octet_length(u.k) + octet_length(u.v)'
                    '   FROM unnest($1, $2, $3, $4) AS u (k, v, e, b) RETURNING t.k', v_table)
                    USING p_keys, p_values, p_expires_ms, p_buckets, v_now;
            END $$
            """;

    @Test
    void putAllOf20_statementsAgainstFunction_measured(TestDatabase db) throws Exception {
        Assumptions.assumeTrue(Boolean.getBoolean("shardq.kv.measure"), "a measurement: -Dshardq.kv.measure=true");
        try (Broker broker = Broker.start(db.brokerConfig().build())) {
            broker.admin().caches().create("stmts", CacheOptions.DEFAULTS);
            broker.admin().caches().create("fn", CacheOptions.DEFAULTS);
            broker.admin().caches().create("custom", CacheOptions.DEFAULTS);
            KvCache<String, String> engine = broker.cache("stmts", Codec.utf8(), Codec.utf8());
            int fnId = broker.admin().caches().get("fn").id();
            int customId = broker.admin().caches().get("custom").id();
            try (Connection c = broker.dataSource().getConnection();
                    java.sql.Statement s = c.createStatement()) {
                s.execute(FUNCTION);
            }
            String value = "x".repeat(200);
            // the variants take turns, a slice at a time, so that a noisy neighbour on the machine
            // weighs on all of them alike; the first turn of each warms up
            int slices = 7;
            int perSlice = BATCHES / (slices - 1);
            long[] total = new long[3];
            for (int slice = 0; slice < slices; slice++) {
                long[] took = new long[3];
                long t0 = System.nanoTime();
                for (int i = 0; i < perSlice; i++) {
                    engine.putAll(batch(i, value));
                }
                took[0] = System.nanoTime() - t0;
                t0 = System.nanoTime();
                for (int i = 0; i < perSlice; i++) {
                    try (Connection c = broker.dataSource().getConnection()) {
                        function(c, fnId, batch(i, value));
                    }
                }
                took[1] = System.nanoTime() - t0;
                t0 = System.nanoTime();
                for (int i = 0; i < perSlice; i++) {
                    try (Connection c = broker.dataSource().getConnection()) {
                        customPlanStatements(c, customId, batch(i, value));
                    }
                }
                took[2] = System.nanoTime() - t0;
                if (slice > 0) {
                    for (int v = 0; v < 3; v++) {
                        total[v] += took[v];
                    }
                }
            }
            int n = perSlice * (slices - 1);
            System.out.printf(
                    "KvPutPathTest: putAll of 20 (200 B values), %d batches each, 1 thread, interleaved: engine"
                            + " (lock, delete, insert, commit; generic plans) %.0f us/batch, one plpgsql function call"
                            + " %.0f us/batch, the same statements with PostgreSQL's default plan choice (custom plans)"
                            + " %.0f us/batch%n",
                    n, total[0] / 1e3 / n, total[1] / 1e3 / n, total[2] / 1e3 / n);
            assertThat(broker.admin().caches().stats("fn").entries()).isPositive();
            assertThat(broker.admin().caches().stats("stmts").entries()).isPositive();
            assertThat(broker.admin().caches().stats("custom").entries()).isPositive();
        }
    }

    /** The engine's statements as PostgreSQL plans them by default (custom plans, re-planned per call). */
    private static void customPlanStatements(Connection c, int cache, Map<String, String> batch) throws Exception {
        List<byte[]> keys = new ArrayList<>();
        List<byte[]> values = new ArrayList<>();
        for (Map.Entry<String, String> e : batch.entrySet()) {
            keys.add(Codec.utf8().encode(e.getKey()));
            values.add(Codec.utf8().encode(e.getValue()));
        }
        Integer[] hashes =
                keys.stream().map(Arrays::hashCode).distinct().sorted().toArray(Integer[]::new);
        Long[] buckets = new Long[keys.size()];
        Arrays.fill(buckets, 0L);
        String table = "shardq.\"kv_" + cache + "\"";
        c.setAutoCommit(false);
        try (PreparedStatement lock =
                        c.prepareStatement("select count(pg_advisory_xact_lock(?, h)) from unnest(?::int[]) h");
                PreparedStatement delete = c.prepareStatement("delete from " + table
                        + " where k = any(?) returning k, expires_at is null or expires_at > shardq.kv_ts(?)");
                PreparedStatement insert = c.prepareStatement("insert into " + table
                        + " (k, v, expires_at, bucket, touched_at, size) select u.k, u.v, shardq.kv_ts(u.e), u.b,"
                        + " shardq.kv_ts(?), octet_length(u.k) + octet_length(u.v) from unnest(?::bytea[],"
                        + " ?::bytea[], ?::bigint[], ?::bigint[]) as u (k, v, e, b)")) {
            lock.setInt(1, cache);
            lock.setArray(2, c.createArrayOf("integer", hashes));
            lock.executeQuery().close();
            delete.setArray(1, c.createArrayOf("bytea", keys.toArray(byte[][]::new)));
            delete.setLong(2, System.currentTimeMillis());
            delete.executeQuery().close();
            insert.setLong(1, System.currentTimeMillis());
            insert.setArray(2, c.createArrayOf("bytea", keys.toArray(byte[][]::new)));
            insert.setArray(3, c.createArrayOf("bytea", values.toArray(byte[][]::new)));
            insert.setArray(4, c.createArrayOf("bigint", new Long[keys.size()]));
            insert.setArray(5, c.createArrayOf("bigint", buckets));
            insert.executeUpdate();
            c.commit();
        } finally {
            c.setAutoCommit(true);
        }
    }

    private static Map<String, String> batch(int i, String value) {
        Map<String, String> m = new LinkedHashMap<>();
        ThreadLocalRandom r = ThreadLocalRandom.current();
        while (m.size() < 20) {
            m.put("key-" + r.nextInt(100_000), value + i);
        }
        return m;
    }

    /** The alternative: one autocommit call of the function. */
    private static void function(Connection c, int cache, Map<String, String> batch) throws Exception {
        List<byte[]> keys = new ArrayList<>();
        List<byte[]> values = new ArrayList<>();
        for (Map.Entry<String, String> e : batch.entrySet()) {
            keys.add(Codec.utf8().encode(e.getKey()));
            values.add(Codec.utf8().encode(e.getValue()));
        }
        Integer[] hashes =
                keys.stream().map(Arrays::hashCode).distinct().sorted().toArray(Integer[]::new);
        Long[] buckets = new Long[keys.size()];
        Arrays.fill(buckets, 0L);
        try (PreparedStatement ps =
                c.prepareStatement("select k from public.kv_put_function(?, ?, 0, ?, ?, ?, ?, ?) as k")) {
            ps.setInt(1, cache);
            ps.setLong(2, System.currentTimeMillis());
            ps.setArray(3, c.createArrayOf("bytea", keys.toArray(byte[][]::new)));
            ps.setArray(4, c.createArrayOf("integer", hashes));
            ps.setArray(5, c.createArrayOf("bytea", values.toArray(byte[][]::new)));
            ps.setArray(6, c.createArrayOf("bigint", new Long[keys.size()]));
            ps.setArray(7, c.createArrayOf("bigint", buckets));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    // the keys written
                }
            }
        }
    }
}
