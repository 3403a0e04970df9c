package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SeqRunsTest {
    @Test
    void consecutiveNumbers_becomeOneRun_inAnyOrder() {
        SeqRuns runs = SeqRuns.of(List.of(14L, 11L, 12L, 13L));
        assertThat(runs.firsts()).containsExactly(11L);
        assertThat(runs.lasts()).containsExactly(14L);
    }

    @Test
    void gaps_startNewRuns() {
        SeqRuns runs = SeqRuns.of(List.of(7L, 3L, 4L, 9L, 10L));
        assertThat(runs.firsts()).containsExactly(3L, 7L, 9L);
        assertThat(runs.lasts()).containsExactly(4L, 7L, 10L);
        assertThat(runs.size()).isEqualTo(3);
    }

    @Test
    void ascendingNumbers_withAGap_makeTwoRuns() {
        SeqRuns runs = SeqRuns.of(List.of(1L, 2L, 3L, 5L, 6L));
        assertThat(runs.firsts()).containsExactly(1L, 5L);
        assertThat(runs.lasts()).containsExactly(3L, 6L);
    }

    @Test
    void nothing_isNoRun() {
        assertThat(SeqRuns.of(List.of()).size()).isZero();
    }
}
