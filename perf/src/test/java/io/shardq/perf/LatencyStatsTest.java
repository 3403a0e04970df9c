package io.shardq.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class LatencyStatsTest {

    @Test
    void percentiles_matchKnownValues_whenEachOfOneToThousandRecordedOnce() {
        Histogram h = LatencyStats.newHistogram();
        for (long v = 1; v <= 1000; v++) {
            h.recordValue(v);
        }
        LatencyStats s = LatencyStats.of(h);
        assertThat(s.count()).isEqualTo(1000);
        assertThat(s.p50()).isEqualTo(500);
        assertThat(s.p90()).isEqualTo(900);
        assertThat(s.p99()).isEqualTo(990);
        assertThat(s.p999()).isEqualTo(999);
        assertThat(s.max()).isEqualTo(1000);
        assertThat(s.mean()).isCloseTo(500.5, within(0.01));
        assertThat(s.millis(s.p99())).isCloseTo(0.99, within(1e-12));
    }

    @Test
    void percentiles_reflectTheTail_whenOnePercentIsSlow() {
        Histogram h = LatencyStats.newHistogram();
        h.recordValueWithCount(2_000, 990); // 2 ms
        h.recordValueWithCount(250_000, 10); // 250 ms
        LatencyStats s = LatencyStats.of(h);
        assertThat(s.p50()).isEqualTo(2_000);
        assertThat(s.p99()).isEqualTo(2_000);
        // three significant digits: 250 ms is within 0.1%
        assertThat((double) s.p999()).isCloseTo(250_000, within(250.0));
    }

    @Test
    void of_isEmpty_whenNothingRecorded() {
        LatencyStats s = LatencyStats.of(LatencyStats.newHistogram());
        assertThat(s).isEqualTo(LatencyStats.EMPTY);
        assertThat(s.millis(s.p50())).isNaN();
    }

    @Test
    void clamp_keepsValuesInsideTheHistogramRange() {
        assertThat(LatencyStats.clamp(-3)).isZero();
        assertThat(LatencyStats.clamp(42)).isEqualTo(42);
        assertThat(LatencyStats.clamp(Long.MAX_VALUE)).isEqualTo(LatencyStats.HIGHEST_MICROS);
    }
}
