package io.shardq.broker.testing;

import io.shardq.broker.message.BrokerMessage;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/** Message factories for engine tests. */
public final class Messages {
    private Messages() {}

    public static BrokerMessage text(String text) {
        return text(text, Map.of());
    }

    public static BrokerMessage text(String text, Map<String, Object> properties) {
        return new BrokerMessage(
                "ID:" + java.util.UUID.randomUUID(),
                BrokerMessage.BodyType.TEXT,
                System.currentTimeMillis(),
                null,
                null,
                null,
                4,
                0,
                0,
                true,
                properties,
                text.getBytes(StandardCharsets.UTF_8));
    }

    /** A persistent text message expiring at {@code expiration} and due at {@code deliverAt} (epoch ms, 0: never, now). */
    public static BrokerMessage text(String text, long expiration, long deliverAt) {
        BrokerMessage m = text(text);
        return new BrokerMessage(
                m.messageId(),
                m.bodyType(),
                m.timestamp(),
                null,
                null,
                null,
                4,
                expiration,
                deliverAt,
                true,
                Map.of(),
                m.body());
    }

    /** A persistent text message of priority {@code priority} (0..9). */
    public static BrokerMessage text(String text, int priority) {
        BrokerMessage m = text(text);
        return new BrokerMessage(
                m.messageId(), m.bodyType(), m.timestamp(), null, null, null, priority, 0, 0, true, Map.of(), m.body());
    }

    public static BrokerMessage nonPersistent(String text) {
        BrokerMessage m = text(text);
        return new BrokerMessage(
                m.messageId(), m.bodyType(), m.timestamp(), null, null, null, 4, 0, 0, false, Map.of(), m.body());
    }

    /** A bytes message with this body. */
    public static BrokerMessage bytes(byte[] body) {
        return bytes("ID:" + java.util.UUID.randomUUID(), Map.of(), body);
    }

    /** A bytes message with this id, properties and body. */
    public static BrokerMessage bytes(String id, Map<String, Object> properties, byte[] body) {
        return new BrokerMessage(
                id,
                BrokerMessage.BodyType.BYTES,
                System.currentTimeMillis(),
                null,
                null,
                null,
                4,
                0,
                0,
                true,
                properties,
                body);
    }

    public static String body(BrokerMessage m) {
        return new String(m.body(), StandardCharsets.UTF_8);
    }
}
