package io.shardq.jms;

import static java.util.EnumSet.of;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/**
 * The Jakarta Messaging conversion tables, written out from the spec (section 3.5.4 for properties,
 * the MapMessage and StreamMessage javadoc for bodies): which types a value written as one type
 * may be read as. Every pair not listed must throw MessageFormatException.
 */
final class ConversionTable {
    enum JmsType {
        BOOLEAN,
        BYTE,
        SHORT,
        CHAR,
        INT,
        LONG,
        FLOAT,
        DOUBLE,
        STRING,
        BYTES
    }

    /** One sample value per written type; the String is numeric so it converts to numbers. */
    static final Map<JmsType, Object> SAMPLE = Map.of(
            JmsType.BOOLEAN,
            true,
            JmsType.BYTE,
            (byte) 1,
            JmsType.SHORT,
            (short) 2,
            JmsType.CHAR,
            'c',
            JmsType.INT,
            3,
            JmsType.LONG,
            4L,
            JmsType.FLOAT,
            5.5f,
            JmsType.DOUBLE,
            6.5,
            JmsType.STRING,
            "7",
            JmsType.BYTES,
            new byte[] {8, 9});

    /** Written type -> the types it can be read as (map and stream messages; rows are the spec's). */
    static final Map<JmsType, EnumSet<JmsType>> READABLE_AS = Map.of(
            JmsType.BOOLEAN, of(JmsType.BOOLEAN, JmsType.STRING),
            JmsType.BYTE, of(JmsType.BYTE, JmsType.SHORT, JmsType.INT, JmsType.LONG, JmsType.STRING),
            JmsType.SHORT, of(JmsType.SHORT, JmsType.INT, JmsType.LONG, JmsType.STRING),
            JmsType.CHAR, of(JmsType.CHAR, JmsType.STRING),
            JmsType.INT, of(JmsType.INT, JmsType.LONG, JmsType.STRING),
            JmsType.LONG, of(JmsType.LONG, JmsType.STRING),
            JmsType.FLOAT, of(JmsType.FLOAT, JmsType.DOUBLE, JmsType.STRING),
            JmsType.DOUBLE, of(JmsType.DOUBLE, JmsType.STRING),
            JmsType.STRING,
                    of(
                            JmsType.BOOLEAN,
                            JmsType.BYTE,
                            JmsType.SHORT,
                            JmsType.INT,
                            JmsType.LONG,
                            JmsType.FLOAT,
                            JmsType.DOUBLE,
                            JmsType.STRING),
            JmsType.BYTES, of(JmsType.BYTES));

    /** Properties have neither char nor byte[]. */
    static final Set<JmsType> PROPERTY_TYPES = EnumSet.complementOf(of(JmsType.CHAR, JmsType.BYTES));

    private ConversionTable() {}

    static boolean allowed(JmsType written, JmsType read) {
        return READABLE_AS.get(written).contains(read);
    }

    /** What reading the sample of {@code written} as {@code read} returns, for an allowed pair. */
    static Object expected(JmsType written, JmsType read) {
        Object v = SAMPLE.get(written);
        return switch (read) {
            case BOOLEAN -> v instanceof String s ? Boolean.valueOf(s) : v;
            case BYTE -> v instanceof String s ? Byte.valueOf(s) : v;
            case SHORT -> v instanceof String s ? Short.valueOf(s) : ((Number) v).shortValue();
            case CHAR, BYTES -> v;
            case INT -> v instanceof String s ? Integer.valueOf(s) : ((Number) v).intValue();
            case LONG -> v instanceof String s ? Long.valueOf(s) : ((Number) v).longValue();
            case FLOAT -> v instanceof String s ? Float.valueOf(s) : v;
            case DOUBLE -> v instanceof String s ? Double.valueOf(s) : ((Number) v).doubleValue();
            case STRING -> String.valueOf(v);
        };
    }

    static Stream<Arguments> allPairs() {
        return pairs(EnumSet.allOf(JmsType.class));
    }

    static Stream<Arguments> propertyPairs() {
        return pairs(PROPERTY_TYPES);
    }

    private static Stream<Arguments> pairs(Set<JmsType> types) {
        return types.stream().flatMap(w -> types.stream().map(r -> Arguments.of(w, r)));
    }
}
