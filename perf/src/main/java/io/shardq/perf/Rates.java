package io.shardq.perf;

/** Rates and ratios of a step. Not-applicable values are {@code NaN}, which reports print as "-". */
final class Rates {
    private Rates() {}

    /** Events per second from a count over an elapsed time in nanoseconds; 0 for no elapsed time. */
    static double perSecond(long count, long elapsedNanos) {
        return elapsedNanos <= 0 ? 0.0 : count * 1e9 / elapsedNanos;
    }

    /** {@code value / reference}; NaN when either is unknown or the reference is not positive. */
    static double ratio(double value, double reference) {
        if (Double.isNaN(value) || Double.isNaN(reference) || reference <= 0) {
            return Double.NaN;
        }
        return value / reference;
    }

    /** {@code total / messages}; NaN when the total is unknown (negative or NaN) or no message moved. */
    static double perMessage(double total, long messages) {
        if (Double.isNaN(total) || total < 0 || messages <= 0) {
            return Double.NaN;
        }
        return total / messages;
    }

    /** Seconds from nanoseconds. */
    static double seconds(long nanos) {
        return nanos / 1e9;
    }
}
