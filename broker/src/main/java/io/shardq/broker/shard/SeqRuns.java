package io.shardq.broker.shard;

import java.util.Arrays;
import java.util.Collection;

/**
 * Sequence numbers as runs of consecutive ones, the form in which {@code shardq.dequeue_range}
 * logs what a commit consumed beyond the cursor: a transaction's taken range is mostly one run, so
 * it costs one row instead of one per message.
 */
record SeqRuns(Long[] firsts, Long[] lasts) {

    /** The runs of {@code seqs} (any order, no duplicates), ascending. */
    static SeqRuns of(Collection<Long> seqs) {
        long[] sorted = new long[seqs.size()];
        int k = 0;
        boolean ascending = true;
        for (Long seq : seqs) {
            sorted[k] = seq;
            ascending &= k == 0 || sorted[k - 1] < seq;
            k++;
        }
        if (!ascending) {
            Arrays.sort(sorted);
        }
        Long[] firsts = new Long[sorted.length];
        Long[] lasts = new Long[sorted.length];
        int n = 0;
        for (int i = 0; i < sorted.length; i++) {
            if (n > 0 && sorted[i] == lasts[n - 1] + 1) {
                lasts[n - 1] = sorted[i];
            } else {
                firsts[n] = sorted[i];
                lasts[n] = sorted[i];
                n++;
            }
        }
        return new SeqRuns(Arrays.copyOf(firsts, n), Arrays.copyOf(lasts, n));
    }

    int size() {
        return firsts.length;
    }
}
