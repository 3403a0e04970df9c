package io.shardq.cli;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * Byte sizes as the CLI reads them: a number of bytes, or a number with a unit {@code kB},
 * {@code MB}, {@code GB}, {@code TB} (case-insensitive, {@code B} optional, {@code KiB} etc.
 * accepted). Units are powers of 1024, as in PostgreSQL's settings ({@code shared_buffers =
 * 128MB}), which is what an operator of a PostgreSQL-backed system reads them as.
 */
final class Sizes {
    private static final Pattern SIZE = Pattern.compile("(\\d{1,19})\\s*(?:([kmgt])(?:i?b)?|b)?");

    private Sizes() {}

    static long parse(String value) {
        Matcher m = SIZE.matcher(value.strip().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + value + "' is not a size: expected bytes, or a number with"
                    + " kB, MB, GB or TB (powers of 1024, as PostgreSQL reads them: 512kB, 64MB, 2GB)");
        }
        int shift = m.group(2) == null ? 0 : 10 * (1 + "kmgt".indexOf(m.group(2)));
        try {
            long n = Long.parseLong(m.group(1));
            if (shift > 0 && n > (Long.MAX_VALUE >> shift)) {
                throw new NumberFormatException();
            }
            return n << shift;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + value + "' is too large: at most " + Long.MAX_VALUE + " bytes");
        }
    }

    /** For picocli options: a bad value is a usage error naming the option. */
    static final class Converter implements CommandLine.ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            try {
                return parse(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }
}
