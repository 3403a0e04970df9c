package io.shardq.cli;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Locale;

/** How numbers, sizes, durations and times read in the CLI's tables: the same everywhere. */
final class Format {
    private static final DateTimeFormatter UTC =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss'Z'", Locale.ROOT).withZone(ZoneOffset.UTC);

    private Format() {}

    /** 10,000 */
    static String count(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    /** "1 message", "2 messages" */
    static String messages(long n) {
        return count(n) + (n == 1 ? " message" : " messages");
    }

    /** "1 message remains", "2 messages remain" */
    static String remain(long n) {
        return messages(n) + (n == 1 ? " remains" : " remain");
    }

    /** 1.5 KiB, 3.2 MiB */
    static String bytes(long n) {
        if (n < 1024) {
            return n + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        double v = n;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, "%.1f %s", v, units[u]);
    }

    /** 850 ms, 12.3 s, 4 min 05 s, 2 h 03 min */
    static String duration(long millis) {
        if (millis < 1000) {
            return millis + " ms";
        }
        if (millis < 60_000) {
            return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
        }
        long s = millis / 1000;
        if (s < 3600) {
            return String.format(Locale.ROOT, "%d min %02d s", s / 60, s % 60);
        }
        return String.format(Locale.ROOT, "%d h %02d min", s / 3600, (s % 3600) / 60);
    }

    /** messages per second, no decimals above 100 */
    static String rate(double perSecond) {
        return perSecond >= 100
                ? count(Math.round(perSecond)) + " msg/s"
                : String.format(Locale.ROOT, "%.1f msg/s", perSecond);
    }

    /** An epoch-millis time in UTC, to the second; "-" for 0. */
    static String instant(long epochMillis) {
        return epochMillis == 0
                ? "-"
                : UTC.format(Instant.ofEpochMilli(epochMillis).truncatedTo(ChronoUnit.SECONDS));
    }

    static String onOff(boolean b) {
        return b ? "on" : "off";
    }

    /**
     * A text table of the CLI's outputs: columns of numbers right-aligned, counts with thousands
     * separators, a missing value as {@code -}.
     */
    static io.shardq.tools.TextTable table(String... headers) {
        return new io.shardq.tools.TextTable(headers).cells(Format::cell);
    }

    private static String cell(Object o) {
        if (o == null) {
            return "-";
        }
        if (o instanceof Long || o instanceof Integer) {
            return count(((Number) o).longValue());
        }
        return o.toString();
    }
}
