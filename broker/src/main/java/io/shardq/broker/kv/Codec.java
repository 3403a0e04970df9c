package io.shardq.broker.kv;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * How a key or value of a {@link KvCache} is turned into the bytes stored in PostgreSQL and back.
 * Encoding runs before anything is written, so a value a codec refuses never reaches the
 * database; a failure throws {@link io.shardq.broker.ShardQException} of kind {@code
 * INVALID_ARGUMENT} naming the cache and the problem. Implementations must be thread-safe and
 * deterministic for keys (equal keys, equal bytes: the key's bytes are its identity).
 */
public interface Codec<T> {
    byte[] encode(T value);

    T decode(byte[] bytes);

    /** What this codec is, for error messages ({@code "UTF-8 string"}, {@code "JSON Foo"}). */
    default String describe() {
        return getClass().getSimpleName();
    }

    /** The bytes as they are (copied in and out, so callers may reuse their arrays). */
    static Codec<byte[]> bytes() {
        return new Codec<>() {
            @Override
            public byte[] encode(byte[] value) {
                return Arrays.copyOf(value, value.length);
            }

            @Override
            public byte[] decode(byte[] bytes) {
                return bytes;
            }

            @Override
            public String describe() {
                return "bytes";
            }
        };
    }

    /** Strings as UTF-8; a string with an unpaired surrogate (not valid UTF-8) is refused. */
    static Codec<String> utf8() {
        return new Codec<>() {
            @Override
            public byte[] encode(String value) {
                // only a lone surrogate cannot be encoded: without any surrogate, String's own
                // encoder is exact and several times cheaper than a CharsetEncoder (a key is
                // encoded on every get)
                for (int i = 0; i < value.length(); i++) {
                    if (Character.isSurrogate(value.charAt(i))) {
                        return strict(value);
                    }
                }
                return value.getBytes(StandardCharsets.UTF_8);
            }

            /** Surrogates: pairs are encoded, a lone one is refused. */
            private byte[] strict(String value) {
                try {
                    ByteBuffer b = StandardCharsets.UTF_8
                            .newEncoder()
                            .onMalformedInput(CodingErrorAction.REPORT)
                            .onUnmappableCharacter(CodingErrorAction.REPORT)
                            .encode(java.nio.CharBuffer.wrap(value));
                    return Arrays.copyOf(b.array(), b.limit());
                } catch (CharacterCodingException e) {
                    throw new IllegalArgumentException("the string is not valid Unicode (" + e.getMessage() + ")", e);
                }
            }

            @Override
            public String decode(byte[] bytes) {
                return new String(bytes, StandardCharsets.UTF_8);
            }

            @Override
            public String describe() {
                return "UTF-8 string";
            }
        };
    }

    /** Values of {@code type} as JSON, by a default Jackson {@link ObjectMapper}. */
    static <T> Codec<T> json(Class<T> type) {
        return json(new ObjectMapper(), type);
    }

    /** Values of {@code type} as JSON, by {@code mapper} (configured by the caller; thread-safe). */
    static <T> Codec<T> json(ObjectMapper mapper, Class<T> type) {
        return new JsonCodec<>(mapper, type);
    }

    /**
     * Java serialisation, only of the classes {@code allowed} names ({@code com.example.Price},
     * {@code com.example.*} for a package, {@code com.example.**} with its subpackages; arrays and
     * primitives of allowed types pass, as do {@code java.lang} boxes, {@code String} and the
     * usual {@code java.util} collections) and within the limits. Anything else is refused when
     * it is read, naming the class, before it is instantiated.
     */
    static <T> Codec<T> serialized(Class<T> type, List<String> allowed, SerialLimits limits) {
        return new SerialCodec<>(type, allowed, limits);
    }

    /** Limits on a serialised value: object graph depth, references, stream bytes. */
    record SerialLimits(int maxDepth, long maxReferences, long maxBytes) {
        public static final SerialLimits DEFAULTS = new SerialLimits(20, 10_000, 1 << 20);
    }
}
