package io.shardq.perf;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code perf cache-read} with tiny sizes on a real database: latency rows per path and threads,
 * reads/s by size with its chart, the near cache reported as not available (this build has none),
 * and the balance check failing the run when a load loses an entry. Never asserts on speed.
 */
@PgTest
class CacheReadCommandTest {
    private final StringWriter out = new StringWriter();

    private static Progress quiet() {
        return new Progress(new PrintWriter(new StringWriter(), true), false, Duration.ZERO);
    }

    private static CacheReadScenario scenario(List<String> systems) {
        return new CacheReadScenario(
                List.of(1, 2),
                300,
                List.of(100, 300),
                1,
                64,
                Duration.ofMillis(100),
                Duration.ofMillis(300),
                systems,
                "0.00 0.00 0.00");
    }

    @Test
    void read_measuresEachPathAndSize_withTheNearCacheOnASecondInstance(TestDatabase db, @TempDir Path dir)
            throws Exception {
        Environment env = new ServerProbe(db.dataSource()).environment("test", false);
        CacheReadReport report = CacheReadCommand.run(
                db.dataSource(),
                // a new instance fills its near cache only after three heartbeats: short ones here
                () -> db.brokerConfig().set(io.shardq.broker.BrokerProperty.HEARTBEAT_MS, 100),
                env,
                CacheReadCommandTest::scenario,
                quiet(),
                new PrintWriter(out, true));

        assertThat(report.scenario().systems()).containsExactly("shardq", "near", "select");
        assertThat(report.steps())
                .extracting(s -> s.system() + "@" + s.entries() + "x" + s.threads())
                .containsExactly(
                        "shardq@100x1",
                        "near@100x1",
                        "select@100x1",
                        "select@300x1", // the order alternates from one step to the next
                        "near@300x1",
                        "shardq@300x1",
                        "shardq@300x2",
                        "near@300x2",
                        "select@300x2");
        assertThat(report.steps()).allSatisfy(s -> {
            assertThat(s.reads()).isPositive();
            assertThat(s.missing()).isZero();
            assertThat(s.errors()).isZero();
            assertThat(s.p50Nanos()).isPositive();
        });
        // every read of the cache was a hit counted by the cache itself, read from PostgreSQL
        ReadStep miss = report.get("shardq", 300, 1);
        assertThat(miss.served()).isGreaterThanOrEqualTo(miss.reads());
        // and the near system's reads were near-cache hits (the counter is read at the window's
        // edges, so a few reads in flight there fall on either side)
        ReadStep near = report.get("near", 300, 1);
        assertThat(near.served()).isGreaterThan(near.reads() * 9 / 10);
        assertThat(report.loads()).allSatisfy(l -> assertThat(l.balanced()).isTrue());
        assertThat(report.loads()).extracting(LoadResult::to).containsExactly(100L, 100L, 100L, 300L, 300L, 300L);
        assertThat(report.nearCacheNote()).isNull();
        assertThat(CacheReadCommand.exitCode(report)).isZero();
        assertThat(out.toString())
                .startsWith("ShardQ benchmark: cache-read")
                .contains("near-cache hit")
                .contains("miss served from PostgreSQL")
                .contains("direct primary-key SELECT")
                .contains("x1: near-cache hit p50 ")
                .doesNotContain("not available")
                .contains("x2: miss served from PostgreSQL p50 ")
                .contains("ShardQ's get from PostgreSQL above the direct SELECT at every size (x1, reads/s): ")
                .contains("flat curve: ShardQ's get from PostgreSQL, reads/s at 300 entries / at 100: ")
                .contains("ShardQ's get with the near cache above the direct SELECT at every size (x1, reads/s): ")
                .doesNotContain("NOT BALANCED");

        report.writeTo(dir);
        String json = Files.readString(dir.resolve("results.json"));
        assertThat(Json.parse(json)).isNotNull();
        assertThat(json)
                .contains("\"name\": \"cache-read\"")
                .contains("\"near_cache\": {")
                .contains("\"available\": true")
                .contains("\"read_path\": \"miss served from PostgreSQL\"")
                .contains("\"read_path\": \"direct primary-key SELECT\"")
                .contains("\"p50_us\": ")
                .contains("\"p99_us\": ")
                .contains("\"reads_per_s\": ")
                .contains("\"vs_select\": ")
                .contains("\"loads\": [")
                .contains("\"balanced\": true");
        assertThat(Files.readString(dir.resolve("results.csv"))).startsWith("system,read_path,entries,threads");
        assertThat(Files.readString(dir.resolve("results.html")))
                .contains("<figure class=\"chart\"")
                .contains("Lookups per second by cache size")
                .contains("p50 of one read");
    }

    @Test
    void aLostEntry_failsTheBalanceCheck_andTheRun(TestDatabase db) throws Exception {
        Environment env = new ServerProbe(db.dataSource()).environment("test", false);
        try (Broker broker = Broker.start(db.brokerConfig().build())) {
            ReadSystem lossy = new KvReadSystem(broker) {
                @Override
                public void load(List<String> keys, List<byte[]> values) {
                    super.load(keys.subList(1, keys.size()), values.subList(1, values.size()));
                }
            };
            CacheReadScenario sc = new CacheReadScenario(
                    List.of(1), 50, List.of(), 1, 64, Duration.ZERO, Duration.ofMillis(200), List.of("shardq"), "-");
            CacheReadReport report = CacheReadCommand.run(
                    env, sc, List.of(lossy), "not measured in this test", quiet(), new PrintWriter(out, true));

            assertThat(report.loads().get(0).stored()).isEqualTo(49);
            assertThat(report.get("shardq", 50, 1).missing()).isPositive();
            assertThat(CacheReadCommand.exitCode(report)).isEqualTo(1);
            assertThat(out.toString()).contains("49 (NOT 50)").contains("balance: NOT BALANCED");
        }
    }
}
