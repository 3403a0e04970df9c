package io.shardq.cli;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * Durations as the CLI reads them: seconds, or a number with {@code ms}, {@code s}, {@code m}
 * (or {@code min}), {@code h} or {@code d}: {@code 3600}, {@code 500ms}, {@code 90s}, {@code 10m},
 * {@code 12h}, {@code 7d}. The syntax of {@code topic alter --max-age}, plus milliseconds for
 * cache TTLs.
 */
final class Durations {
    private static final Pattern DURATION = Pattern.compile("(\\d{1,12})\\s*(ms|s|m|min|h|d)?");

    static final String EXPECTED = "expected seconds, or a number with ms, s, m, h or d (500ms, 90s, 10m, 12h, 1d)";

    private Durations() {}

    /** The duration, or an IllegalArgumentException naming the value and the syntax. */
    static Duration parse(String value) {
        Matcher m = DURATION.matcher(value.strip().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + value + "' is not a duration: " + EXPECTED);
        }
        long n = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2);
        return switch (unit) {
            case "ms" -> Duration.ofMillis(n);
            case "m", "min" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            case "d" -> Duration.ofDays(n);
            default -> Duration.ofSeconds(n);
        };
    }

    /** A duration as it was likely given: "7 d", "12 h", "30 min", "90 s", "250 ms", else "1 min 30 s". */
    static String format(long millis) {
        if (millis % 1000 != 0) {
            return Format.duration(millis);
        }
        long seconds = millis / 1000;
        if (seconds > 0 && seconds < 60) {
            return seconds + " s";
        }
        return TopicCommand.age(seconds);
    }

    /** For picocli options: a bad value is a usage error naming the option. */
    static final class Converter implements CommandLine.ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            try {
                return parse(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }
}
