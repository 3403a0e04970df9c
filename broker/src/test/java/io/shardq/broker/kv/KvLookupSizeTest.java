package io.shardq.broker.kv;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.CacheOptions;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Measures a keyed {@code get} against the number of entries (1,000, 10,000, 100,000; half of
 * them with TTLs spread over the buckets, half without), to show the lookup is keyed, not
 * scanned (docs/design/kv-cache.md). Prints p50 and p99; asserts only that the
 * reads hit. Runs with {@code -Dshardq.kv.measure=true}.
 */
@PgTest
class KvLookupSizeTest {

    @Test
    void get_atGrowingSizes_measured(TestDatabase db) {
        Assumptions.assumeTrue(Boolean.getBoolean("shardq.kv.measure"), "a measurement: -Dshardq.kv.measure=true");
        try (Broker broker = Broker.start(db.brokerConfig().build())) {
            broker.admin().caches().create("size", CacheOptions.DEFAULTS.withMaxTtl(Duration.ofHours(1)));
            KvCache<String, String> c =
                    broker.cache("size", Codec.utf8(), Codec.utf8()).withMaxBatchSize(1000);
            String value = "p".repeat(200);
            int filled = 0;
            StringBuilder out = new StringBuilder("KvLookupSizeTest: get of a random present key, 1 thread:");
            for (int size : new int[] {1_000, 10_000, 100_000}) {
                while (filled < size) {
                    Map<String, String> m = new LinkedHashMap<>();
                    for (int i = 0; i < 1000; i++) {
                        m.put("route-" + (filled + i), value);
                    }
                    c.putAll(m, filled % 2000 == 0 ? null : Duration.ofMinutes(5 + (filled / 1000) % 50));
                    filled += 1000;
                }
                int reads = 5000;
                long[] nanos = new long[reads];
                ThreadLocalRandom r = ThreadLocalRandom.current();
                for (int i = 0; i < 1000; i++) { // warm-up
                    c.get("route-" + r.nextInt(size));
                }
                for (int i = 0; i < reads; i++) {
                    long t0 = System.nanoTime();
                    String v = c.get("route-" + r.nextInt(size));
                    nanos[i] = System.nanoTime() - t0;
                    assertThat(v).isEqualTo(value);
                }
                Arrays.sort(nanos);
                out.append(String.format(
                        " %,d entries p50 %.0f us p99 %.0f us;",
                        size, nanos[reads / 2] / 1e3, nanos[reads * 99 / 100] / 1e3));
            }
            int id = broker.admin().caches().get("size").id();
            out.append(" partitions ")
                    .append(broker.admin().caches().get("size").partitions());
            // the reference, in the same run: one primary-key SELECT on one partition (the forever
            // one, which holds every other thousand), same pool, prepared statement
            long[] nanos = new long[5000];
            ThreadLocalRandom r = ThreadLocalRandom.current();
            String sql = "select v from shardq.\"kv_" + id + "_forever\" where k = ?";
            for (int i = -1000; i < nanos.length; i++) {
                String key = "route-" + (2000 * r.nextInt(50) + r.nextInt(1000));
                long t0 = System.nanoTime();
                try (java.sql.Connection conn = broker.dataSource().getConnection();
                        java.sql.PreparedStatement ps = conn.prepareStatement(sql)) {
                    ps.setBytes(1, Codec.utf8().encode(key));
                    try (java.sql.ResultSet rs = ps.executeQuery()) {
                        assertThat(rs.next()).isTrue();
                    }
                } catch (java.sql.SQLException e) {
                    throw new IllegalStateException(e);
                }
                if (i >= 0) {
                    nanos[i] = System.nanoTime() - t0;
                }
            }
            Arrays.sort(nanos);
            out.append(String.format(
                    "; reference, a primary-key SELECT on one partition: p50 %.0f us p99 %.0f us",
                    nanos[2500] / 1e3, nanos[4950] / 1e3));
            System.out.println(out);
        }
    }
}
