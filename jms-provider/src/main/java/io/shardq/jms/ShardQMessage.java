package io.shardq.jms;

import io.shardq.broker.message.BrokerMessage;
import jakarta.jms.DeliveryMode;
import jakarta.jms.Destination;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageFormatException;
import jakarta.jms.MessageNotWriteableException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A message without a body, and the base of the other ShardQ message types: the JMS header fields,
 * the properties and acknowledgement.
 *
 * <p>Property values are Boolean, Byte, Short, Integer, Long, Float, Double or String and read with
 * the conversions of the Jakarta Messaging spec (section 3.5.4): a String converts to any type by
 * its {@code valueOf}; an integral type widens; a float widens to double; anything converts to
 * String. Reading a missing property behaves as {@code valueOf(null)}: {@code false} for boolean,
 * {@code null} for String, a {@link NumberFormatException} for byte, short, int and long, and a
 * {@link NullPointerException} for float and double. Other conversions throw {@link
 * MessageFormatException}. Setting a property to null removes it.
 *
 * <p>A received message has read-only properties and body: setting them throws {@link
 * MessageNotWriteableException} until {@link #clearProperties()} or {@link #clearBody()}. Header
 * fields stay settable. Like every JMS message, not thread-safe.
 */
public class ShardQMessage implements Message {
    /** Set by the provider on delivery: how many times this message has been delivered, 1 first. */
    static final String JMSX_DELIVERY_COUNT = "JMSXDeliveryCount";

    static final String JMSX_GROUP_ID = "JMSXGroupID";
    static final String JMSX_GROUP_SEQ = "JMSXGroupSeq";

    /**
     * A producer's {@code java.io.InputStream} that the send reads the body from, streamed into
     * PostgreSQL in chunks (BytesMessage only, as Artemis' {@code JMS_AMQ_InputStream}).
     */
    static final String INPUT_STREAM = "JMS_ShardQ_InputStream";
    /**
     * A consumer's {@code java.io.OutputStream} that the whole body of a received BytesMessage is
     * written to when the property is set; blocks until it is written (Artemis' {@code
     * JMS_AMQ_SaveStream}).
     */
    static final String SAVE_STREAM = "JMS_ShardQ_SaveStream";
    /** Artemis' non-blocking {@code JMS_AMQ_OutputStream}: refused, see {@link ShardQBytesMessage}. */
    static final String OUTPUT_STREAM = "JMS_ShardQ_OutputStream";

    private static final Set<String> STREAM_PROPERTIES = Set.of(INPUT_STREAM, SAVE_STREAM, OUTPUT_STREAM);

    /** JMSX properties the provider sets; clients may set only JMSXGroupID and JMSXGroupSeq. */
    /** The sending connection's user, set by the provider on send (JMS 3.1, 3.5.9). */
    static final String JMSX_USER_ID = "JMSXUserID";

    private static final Set<String> PROVIDER_JMSX = Set.of(
            JMSX_DELIVERY_COUNT,
            JMSX_USER_ID,
            "JMSXAppID",
            "JMSXProducerTXID",
            "JMSXConsumerTXID",
            "JMSXRcvTimestamp",
            "JMSXState");

    /** Selector keywords, which cannot be property names (compared ignoring case). */
    private static final Set<String> RESERVED_NAMES =
            Set.of("NULL", "TRUE", "FALSE", "NOT", "AND", "OR", "BETWEEN", "LIKE", "IN", "IS", "ESCAPE");

    private String messageId;
    private long timestamp;
    private String correlationId;
    private Destination replyTo;
    private Destination destination;
    private int deliveryMode = DeliveryMode.PERSISTENT;
    private boolean redelivered;
    private String type;
    private long expiration;
    private long deliveryTime;
    private int priority = Message.DEFAULT_PRIORITY;

    private final Map<String, Object> properties = new LinkedHashMap<>();
    private boolean propertiesReadOnly;
    /** For bytes and stream messages also the mode: true = read mode, false = write mode. */
    boolean bodyReadOnly;

    private Acknowledger acknowledger;

    ShardQMessage() {}

    // ---------------------------------------------------------------- headers

    @Override
    public String getJMSMessageID() {
        return messageId;
    }

    @Override
    public void setJMSMessageID(String id) {
        this.messageId = id;
    }

    @Override
    public long getJMSTimestamp() {
        return timestamp;
    }

    @Override
    public void setJMSTimestamp(long timestamp) {
        this.timestamp = timestamp;
    }

    /**
     * The correlation id as bytes. Set as bytes, the same bytes come back, also after a round trip
     * through the broker (they travel as a String of ISO-8859-1 characters, one per byte). Set as a
     * String, its ISO-8859-1 bytes when every character fits in one byte, else its UTF-8 bytes.
     */
    @Override
    public byte[] getJMSCorrelationIDAsBytes() {
        if (correlationId == null) {
            return null;
        }
        boolean latin1 = correlationId.chars().allMatch(c -> c <= 0xFF);
        return correlationId.getBytes(latin1 ? StandardCharsets.ISO_8859_1 : StandardCharsets.UTF_8);
    }

    @Override
    public void setJMSCorrelationIDAsBytes(byte[] correlationID) {
        this.correlationId = correlationID == null ? null : new String(correlationID, StandardCharsets.ISO_8859_1);
    }

    @Override
    public void setJMSCorrelationID(String correlationID) {
        this.correlationId = correlationID;
    }

    @Override
    public String getJMSCorrelationID() {
        return correlationId;
    }

    @Override
    public Destination getJMSReplyTo() {
        return replyTo;
    }

    @Override
    public void setJMSReplyTo(Destination replyTo) {
        this.replyTo = replyTo;
    }

    @Override
    public Destination getJMSDestination() {
        return destination;
    }

    @Override
    public void setJMSDestination(Destination destination) {
        this.destination = destination;
    }

    @Override
    public int getJMSDeliveryMode() {
        return deliveryMode;
    }

    @Override
    public void setJMSDeliveryMode(int deliveryMode) {
        this.deliveryMode = deliveryMode;
    }

    @Override
    public boolean getJMSRedelivered() {
        return redelivered;
    }

    @Override
    public void setJMSRedelivered(boolean redelivered) {
        this.redelivered = redelivered;
    }

    @Override
    public String getJMSType() {
        return type;
    }

    @Override
    public void setJMSType(String type) {
        this.type = type;
    }

    @Override
    public long getJMSExpiration() {
        return expiration;
    }

    @Override
    public void setJMSExpiration(long expiration) {
        this.expiration = expiration;
    }

    @Override
    public long getJMSDeliveryTime() {
        return deliveryTime;
    }

    @Override
    public void setJMSDeliveryTime(long deliveryTime) {
        this.deliveryTime = deliveryTime;
    }

    @Override
    public int getJMSPriority() {
        return priority;
    }

    @Override
    public void setJMSPriority(int priority) {
        this.priority = priority;
    }

    // ---------------------------------------------------------------- properties

    /** Removes every property, JMSX ones included, and makes the properties writable. */
    @Override
    public void clearProperties() {
        properties.clear();
        propertiesReadOnly = false;
    }

    @Override
    public boolean propertyExists(String name) {
        return properties.containsKey(name);
    }

    @Override
    public boolean getBooleanProperty(String name) throws JMSException {
        return Conversions.toBoolean(properties.get(name), "property", name);
    }

    @Override
    public byte getByteProperty(String name) throws JMSException {
        return Conversions.toByte(properties.get(name), "property", name);
    }

    @Override
    public short getShortProperty(String name) throws JMSException {
        return Conversions.toShort(properties.get(name), "property", name);
    }

    @Override
    public int getIntProperty(String name) throws JMSException {
        return Conversions.toInt(properties.get(name), "property", name);
    }

    @Override
    public long getLongProperty(String name) throws JMSException {
        return Conversions.toLong(properties.get(name), "property", name);
    }

    @Override
    public float getFloatProperty(String name) throws JMSException {
        return Conversions.toFloat(properties.get(name), "property", name);
    }

    @Override
    public double getDoubleProperty(String name) throws JMSException {
        return Conversions.toDouble(properties.get(name), "property", name);
    }

    @Override
    public String getStringProperty(String name) throws JMSException {
        return Conversions.toText(properties.get(name), "property", name);
    }

    @Override
    public Object getObjectProperty(String name) {
        return properties.get(name);
    }

    /** The names of the properties, JMSX ones included; header fields are not properties. */
    @Override
    public Enumeration<String> getPropertyNames() {
        return Collections.enumeration(new ArrayList<>(properties.keySet()));
    }

    @Override
    public void setBooleanProperty(String name, boolean value) throws JMSException {
        setProperty(name, value);
    }

    @Override
    public void setByteProperty(String name, byte value) throws JMSException {
        setProperty(name, value);
    }

    @Override
    public void setShortProperty(String name, short value) throws JMSException {
        setProperty(name, value);
    }

    @Override
    public void setIntProperty(String name, int value) throws JMSException {
        setProperty(name, value);
    }

    @Override
    public void setLongProperty(String name, long value) throws JMSException {
        setProperty(name, value);
    }

    @Override
    public void setFloatProperty(String name, float value) throws JMSException {
        setProperty(name, value);
    }

    @Override
    public void setDoubleProperty(String name, double value) throws JMSException {
        setProperty(name, value);
    }

    @Override
    public void setStringProperty(String name, String value) throws JMSException {
        setProperty(name, value);
    }

    /**
     * Sets a property from a Boolean, Byte, Short, Integer, Long, Float, Double or String; null
     * removes the property.
     *
     * @throws MessageFormatException for any other class
     */
    @Override
    public void setObjectProperty(String name, Object value) throws JMSException {
        if (name != null && STREAM_PROPERTIES.contains(name)) {
            streamProperty(name, value); // a received message's body may be saved: not a property write
            return;
        }
        checkPropertiesWritable();
        checkPropertyName(name);
        if (value != null && !isPropertyType(value)) {
            throw new MessageFormatException("property \"" + name + "\" cannot hold a "
                    + value.getClass().getName()
                    + ": expected Boolean, Byte, Short, Integer, Long, Float, Double or String");
        }
        setProperty(name, value);
    }

    private void setProperty(String name, Object value) throws JMSException {
        checkPropertiesWritable();
        checkPropertyName(name);
        if (STREAM_PROPERTIES.contains(name)) {
            throw new MessageFormatException("property " + name + " takes a stream, set with setObjectProperty, not a "
                    + (value == null ? "null" : value.getClass().getSimpleName()));
        }
        if (value != null) {
            checkJmsxType(name, value);
            properties.put(name, value);
        } else {
            properties.remove(name);
        }
    }

    /**
     * Sets one of the stream properties ({@link #INPUT_STREAM}, {@link #SAVE_STREAM}, {@link
     * #OUTPUT_STREAM}): only a BytesMessage has them.
     */
    void streamProperty(String name, Object value) throws JMSException {
        throw new MessageFormatException("property " + name + " is for a BytesMessage only, not a " + jmsType()
                + ": only a body of bytes can be streamed");
    }

    /** The Jakarta Messaging interface this message implements, for messages: TextMessage, ... */
    final String jmsType() {
        for (Class<?> i : getClass().getInterfaces()) {
            if (i.getPackageName().equals("jakarta.jms")) {
                return i.getSimpleName();
            }
        }
        return "Message";
    }

    final void checkPropertiesWritable() throws MessageNotWriteableException {
        if (propertiesReadOnly) {
            throw new MessageNotWriteableException(
                    "message properties are read-only: call clearProperties() to change a received message's properties");
        }
    }

    /** Sets a property without the client checks (JMSXDeliveryCount, other JMSX, foreign names). */
    final void setProviderProperty(String name, Object value) {
        if (value == null) {
            properties.remove(name);
        } else {
            properties.put(name, value);
        }
    }

    /** The live property map, for the codec. */
    final Map<String, Object> properties() {
        return properties;
    }

    static boolean isPropertyType(Object value) {
        return value instanceof String
                || value instanceof Integer
                || value instanceof Long
                || value instanceof Boolean
                || value instanceof Double
                || value instanceof Float
                || value instanceof Short
                || value instanceof Byte;
    }

    /**
     * The rules of a selector identifier: a Java identifier, not a selector keyword, and the JMS
     * prefix only for the client-settable JMSX properties and JMS_vendor names.
     */
    static void checkPropertyName(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("property name must not be null or empty");
        }
        if (!isJavaIdentifier(name)) {
            throw new IllegalArgumentException("property name \"" + name
                    + "\" is invalid: expected a Java identifier (a letter, _ or $, then letters, digits, _ or $)");
        }
        if (RESERVED_NAMES.contains(name.toUpperCase(Locale.ROOT))) {
            throw new IllegalArgumentException(
                    "property name \"" + name
                            + "\" is reserved: NULL, TRUE, FALSE, NOT, AND, OR, BETWEEN, LIKE, IN, IS and ESCAPE are selector keywords");
        }
        if (name.startsWith("JMSX")) {
            if (PROVIDER_JMSX.contains(name)) {
                throw new IllegalArgumentException("property \"" + name
                        + "\" is set by the provider: clients may set only JMSXGroupID and JMSXGroupSeq");
            }
            if (!name.equals(JMSX_GROUP_ID) && !name.equals(JMSX_GROUP_SEQ)) {
                throw new IllegalArgumentException("property name \"" + name
                        + "\" is not a defined JMSX property: clients may set only JMSXGroupID and JMSXGroupSeq");
            }
        } else if (name.startsWith("JMS") && !name.startsWith("JMS_")) {
            throw new IllegalArgumentException(
                    "property name \"" + name
                            + "\" is reserved: names starting with JMS are header fields (only JMSX... and JMS_vendor_... properties exist)");
        }
    }

    private static boolean isJavaIdentifier(String name) {
        int first = name.codePointAt(0);
        if (!Character.isJavaIdentifierStart(first) || Character.isIdentifierIgnorable(first)) {
            return false;
        }
        return name.codePoints()
                .skip(1)
                .allMatch(c -> Character.isJavaIdentifierPart(c) && !Character.isIdentifierIgnorable(c));
    }

    private static void checkJmsxType(String name, Object value) throws MessageFormatException {
        if (name.equals(JMSX_GROUP_ID) && !(value instanceof String)) {
            throw new MessageFormatException("property JMSXGroupID must be a String, not a "
                    + value.getClass().getSimpleName());
        }
        if (name.equals(JMSX_GROUP_SEQ) && !(value instanceof Integer)) {
            throw new MessageFormatException("property JMSXGroupSeq must be an int, not a "
                    + value.getClass().getSimpleName());
        }
    }

    // ---------------------------------------------------------------- body

    /** Empties the body and makes it writable (bytes and stream messages: write mode). */
    @Override
    public void clearBody() throws JMSException {
        doClearBody();
        bodyReadOnly = false;
    }

    /** Subclasses drop their body here. */
    void doClearBody() {}

    /** A message without a body: null, whatever the type asked for. */
    @Override
    public <T> T getBody(Class<T> c) throws JMSException {
        return null;
    }

    /** A message without a body can be assigned to any type. */
    @Override
    @SuppressWarnings("rawtypes")
    public boolean isBodyAssignableTo(Class c) throws JMSException {
        return true;
    }

    /** Which {@link BrokerMessage.BodyType} this message type is stored as. */
    BrokerMessage.BodyType bodyType() {
        return BrokerMessage.BodyType.NONE;
    }

    final void checkBodyWritable() throws MessageNotWriteableException {
        if (bodyReadOnly) {
            throw new MessageNotWriteableException("message body is read-only: call clearBody() to write it again");
        }
    }

    /** Makes properties and body read-only, as on a received message. */
    void markReadOnly() {
        propertiesReadOnly = true;
        bodyReadOnly = true;
    }

    static MessageFormatException notAssignable(String bodyType, Class<?> c) {
        return new MessageFormatException(
                "message body of type " + bodyType + " cannot be assigned to " + (c == null ? "null" : c.getName()));
    }

    // ---------------------------------------------------------------- acknowledgement

    /**
     * Acknowledges through the session that delivered this message; does nothing on a message that
     * was not received.
     *
     * @throws jakarta.jms.IllegalStateException when the session is closed
     */
    @Override
    public void acknowledge() throws JMSException {
        Acknowledger a = acknowledger;
        if (a != null) {
            a.acknowledge();
        }
    }

    /** Called by the session on each message it delivers. */
    final void setAcknowledger(Acknowledger acknowledger) {
        this.acknowledger = acknowledger;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + messageId + (destination == null ? "" : ", " + destination) + "]";
    }

    /**
     * The conversion table shared by properties, map items and stream fields (spec section 3.5.4,
     * and the MapMessage and StreamMessage tables, which add char and byte[]). A null value reads
     * as {@code valueOf(null)} of the target type; char has no such method, so a null char is a
     * {@link NullPointerException}.
     */
    static final class Conversions {
        private Conversions() {}

        static boolean toBoolean(Object v, String kind, Object name) throws MessageFormatException {
            if (v instanceof Boolean b) {
                return b;
            }
            if (v == null || v instanceof String) {
                return Boolean.valueOf((String) v);
            }
            throw refused(v, "boolean", kind, name);
        }

        static byte toByte(Object v, String kind, Object name) throws MessageFormatException {
            if (v instanceof Byte b) {
                return b;
            }
            if (v == null || v instanceof String) {
                return Byte.valueOf((String) v);
            }
            throw refused(v, "byte", kind, name);
        }

        static short toShort(Object v, String kind, Object name) throws MessageFormatException {
            if (v instanceof Short || v instanceof Byte) {
                return ((Number) v).shortValue();
            }
            if (v == null || v instanceof String) {
                return Short.valueOf((String) v);
            }
            throw refused(v, "short", kind, name);
        }

        static char toChar(Object v, String kind, Object name) throws MessageFormatException {
            if (v instanceof Character c) {
                return c;
            }
            if (v == null) {
                throw new NullPointerException(kind + " \"" + name + "\" is null, which cannot be read as char");
            }
            throw refused(v, "char", kind, name);
        }

        static int toInt(Object v, String kind, Object name) throws MessageFormatException {
            if (v instanceof Integer || v instanceof Short || v instanceof Byte) {
                return ((Number) v).intValue();
            }
            if (v == null || v instanceof String) {
                return Integer.valueOf((String) v);
            }
            throw refused(v, "int", kind, name);
        }

        static long toLong(Object v, String kind, Object name) throws MessageFormatException {
            if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
                return ((Number) v).longValue();
            }
            if (v == null || v instanceof String) {
                return Long.valueOf((String) v);
            }
            throw refused(v, "long", kind, name);
        }

        static float toFloat(Object v, String kind, Object name) throws MessageFormatException {
            if (v instanceof Float f) {
                return f;
            }
            if (v == null || v instanceof String) {
                return Float.valueOf((String) v);
            }
            throw refused(v, "float", kind, name);
        }

        static double toDouble(Object v, String kind, Object name) throws MessageFormatException {
            if (v instanceof Double || v instanceof Float) {
                return ((Number) v).doubleValue();
            }
            if (v == null || v instanceof String) {
                return Double.valueOf((String) v);
            }
            throw refused(v, "double", kind, name);
        }

        static String toText(Object v, String kind, Object name) throws MessageFormatException {
            if (v instanceof byte[]) {
                throw refused(v, "String", kind, name);
            }
            return v == null ? null : v.toString();
        }

        static byte[] toBytes(Object v, String kind, Object name) throws MessageFormatException {
            if (v == null) {
                return null;
            }
            if (v instanceof byte[] b) {
                return b.clone();
            }
            throw refused(v, "byte[]", kind, name);
        }

        private static MessageFormatException refused(Object v, String target, String kind, Object name) {
            String held = v instanceof byte[] ? "byte[]" : v.getClass().getSimpleName();
            return new MessageFormatException(
                    kind + " \"" + name + "\" holds a " + held + " value, which cannot be read as " + target);
        }
    }
}
