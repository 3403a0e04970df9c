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
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code perf cache-putall} with tiny numbers on a real database: the report's shape, and the
 * balance check (entries present after the writes = entries requested) failing the run when one
 * batch is lost. Never asserts on speed.
 */
@PgTest
class CachePutAllCommandTest {
    private final StringWriter out = new StringWriter();

    private static Progress quiet() {
        return new Progress(new PrintWriter(new StringWriter(), true), false, Duration.ZERO);
    }

    private static CachePutAllScenario scenario() {
        return new CachePutAllScenario(3, 230, 20, 64, 2, 1, "0.00 0.00 0.00");
    }

    @Test
    void putAll_writesEveryEntry_andReportsTimesRatioAndTarget(TestDatabase db, @TempDir Path dir) throws Exception {
        Environment env = new ServerProbe(db.dataSource()).environment("test", false);
        CachePutAllReport report = CachePutAllCommand.run(
                db.dataSource(), db::brokerConfig, env, scenario(), quiet(), new PrintWriter(out, true));

        assertThat(report.runs())
                .extracting(PutAllRun::system)
                .containsExactly(
                        "shardq", "shardq-tx", "upsert", "upsert", "shardq-tx", "shardq"); // the order alternates
        assertThat(report.runs()).allSatisfy(r -> {
            assertThat(r.stored()).isEqualTo(230);
            assertThat(r.errors()).isZero();
            assertThat(r.millis()).isPositive();
        });
        assertThat(report.ratio()).isPositive();
        assertThat(report.sessionRatio()).isPositive();
        assertThat(CachePutAllCommand.exitCode(report)).isZero();
        assertThat(out.toString())
                .startsWith("ShardQ benchmark: cache-putall")
                .contains("threads             3")
                .contains("target at most 1,000 ms: ")
                .contains("ShardQ / plain multi-row upsert, same run (medians): ")
                .contains("ShardQ in transacted sessions / unbound (medians): ")
                .contains("issue 25's target at most 1.3x: ")
                .contains("balance: every run stored exactly the entries requested")
                .doesNotContain("NOT BALANCED");

        report.writeTo(dir);
        String json = Files.readString(dir.resolve("results.json"));
        assertThat(Json.parse(json)).isNotNull();
        assertThat(json)
                .contains("\"name\": \"cache-putall\"")
                .contains("\"warmup_runs\": 1")
                .contains("\"shardq_median_ms\": ")
                .contains("\"upsert_median_ms\": ")
                .contains("\"ratio_vs_upsert\": ")
                .contains("\"sessions_vs_unbound\": ")
                .contains("\"target_ms\": 1000")
                .contains("\"target_met\": ")
                .contains("\"balanced\": true")
                .contains("\"entries_per_s\": ")
                .contains("\"load_average_at_end\": ");
        assertThat(Files.readString(dir.resolve("results.csv"))).startsWith("run,system,entries,ms,entries_per_s");
        assertThat(Files.readString(dir.resolve("results.html")))
                .contains("<figure class=\"chart\"")
                .contains("Time to write every entry");
    }

    @Test
    void aLostBatch_failsTheBalanceCheck_andTheRun(TestDatabase db) throws Exception {
        Environment env = new ServerProbe(db.dataSource()).environment("test", false);
        try (Broker broker = Broker.start(db.brokerConfig().build())) {
            PutAllSystem lossy = new Lossy(new KvPutAllSystem(broker, 20));
            CachePutAllReport report = CachePutAllCommand.run(
                    db.dataSource(),
                    env,
                    new CachePutAllScenario(2, 100, 20, 64, 1, 0, "-"),
                    List.of(lossy),
                    quiet(),
                    new PrintWriter(out, true));

            assertThat(report.runs().get(0).stored()).isEqualTo(99);
            assertThat(report.balanced()).isFalse();
            assertThat(CachePutAllCommand.exitCode(report)).isEqualTo(1);
            assertThat(out.toString()).contains("99 (NOT 100)").contains("balance: NOT BALANCED");
            assertThat(report.json()).contains("\"balanced\": false");
        }
    }

    /** Drops the last entry of the first batch it is given, and says nothing. */
    private static final class Lossy implements PutAllSystem {
        private final PutAllSystem inner;
        private final AtomicBoolean dropped = new AtomicBoolean();

        Lossy(PutAllSystem inner) {
            this.inner = inner;
        }

        @Override
        public String name() {
            return inner.name();
        }

        @Override
        public void setUp() throws Exception {
            inner.setUp();
        }

        @Override
        public void putAll(List<byte[]> keys, List<byte[]> values) throws Exception {
            if (dropped.compareAndSet(false, true)) {
                inner.putAll(keys.subList(0, keys.size() - 1), values.subList(0, values.size() - 1));
            } else {
                inner.putAll(keys, values);
            }
        }

        @Override
        public long stored() throws Exception {
            return inner.stored();
        }

        @Override
        public void close() throws Exception {
            inner.close();
        }
    }
}
