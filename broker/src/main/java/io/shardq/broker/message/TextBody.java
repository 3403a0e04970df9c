package io.shardq.broker.message;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * How the body of a {@link BrokerMessage.BodyType#TEXT} message is stored, in one place for the
 * JMS layer (TextMessage) and the admin CLI (JSON files, browse previews): the UTF-8 bytes of the
 * text; a null text is the single byte {@code 0xFF}, which never occurs in UTF-8, so an empty
 * body is the empty string. The engine itself never looks inside a body. Stored messages outlive
 * releases: a change needs a new body type.
 */
public final class TextBody {
    /** The whole body of a null text. */
    private static final byte NULL_TEXT = (byte) 0xFF;

    private TextBody() {}

    public static byte[] encode(String text) {
        Texts.requireEncodable(text, "the text of a TextMessage");
        return text == null ? new byte[] {NULL_TEXT} : text.getBytes(StandardCharsets.UTF_8);
    }

    /** The text; null for a null text. Bytes that are not UTF-8 become U+FFFD. */
    public static String decode(byte[] body) {
        return isNull(body) ? null : new String(body, StandardCharsets.UTF_8);
    }

    public static boolean isNull(byte[] body) {
        return body.length == 1 && body[0] == NULL_TEXT;
    }

    /** The text if {@code body} is a null text's or valid UTF-8 ({@code null} for a null text); else throws. */
    public static String decodeStrict(byte[] body) throws CharacterCodingException {
        if (isNull(body)) {
            return null;
        }
        return StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(ByteBuffer.wrap(body))
                .toString();
    }
}
