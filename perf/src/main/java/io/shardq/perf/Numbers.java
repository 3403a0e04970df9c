package io.shardq.perf;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Locale;

/** How figures are printed in the text and HTML reports: "-" for what does not apply. */
final class Numbers {
    static final String NONE = "-";

    /** A server figure that cannot be measured from here: the server runs on another machine. */
    static final String NOT_LOCAL = "n/a";

    private Numbers() {}

    static String count(long n) {
        return n < 0 ? NONE : String.format(Locale.ROOT, "%,d", n);
    }

    static String rate(double perSecond) {
        return Double.isNaN(perSecond) ? NONE : String.format(Locale.ROOT, "%,.0f", perSecond);
    }

    static String ratio(double r) {
        return Double.isNaN(r) ? NONE : String.format(Locale.ROOT, "%.2fx", r);
    }

    /** Milliseconds with about three significant digits. */
    static String millis(double ms) {
        if (Double.isNaN(ms)) {
            return NONE;
        }
        if (ms < 10) {
            return String.format(Locale.ROOT, "%.2f", ms);
        }
        return ms < 100 ? String.format(Locale.ROOT, "%.1f", ms) : String.format(Locale.ROOT, "%,.0f", ms);
    }

    static String decimal(double v, int digits) {
        return Double.isNaN(v) ? NONE : String.format(Locale.ROOT, "%,." + digits + "f", v);
    }

    /**
     * A finite number for CSV and JSON: seven significant digits, no exponent, no trailing zeros
     * ({@code 12345.68}, {@code 0.0001234}, {@code 3}).
     */
    static String plain(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            throw new IllegalArgumentException(v + " has no plain form: expected a finite number");
        }
        if (v == 0) {
            return "0";
        }
        return new BigDecimal(v).round(new MathContext(7)).stripTrailingZeros().toPlainString();
    }

    static String megabytes(long bytes) {
        return bytes < 0 ? NONE : String.format(Locale.ROOT, "%,.1f", bytes / (1024.0 * 1024.0));
    }
}
