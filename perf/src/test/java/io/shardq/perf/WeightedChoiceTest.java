package io.shardq.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Random;
import org.junit.jupiter.api.Test;

class WeightedChoiceTest {

    @Test
    void pick_followsTheWeights_overManyDraws() {
        WeightedChoice choice = new WeightedChoice(40, 40, 10, 10);
        Random random = new Random(42);
        int draws = 200_000;
        int[] seen = new int[4];
        for (int i = 0; i < draws; i++) {
            seen[choice.pick(random)]++;
        }
        // the standard deviation of a share near 0.4 over 200,000 draws is about 0.0011
        assertThat(seen[0] / (double) draws).isCloseTo(0.40, within(0.006));
        assertThat(seen[1] / (double) draws).isCloseTo(0.40, within(0.006));
        assertThat(seen[2] / (double) draws).isCloseTo(0.10, within(0.006));
        assertThat(seen[3] / (double) draws).isCloseTo(0.10, within(0.006));
    }

    @Test
    void pick_reachesEveryIndex_includingTheEdges_andOnlyThose() {
        WeightedChoice choice = new WeightedChoice(1, 1_000_000, 1);
        Random random = new Random(7);
        int[] seen = new int[3];
        for (int i = 0; i < 3_000_000; i++) {
            seen[choice.pick(random)]++;
        }
        assertThat(seen[0]).isBetween(1, 20);
        assertThat(seen[2]).isBetween(1, 20);
        assertThat(new WeightedChoice(5).pick(random)).isZero();
    }

    @Test
    void pick_repeatsItsSequence_forTheSameSeed() {
        WeightedChoice choice = new WeightedChoice(3, 1, 6);
        Random a = new Random(99);
        Random b = new Random(99);
        for (int i = 0; i < 1000; i++) {
            assertThat(choice.pick(a)).isEqualTo(choice.pick(b));
        }
    }

    @Test
    void rejectsNoWeights_andWeightsBelowOne() {
        assertThatThrownBy(WeightedChoice::new).hasMessageContaining("expected at least one");
        assertThatThrownBy(() -> new WeightedChoice(3, 0))
                .hasMessage("weight 0 at index 1 is invalid: expected at least 1");
    }
}
