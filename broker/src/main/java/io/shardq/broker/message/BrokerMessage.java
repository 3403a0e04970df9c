package io.shardq.broker.message;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A message as the engine stores and delivers it. No JMS types: the JMS layer translates.
 *
 * <p>{@code properties} values are limited to Boolean, Byte, Short, Integer, Long, Float, Double
 * and String (the JMS property types). The body is opaque bytes whose meaning depends on {@code
 * bodyType}; the engine never looks inside it.
 *
 * <p>The body may be <em>not loaded</em>: the message cache keeps only the metadata of a message
 * whose body is over {@code shardq.cache.large-payload-bytes}, and the dequeue path reads such a
 * body by (slot, seq) only when it delivers the message. {@link #bodySize()} is always known;
 * {@link #body()} of a message whose body is not loaded throws, so a path that forgets to load it
 * fails loudly instead of reading PostgreSQL at a moment when the row may be gone. {@link
 * #withBodyLoaded()} reads it through the message's {@link BodyRef}. Immutable.
 */
public final class BrokerMessage {
    private final String messageId;
    private final BodyType bodyType;
    private final long timestamp;
    private final String correlationId;
    private final String type;
    private final String replyTo;
    private final int priority;
    private final long expiration;
    private final long deliverAt;
    private final boolean persistent;
    private final Map<String, Object> properties;
    /** Null when not loaded. */
    private final byte[] body;

    private final int bodySize;
    /** Where a body that is not loaded can be read; null when loaded or when nobody can read it. */
    private final BodyRef bodyRef;
    /**
     * A stored topic message's subscriber bitmap (bit b = byte b/8, bit b%8), null for a queue's
     * messages and before publishing. Never modified once set.
     */
    private final byte[] subscribers;
    /** A body streamed into chunks of its own (the message's body is then empty); null otherwise. */
    private final StreamedBody streamed;

    /** Reads a body that is not loaded, e.g. one row of a slot by sequence number. */
    @FunctionalInterface
    public interface BodyRef {
        byte[] read();
    }

    /**
     * A message with its body.
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
     * @param body body bytes (null means empty)
     */
    public BrokerMessage(
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
        this(
                checked(messageId, "JMSMessageID"),
                bodyType,
                timestamp,
                checked(correlationId, "JMSCorrelationID"),
                checked(type, "JMSType"),
                checked(replyTo, "JMSReplyTo"),
                priority,
                expiration,
                deliverAt,
                persistent,
                properties == null ? Map.of() : Collections.unmodifiableMap(checked(new LinkedHashMap<>(properties))),
                body == null ? new byte[0] : body,
                body == null ? 0 : body.length,
                null,
                null,
                null);
    }

    private BrokerMessage(
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
            byte[] body,
            int bodySize,
            BodyRef bodyRef,
            byte[] subscribers,
            StreamedBody streamed) {
        Objects.requireNonNull(bodyType, "bodyType");
        if (priority < 0 || priority > 9) {
            throw new IllegalArgumentException("priority " + priority + " is out of range: expected 0..9");
        }
        this.messageId = messageId;
        this.bodyType = bodyType;
        this.timestamp = timestamp;
        this.correlationId = correlationId;
        this.type = type;
        this.replyTo = replyTo;
        this.priority = priority;
        this.expiration = expiration;
        this.deliverAt = deliverAt;
        this.persistent = persistent;
        this.properties = properties;
        this.body = body;
        this.bodySize = bodySize;
        this.bodyRef = bodyRef;
        this.subscribers = subscribers;
        this.streamed = streamed;
    }

    private BrokerMessage with(Map<String, Object> properties, byte[] body, int bodySize, BodyRef bodyRef) {
        return with(properties, body, bodySize, bodyRef, subscribers);
    }

    private BrokerMessage with(
            Map<String, Object> properties, byte[] body, int bodySize, BodyRef bodyRef, byte[] subscribers) {
        return with(properties, body, bodySize, bodyRef, subscribers, expiration);
    }

    private BrokerMessage with(
            Map<String, Object> properties,
            byte[] body,
            int bodySize,
            BodyRef bodyRef,
            byte[] subscribers,
            long expiration) {
        return with(properties, body, bodySize, bodyRef, subscribers, expiration, streamed);
    }

    private BrokerMessage with(
            Map<String, Object> properties,
            byte[] body,
            int bodySize,
            BodyRef bodyRef,
            byte[] subscribers,
            long expiration,
            StreamedBody streamed) {
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
                properties,
                body,
                bodySize,
                bodyRef,
                subscribers,
                streamed);
    }

    /**
     * A copy with one more property (used e.g. to record a dead-letter reason). The copy carries
     * the body: a body not loaded yet is read now.
     */
    private static String checked(String s, String what) {
        Texts.requireEncodable(s, what);
        return s;
    }

    /** Property names and string values that can be stored (see {@link Texts}). */
    private static <M extends Map<String, Object>> M checked(M properties) {
        for (Map.Entry<String, Object> e : properties.entrySet()) {
            String name = e.getKey();
            if (name == null || name.isEmpty()) {
                throw new IllegalArgumentException("a property name must not be null or empty");
            }
            if (name.length() > Texts.MAX_NAME) {
                throw new IllegalArgumentException(
                        "property name \"" + Texts.quote(name) + "\" is longer than " + Texts.MAX_NAME + " characters");
            }
            Texts.requireEncodable(name, "property name \"" + Texts.quote(name) + "\"");
            Object v = e.getValue();
            if (v instanceof String text) {
                Texts.requireEncodable(text, "the value of property \"" + Texts.quote(name) + "\"");
            } else if (!(v instanceof Boolean
                    || v instanceof Byte
                    || v instanceof Short
                    || v instanceof Integer
                    || v instanceof Long
                    || v instanceof Float
                    || v instanceof Double)) {
                throw new IllegalArgumentException("property \"" + Texts.quote(name) + "\" has unsupported type "
                        + (v == null ? "null" : v.getClass().getName())
                        + ": expected boolean, byte, short, int, long, float, double or String");
            }
        }
        return properties;
    }

    public BrokerMessage withProperty(String name, Object value) {
        BrokerMessage loaded = withBodyLoaded();
        Map<String, Object> p = new LinkedHashMap<>(properties);
        p.put(name, value);
        return loaded.with(Collections.unmodifiableMap(p), loaded.body, bodySize, null);
    }

    /** A copy holding only the metadata (what the cache keeps of a large message). */
    /** This message without an expiration (an expired message kept in an expiry queue must not expire there). */
    public BrokerMessage withoutExpiration() {
        return with(properties, body, bodySize, bodyRef, subscribers, 0);
    }

    public BrokerMessage withoutBody() {
        return body == null && bodyRef == null ? this : with(properties, null, bodySize, null);
    }

    /** A copy whose body, of {@code bodySize} bytes, is not loaded and is read from {@code ref}. */
    public BrokerMessage withBodyRef(int bodySize, BodyRef ref) {
        return with(properties, null, bodySize, Objects.requireNonNull(ref, "ref"));
    }

    /** This message if its body is loaded, else a copy with the body read through its reference. */
    public BrokerMessage withBodyLoaded() {
        if (body != null) {
            return this;
        }
        if (bodyRef == null) {
            throw new IllegalStateException("the body of message " + messageId + " is not loaded and has no reference");
        }
        byte[] b = Objects.requireNonNull(bodyRef.read(), "body");
        return with(properties, b, b.length, null);
    }

    /**
     * A copy whose body is the streamed body {@code body} (its own body is then empty): what the
     * engine makes of a send with an {@code InputStream} once the chunks are written, and what it
     * decodes from a stored row. Null makes an ordinary empty body.
     */
    public BrokerMessage withStreamedBody(StreamedBody body) {
        return with(properties, new byte[0], 0, null, subscribers, expiration, body);
    }

    /** The streamed body, or null when the body is an ordinary one ({@link #body()}). */
    public StreamedBody streamedBody() {
        return streamed;
    }

    /**
     * A copy carrying a topic's subscriber bitmap (the engine sets it at publish; the array is
     * not copied and must not be changed afterwards).
     */
    public BrokerMessage withSubscribers(byte[] bitmap) {
        return with(properties, body, bodySize, bodyRef, bitmap);
    }

    /** True when this stored topic message is for the subscription with bit {@code bit}. */
    public boolean hasSubscriber(int bit) {
        byte[] b = subscribers;
        return b != null && bit >> 3 < b.length && (b[bit >> 3] & (1 << (bit & 7))) != 0;
    }

    /** The subscriber bitmap as stored (null for a queue's messages); do not change it. */
    public byte[] subscribersBytes() {
        return subscribers;
    }

    /** The subscriber bitmap's length in bytes (0 for a queue's messages). */
    public int subscribersSize() {
        return subscribers == null ? 0 : subscribers.length;
    }

    /** True when {@link #body()} can be called. */
    public boolean bodyLoaded() {
        return body != null;
    }

    /** Length of the body in bytes, loaded or not. */
    public int bodySize() {
        return bodySize;
    }

    /**
     * The body bytes (empty, never null).
     *
     * @throws IllegalStateException if the body is not loaded (see {@link #withBodyLoaded()})
     */
    public byte[] body() {
        if (body == null) {
            throw new IllegalStateException("the body of message " + messageId + " (" + bodySize
                    + " bytes) is not loaded: call withBodyLoaded() first");
        }
        return body;
    }

    public String messageId() {
        return messageId;
    }

    public BodyType bodyType() {
        return bodyType;
    }

    public long timestamp() {
        return timestamp;
    }

    public String correlationId() {
        return correlationId;
    }

    public String type() {
        return type;
    }

    public String replyTo() {
        return replyTo;
    }

    public int priority() {
        return priority;
    }

    public long expiration() {
        return expiration;
    }

    public long deliverAt() {
        return deliverAt;
    }

    public boolean persistent() {
        return persistent;
    }

    public Map<String, Object> properties() {
        return properties;
    }

    /** Approximate heap footprint (a body that is not loaded counts nothing), to bound the cache. */
    public int estimatedSize() {
        // the subscriber bitmap is left out: a non-persistent message's room is reserved before it is stamped
        int size = 96 + (body == null ? 0 : body.length);
        for (Map.Entry<String, Object> e : properties.entrySet()) {
            size += 48 + e.getKey().length() * 2 + (e.getValue() instanceof String s ? s.length() * 2 : 16);
        }
        if (messageId != null) {
            size += 40 + messageId.length() * 2;
        }
        return size;
    }

    @Override
    public String toString() {
        return "BrokerMessage[" + messageId + ", " + bodyType + ", " + bodySize + " bytes"
                + (body == null ? " not loaded" : "")
                + (streamed == null ? "" : ", streamed body " + streamed.id() + " of " + streamed.size() + " bytes")
                + ", priority " + priority + ", properties " + properties.keySet()
                + "]";
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
