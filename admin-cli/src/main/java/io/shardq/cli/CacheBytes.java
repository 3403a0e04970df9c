package io.shardq.cli;

import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import picocli.CommandLine.Option;

/**
 * How the cache commands turn the keys and values typed (or read) into the bytes stored, and
 * back: UTF-8 text by default, so a key typed here is the key an application using {@code
 * Codec.utf8()} reads; base64 with {@code --base64}, for binary keys and values.
 */
final class CacheBytes {
    @Option(
            names = "--base64",
            description = "keys and values are base64 (standard alphabet) on the command line and in the output,"
                    + " for binary data; default: UTF-8 text")
    boolean base64;

    /** The bytes of {@code text}, a key or value given by the user ({@code what} names it in errors). */
    byte[] encode(String what, String text) {
        if (base64) {
            try {
                return Base64.getDecoder().decode(text.strip());
            } catch (IllegalArgumentException e) {
                throw new ShardQException(
                        ErrorKind.INVALID_ARGUMENT,
                        what + " \"" + cut(text) + "\" is not base64 (--base64): " + e.getMessage());
            }
        }
        return utf8(what, text);
    }

    /** The stored bytes as the user reads them: UTF-8 text, or base64 with --base64. */
    String decode(String what, byte[] bytes) {
        if (base64) {
            return Base64.getEncoder().encodeToString(bytes);
        }
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new ShardQException(
                    ErrorKind.INVALID_ARGUMENT,
                    what + " is not UTF-8 text (" + Format.count(bytes.length) + " bytes): read it with --base64");
        }
    }

    /** Strict UTF-8: a string that is not valid Unicode (an unpaired surrogate) is refused, not mangled. */
    static byte[] utf8(String what, String text) {
        try {
            ByteBuffer b = StandardCharsets.UTF_8
                    .newEncoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .encode(CharBuffer.wrap(text));
            return Arrays.copyOf(b.array(), b.limit());
        } catch (CharacterCodingException e) {
            throw new ShardQException(
                    ErrorKind.INVALID_ARGUMENT, what + " \"" + cut(text) + "\" is not valid Unicode text");
        }
    }

    static String cut(String s) {
        return s.length() <= 60 ? s : s.substring(0, 57) + "...";
    }
}
