package io.shardq.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class RatesTest {

    @Test
    void perSecond_dividesCountByElapsedNanos() {
        assertThat(Rates.perSecond(1_000, 2_000_000_000L)).isCloseTo(500.0, within(1e-9));
        assertThat(Rates.perSecond(3, 1_500_000L)).isCloseTo(2_000.0, within(1e-9));
    }

    @Test
    void perSecond_isZero_whenNoTimeElapsed() {
        assertThat(Rates.perSecond(10, 0)).isZero();
        assertThat(Rates.perSecond(10, -5)).isZero();
    }

    @Test
    void ratio_isNaN_whenReferenceMissingOrZero() {
        assertThat(Rates.ratio(50, 200)).isCloseTo(0.25, within(1e-12));
        assertThat(Rates.ratio(50, 0)).isNaN();
        assertThat(Rates.ratio(50, Double.NaN)).isNaN();
        assertThat(Rates.ratio(Double.NaN, 10)).isNaN();
    }

    @Test
    void perMessage_isNaN_whenNothingMovedOrTotalUnknown() {
        assertThat(Rates.perMessage(6_400, 10)).isCloseTo(640.0, within(1e-12));
        assertThat(Rates.perMessage(6_400, 0)).isNaN();
        assertThat(Rates.perMessage(-1, 10)).isNaN();
        assertThat(Rates.perMessage(Double.NaN, 10)).isNaN();
    }
}
