package io.shardq.perf;

/**
 * One system's write of every entry in one run of {@code perf cache-putall}.
 *
 * @param millis from the threads' start signal to the last batch's return
 * @param stored entries present afterwards: must equal {@code entries}
 * @param walBytes WAL of the whole server during the write, -1 when unknown
 * @param firstError the first failed batch, null when none failed
 * @param loadAtEnd the machine's load average right after the write
 */
record PutAllRun(
        int run,
        String system,
        long entries,
        double millis,
        long stored,
        long walBytes,
        long errors,
        String firstError,
        String loadAtEnd) {

    double entriesPerSecond() {
        return millis > 0 ? entries * 1000.0 / millis : Double.NaN;
    }

    double walBytesPerEntry() {
        return walBytes < 0 ? Double.NaN : Rates.perMessage(walBytes, entries);
    }

    /** Every batch succeeded and exactly the entries requested are present. */
    boolean balanced() {
        return errors == 0 && stored == entries;
    }
}
