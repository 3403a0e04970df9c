package io.shardq.broker.message;

/**
 * Checks on text that ShardQ stores as UTF-8. A Java string may hold an unpaired UTF-16 surrogate,
 * which UTF-8 cannot represent: encoding it would silently turn it into {@code ?}. ShardQ refuses
 * such text when it is sent, naming where it is, instead of delivering something else.
 */
public final class Texts {
    /** Longest property name, in characters (names are stored with a 16-bit length). */
    public static final int MAX_NAME = 16_384;

    private Texts() {}

    /** Index of the first unpaired surrogate in {@code s}, or -1. */
    public static int unpairedSurrogate(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                    continue;
                }
                return i;
            }
            if (Character.isLowSurrogate(c)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Throws {@link IllegalArgumentException} when {@code s} cannot be stored as UTF-8; {@code what}
     * names it ("property \"x\"", "the map key \"k\"").
     */
    public static void requireEncodable(String s, String what) {
        if (s == null) {
            return;
        }
        int bad = unpairedSurrogate(s);
        if (bad >= 0) {
            throw new IllegalArgumentException(what + " contains an unpaired UTF-16 surrogate at index " + bad
                    + " (U+" + Integer.toHexString(s.charAt(bad)).toUpperCase(java.util.Locale.ROOT)
                    + "), which cannot be stored as UTF-8");
        }
    }

    /** A name or text cut to 60 characters for an error message. */
    public static String quote(String s) {
        return cut(s, 60);
    }

    /** {@code s} cut to {@code max} characters for an error message, saying how long it was. */
    public static String cut(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max) + "... (" + s.length() + " characters)";
    }
}
