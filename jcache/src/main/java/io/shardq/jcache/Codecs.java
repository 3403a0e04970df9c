package io.shardq.jcache;

import io.shardq.broker.kv.Codec;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * How JCache keys and values become bytes: {@code String} as UTF-8 (readable in psql, and the
 * common key type), everything else by Java serialisation read behind the engine's allow-list
 * filter. Why serialisation and not JSON: JCache and Spring's {@code @Cacheable} store arbitrary
 * objects under {@code Object} types, and a JSON codec needs the class to decode into; the
 * reference implementation and Ehcache copy values by serialisation too.
 */
final class Codecs {
    private Codecs() {}

    /** Refuses a type that cannot be stored by value: neither String nor Serializable. */
    static void check(String cache, Class<?> type, String what) {
        if (type == null) {
            throw new NullPointerException(what + " type");
        }
        if (type == String.class || type == Object.class || type.isInterface() || type.isPrimitive()) {
            return;
        }
        if (!Serializable.class.isAssignableFrom(type)) {
            throw new IllegalArgumentException("cache \"" + cache + "\": the " + what + " type " + type.getName()
                    + " is not Serializable: ShardQ stores entries by value in PostgreSQL, as UTF-8 for String"
                    + " and by Java serialisation for anything else");
        }
    }

    @SuppressWarnings("unchecked")
    static <T> Codec<T> forType(Class<T> type, List<String> allowed) {
        if (type == String.class) {
            return (Codec<T>) Codec.utf8();
        }
        List<String> all = new ArrayList<>(allowed);
        if (type != Object.class) {
            all.add(type.getName());
        }
        return Codec.serialized(type, all, Codec.SerialLimits.DEFAULTS);
    }
}
