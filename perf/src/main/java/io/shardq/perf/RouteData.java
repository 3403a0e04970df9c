package io.shardq.perf;

import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.Locale;

/**
 * The data of the cache benchmarks, after seed 001's route prices: entry {@code i} has a key such
 * as {@code LHR-JFK-2026-12-01} (from, to, travel date) and a JSON-like value padded to a fixed
 * size. Deterministic, so the cache and the reference table hold the same bytes and a reader can
 * pick any {@code i} below the entries loaded. Distinct for {@code i} below {@link #MAX_ENTRIES}:
 * the date walks the year, the route walks a permutation of the 17,576 three-letter codes.
 */
final class RouteData {
    static final int CODES = 26 * 26 * 26;
    static final int DAYS = 365;
    static final long MAX_ENTRIES = (long) CODES * DAYS;
    private static final LocalDate FIRST_DAY = LocalDate.of(2026, 1, 1);

    private final int valueBytes;

    RouteData(int valueBytes) {
        if (valueBytes < 16 || valueBytes > 1 << 20) {
            throw new IllegalArgumentException(
                    "value size " + valueBytes + " is invalid: expected 16 to 1,048,576 bytes");
        }
        this.valueBytes = valueBytes;
    }

    static void checkEntries(long entries) {
        if (entries < 1 || entries > MAX_ENTRIES) {
            throw new IllegalArgumentException("entries " + entries + " is invalid: expected 1 to "
                    + String.format(Locale.ROOT, "%,d", MAX_ENTRIES));
        }
    }

    int valueBytes() {
        return valueBytes;
    }

    /** The key of entry {@code i}, e.g. {@code LHR-JFK-2026-12-01}. */
    static String key(long i) {
        long pair = i / DAYS;
        int day = (int) (i % DAYS);
        // 7919 and 104729 are primes, coprime with 26^3: both walks are permutations of the codes
        String from = code((int) (pair * 7919 % CODES));
        String to = code((int) ((pair * 104729 + 13) % CODES));
        return from + "-" + to + "-" + FIRST_DAY.plusDays(day);
    }

    static byte[] keyBytes(long i) {
        return key(i).getBytes(StandardCharsets.US_ASCII);
    }

    /** The value of entry {@code i}: a small JSON document, padded or cut to the value size. */
    byte[] value(long i) {
        String json = String.format(
                Locale.ROOT,
                "{\"route\":\"%s\",\"fare\":%d.%02d,\"currency\":\"GBP\",\"class\":\"standard\",\"changes\":%d,"
                        + "\"pad\":\"",
                key(i),
                20 + i % 480,
                i % 100,
                i % 3);
        byte[] out = Arrays.copyOf(json.getBytes(StandardCharsets.US_ASCII), valueBytes);
        for (int p = Math.min(json.length(), valueBytes); p < valueBytes - 2; p++) {
            out[p] = (byte) ('a' + (p + i) % 26);
        }
        if (valueBytes > json.length() + 1) {
            out[valueBytes - 2] = '"';
            out[valueBytes - 1] = '}';
        }
        return out;
    }

    private static String code(int n) {
        return new String(new char[] {(char) ('A' + n / 676), (char) ('A' + n / 26 % 26), (char) ('A' + n % 26)});
    }
}
