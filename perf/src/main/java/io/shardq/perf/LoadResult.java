package io.shardq.perf;

/**
 * One system grown from {@code from} to {@code to} entries by {@code perf cache-read}'s loader.
 *
 * @param stored entries present afterwards: must equal {@code to}
 */
record LoadResult(String system, long from, long to, double seconds, long stored, long errors, String firstError) {

    double entriesPerSecond() {
        return seconds > 0 ? (to - from) / seconds : Double.NaN;
    }

    boolean balanced() {
        return errors == 0 && stored == to;
    }
}
