package io.shardq.perf;

import java.util.Arrays;
import java.util.Random;

/**
 * Picks an index with probability proportional to its weight: a uniform draw below the total,
 * then a binary search of the cumulative weights. Immutable; the caller brings its own {@link
 * Random}, one per thread, so a seeded run repeats its sequence of choices.
 */
final class WeightedChoice {
    private final long[] cumulative;

    WeightedChoice(int... weights) {
        if (weights.length == 0) {
            throw new IllegalArgumentException("weights [] are invalid: expected at least one");
        }
        cumulative = new long[weights.length];
        long sum = 0;
        for (int i = 0; i < weights.length; i++) {
            if (weights[i] < 1) {
                throw new IllegalArgumentException(
                        "weight " + weights[i] + " at index " + i + " is invalid: expected at least 1");
            }
            sum += weights[i];
            cumulative[i] = sum;
        }
    }

    long total() {
        return cumulative[cumulative.length - 1];
    }

    /** An index from 0 to weights - 1; index i with probability weight[i] / total. */
    int pick(Random random) {
        long draw = total() <= Integer.MAX_VALUE
                ? random.nextInt((int) total())
                : Math.floorMod(random.nextLong(), total());
        // the first index whose cumulative weight is above the draw
        int i = Arrays.binarySearch(cumulative, draw + 1);
        return i >= 0 ? i : -i - 1;
    }
}
