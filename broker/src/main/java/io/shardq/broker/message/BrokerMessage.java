package io.shardq.broker.message;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A message as the engine stores and delivers it. No JMS types: the JMS layer translates.
 *
 * <p>{@code properties} values are limited to Boolean, Byte, Short, Integer, Long, Float, Double
 * and String (the JMS property types). {@code body} is opaque bytes whose meaning depends on
 * {@code bodyType}; the engine never looks inside it.
 *
 * @param messageId stable id, e.g. {@code ID:...}; null when the producer disabled ids
 * @param bodyType which kind of body (see {@link BodyType})
 * @param timestamp send time, epoch millis (0 when disabled)
 * @param correlationId JMSCorrelationID or null
 * @param type JMSType or null
 * @param replyTo destination name for replies, or null (encoded by the JMS layer)
 * @param priority 0..9
 * @param expiration epoch millis after which the message is dropped, 0 = never
 * @param deliverAt epoch millis before which the message is not delivered, 0 = at once
 * @param persistent false: kept in memory only, never written to PostgreSQL
 * @param properties application and provider properties
 * @param body body bytes (may be empty, never null)
 */
public record BrokerMessage(
        String messageId,
        BodyType bodyType,
        long timestamp,
        String correlationId,
        String type,
        String replyTo,
        int priority,
        long expiration,
        long deliverAt,
        boolean persistent,
        Map<String, Object> properties,
        byte[] body) {

    public BrokerMessage {
        Objects.requireNonNull(bodyType, "bodyType");
        properties = properties == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(properties));
        body = body == null ? new byte[0] : body;
        if (priority < 0 || priority > 9) {
            throw new IllegalArgumentException("priority " + priority + " is out of range: expected 0..9");
        }
    }

    /** A copy with one more property (used e.g. to record a dead-letter reason). */
    public BrokerMessage withProperty(String name, Object value) {
        Map<String, Object> p = new LinkedHashMap<>(properties);
        p.put(name, value);
        return new BrokerMessage(
                messageId,
                bodyType,
                timestamp,
                correlationId,
                type,
                replyTo,
                priority,
                expiration,
                deliverAt,
                persistent,
                p,
                body);
    }

    /** Approximate heap footprint, used to bound the message cache in bytes. */
    public int estimatedSize() {
        int size = 96 + body.length;
        for (Map.Entry<String, Object> e : properties.entrySet()) {
            size += 48 + e.getKey().length() * 2 + (e.getValue() instanceof String s ? s.length() * 2 : 16);
        }
        if (messageId != null) {
            size += 40 + messageId.length() * 2;
        }
        return size;
    }

    /** The kind of body, so the JMS layer can rebuild the right message type. */
    public enum BodyType {
        /** {@code Message}: no body. */
        NONE(0),
        TEXT(1),
        BYTES(2),
        MAP(3),
        STREAM(4),
        OBJECT(5);

        private final int code;

        BodyType(int code) {
            this.code = code;
        }

        public int code() {
            return code;
        }

        public static BodyType ofCode(int code) {
            for (BodyType t : values()) {
                if (t.code == code) {
                    return t;
                }
            }
            throw new IllegalArgumentException("unknown body type code " + code);
        }
    }
}
