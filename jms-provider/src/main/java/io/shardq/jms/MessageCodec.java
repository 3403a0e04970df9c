package io.shardq.jms;

import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.message.BrokerMessage.BodyType;
import io.shardq.broker.message.TextBody;
import jakarta.jms.BytesMessage;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSException;
import jakarta.jms.MapMessage;
import jakarta.jms.Message;
import jakarta.jms.MessageEOFException;
import jakarta.jms.MessageFormatException;
import jakarta.jms.ObjectMessage;
import jakarta.jms.StreamMessage;
import jakarta.jms.TextMessage;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Translates between JMS messages and the engine's {@link BrokerMessage}.
 *
 * <p>Headers: JMSDeliveryMode is {@code persistent}, JMSDeliveryTime is {@code deliverAt},
 * JMSExpiration is {@code expiration}, JMSReplyTo is {@code replyTo} as {@code queue:NAME} or
 * {@code topic:NAME}. JMSDestination, JMSRedelivered and JMSXDeliveryCount are not stored: the
 * consumer knows them at delivery.
 *
 * <p>Bodies, by {@link BodyType}:
 *
 * <ul>
 *   <li>NONE: empty.
 *   <li>TEXT: {@link TextBody} (the UTF-8 bytes; a null text is the single byte {@code 0xFF}), shared
 *       with the admin CLI.
 *   <li>BYTES: the bytes as written.
 *   <li>MAP and STREAM: version byte {@code 1}, an int count, then per entry (MAP: the name as a
 *       string first) a one-byte type tag and the value in {@link DataOutputStream} form; a string
 *       is an int byte length and UTF-8, a byte[] an int length and the bytes, null just its tag.
 *   <li>OBJECT: Java serialisation of the object; empty for null.
 * </ul>
 *
 * <p>Changing an encoding means a new version byte or body type: stored messages outlive releases.
 */
final class MessageCodec {
    private static final byte TYPED_VERSION = 1;

    private static final byte TAG_NULL = 0;
    private static final byte TAG_BOOLEAN = 1;
    private static final byte TAG_BYTE = 2;
    private static final byte TAG_SHORT = 3;
    private static final byte TAG_CHAR = 4;
    private static final byte TAG_INT = 5;
    private static final byte TAG_LONG = 6;
    private static final byte TAG_FLOAT = 7;
    private static final byte TAG_DOUBLE = 8;
    private static final byte TAG_STRING = 9;
    private static final byte TAG_BYTES = 10;

    /** Properties that describe one delivery, so are not sent on when a received message is sent. */
    private static final Set<String> DELIVERY_PROPERTIES =
            Set.of(ShardQMessage.JMSX_DELIVERY_COUNT, "JMSXRcvTimestamp", "JMSXConsumerTXID", "JMSXState");

    private MessageCodec() {}

    /**
     * The message as the engine stores it. A ShardQ message is read directly, in whatever mode its
     * body is; another provider's message is copied through the JMS API (its BytesMessage or
     * StreamMessage is reset, read, and reset again).
     *
     * @throws MessageFormatException when a property or map value has a type JMS does not allow,
     *     the priority is outside 0..9, or an object body cannot be serialised
     */
    static BrokerMessage toBroker(Message m) throws JMSException {
        return toBroker(m, null);
    }

    /**
     * As {@link #toBroker(Message)}, with {@code JMSXUserID} the sending connection's user: set when
     * there is one, removed when there is none (a message sent on never carries another sender's).
     */
    static BrokerMessage toBroker(Message m, String userId) throws JMSException {
        BodyType bodyType;
        byte[] body;
        Map<String, Object> properties = new LinkedHashMap<>();
        if (m instanceof ShardQMessage s) {
            bodyType = s.bodyType();
            body = bodyOf(s);
            properties.putAll(s.properties());
            properties.keySet().removeAll(DELIVERY_PROPERTIES);
        } else {
            bodyType = bodyTypeOf(m);
            body = foreignBody(m, bodyType);
            for (Object n : Collections.list(m.getPropertyNames())) {
                String name = String.valueOf(n);
                Object value = m.getObjectProperty(name);
                if (value == null || DELIVERY_PROPERTIES.contains(name)) {
                    continue;
                }
                if (!ShardQMessage.isPropertyType(value)) {
                    throw new MessageFormatException("property \"" + name + "\" of message " + m.getJMSMessageID()
                            + " holds a " + value.getClass().getName()
                            + ": expected Boolean, Byte, Short, Integer, Long, Float, Double or String");
                }
                properties.put(name, value);
            }
        }
        properties.remove(ShardQMessage.JMSX_USER_ID);
        if (userId != null) {
            properties.put(ShardQMessage.JMSX_USER_ID, userId);
        }
        int priority = m.getJMSPriority();
        if (priority < 0 || priority > 9) {
            throw new MessageFormatException("JMSPriority " + priority + " is out of range: expected 0..9");
        }
        return new BrokerMessage(
                m.getJMSMessageID(),
                bodyType,
                m.getJMSTimestamp(),
                m.getJMSCorrelationID(),
                m.getJMSType(),
                ShardQDestination.encode(m.getJMSReplyTo()),
                priority,
                m.getJMSExpiration(),
                m.getJMSDeliveryTime(),
                m.getJMSDeliveryMode() != DeliveryMode.NON_PERSISTENT,
                properties,
                body);
    }

    /** {@link #fromBroker(BrokerMessage, ShardQDestination, int, ObjectMessageAllowList)} with the default allow-list. */
    static ShardQMessage fromBroker(BrokerMessage bm, ShardQDestination destination, int deliveryCount)
            throws JMSException {
        return fromBroker(bm, destination, deliveryCount, ObjectMessageAllowList.defaults());
    }

    /**
     * The message as a consumer receives it: the subtype for the body type, JMSDestination set,
     * JMSRedelivered when {@code deliveryCount > 1}, JMSXDeliveryCount, body and properties
     * read-only (bytes and stream bodies in read mode). The body bytes are shared, never modified.
     *
     * @throws MessageFormatException when the stored body or JMSReplyTo cannot be decoded
     */
    static ShardQMessage fromBroker(
            BrokerMessage bm, ShardQDestination destination, int deliveryCount, ObjectMessageAllowList allowList)
            throws JMSException {
        byte[] body = bm.body();
        ShardQMessage m;
        switch (bm.bodyType()) {
            case NONE -> m = new ShardQMessage();
            case TEXT -> m = new ShardQTextMessage(decodeText(body));
            case BYTES -> {
                ShardQBytesMessage b = new ShardQBytesMessage();
                b.loadBody(body);
                m = b;
            }
            case MAP -> {
                ShardQMapMessage map = new ShardQMapMessage();
                map.items().putAll(decodeMap(body));
                m = map;
            }
            case STREAM -> {
                ShardQStreamMessage s = new ShardQStreamMessage();
                s.fields().addAll(decodeStream(body));
                m = s;
            }
            case OBJECT -> {
                ShardQObjectMessage o = new ShardQObjectMessage();
                o.loadSerialized(body);
                o.setAllowList(allowList);
                m = o;
            }
            default -> throw new MessageFormatException("unknown body type " + bm.bodyType());
        }
        m.setJMSMessageID(bm.messageId());
        m.setJMSTimestamp(bm.timestamp());
        m.setJMSCorrelationID(bm.correlationId());
        m.setJMSType(bm.type());
        m.setJMSReplyTo(decodeReplyTo(bm.replyTo()));
        m.setJMSDestination(destination);
        m.setJMSPriority(bm.priority());
        m.setJMSExpiration(bm.expiration());
        m.setJMSDeliveryTime(bm.deliverAt());
        m.setJMSDeliveryMode(bm.persistent() ? DeliveryMode.PERSISTENT : DeliveryMode.NON_PERSISTENT);
        m.setJMSRedelivered(deliveryCount > 1);
        bm.properties().forEach(m::setProviderProperty);
        m.setProviderProperty(ShardQMessage.JMSX_DELIVERY_COUNT, deliveryCount);
        m.markReadOnly();
        return m;
    }

    private static ShardQDestination decodeReplyTo(String replyTo) throws MessageFormatException {
        try {
            return ShardQDestination.decode(replyTo);
        } catch (IllegalArgumentException e) {
            throw new MessageFormatException("JMSReplyTo cannot be decoded: " + e.getMessage());
        }
    }

    // ---------------------------------------------------------------- bodies

    private static byte[] bodyOf(ShardQMessage m) throws JMSException {
        if (m instanceof ShardQTextMessage t) {
            return encodeText(t.getText());
        }
        if (m instanceof ShardQBytesMessage b) {
            return b.bodyForSend();
        }
        if (m instanceof ShardQMapMessage map) {
            return encodeMap(map.items());
        }
        if (m instanceof ShardQStreamMessage s) {
            return encodeStream(s.fields());
        }
        if (m instanceof ShardQObjectMessage o) {
            return o.serializedBody();
        }
        return new byte[0];
    }

    private static BodyType bodyTypeOf(Message m) {
        if (m instanceof TextMessage) {
            return BodyType.TEXT;
        }
        if (m instanceof BytesMessage) {
            return BodyType.BYTES;
        }
        if (m instanceof MapMessage) {
            return BodyType.MAP;
        }
        if (m instanceof StreamMessage) {
            return BodyType.STREAM;
        }
        if (m instanceof ObjectMessage) {
            return BodyType.OBJECT;
        }
        return BodyType.NONE;
    }

    private static byte[] foreignBody(Message m, BodyType type) throws JMSException {
        switch (type) {
            case TEXT:
                return encodeText(((TextMessage) m).getText());
            case BYTES:
                return foreignBytes((BytesMessage) m);
            case MAP:
                MapMessage map = (MapMessage) m;
                Map<String, Object> items = new LinkedHashMap<>();
                for (Object name : Collections.list(map.getMapNames())) {
                    items.put(String.valueOf(name), map.getObject(String.valueOf(name)));
                }
                return encodeMap(items);
            case STREAM:
                return encodeStream(foreignFields((StreamMessage) m));
            case OBJECT:
                Serializable object = ((ObjectMessage) m).getObject();
                return object == null ? new byte[0] : ShardQObjectMessage.serialize(object);
            default:
                return new byte[0];
        }
    }

    private static byte[] foreignBytes(BytesMessage m) throws JMSException {
        m.reset();
        long length = m.getBodyLength();
        if (length > Integer.MAX_VALUE - 8) {
            throw new MessageFormatException("BytesMessage body of " + length + " bytes is too large");
        }
        byte[] bytes = new byte[(int) length];
        int done = 0;
        while (done < bytes.length) {
            byte[] chunk = new byte[bytes.length - done];
            int n = m.readBytes(chunk);
            if (n < 0) {
                throw new MessageEOFException("BytesMessage body ended after " + done + " of " + length + " bytes");
            }
            System.arraycopy(chunk, 0, bytes, done, n);
            done += n;
        }
        m.reset();
        return bytes;
    }

    private static List<Object> foreignFields(StreamMessage m) throws JMSException {
        m.reset();
        List<Object> fields = new ArrayList<>();
        while (true) {
            try {
                fields.add(m.readObject());
            } catch (MessageEOFException end) {
                break;
            }
        }
        m.reset();
        return fields;
    }

    static byte[] encodeText(String text) {
        return TextBody.encode(text);
    }

    static String decodeText(byte[] body) {
        return TextBody.decode(body);
    }

    static byte[] encodeMap(Map<String, Object> items) throws MessageFormatException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        try {
            out.writeByte(TYPED_VERSION);
            out.writeInt(items.size());
            for (Map.Entry<String, Object> e : items.entrySet()) {
                writeString(out, e.getKey());
                writeValue(out, e.getValue(), "map item \"" + e.getKey() + "\"");
            }
        } catch (IOException e) {
            throw new IllegalStateException("writing to a byte array cannot fail", e);
        }
        return bytes.toByteArray();
    }

    static Map<String, Object> decodeMap(byte[] body) throws MessageFormatException {
        try {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(body));
            int count = readHeader(in, "MapMessage");
            Map<String, Object> items = new LinkedHashMap<>();
            for (int i = 0; i < count; i++) {
                String name = readString(in);
                items.put(name, readValue(in));
            }
            checkFullyRead(in, "MapMessage");
            return items;
        } catch (IOException e) {
            throw corrupt("MapMessage", e);
        }
    }

    static byte[] encodeStream(List<Object> fields) throws MessageFormatException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        try {
            out.writeByte(TYPED_VERSION);
            out.writeInt(fields.size());
            for (int i = 0; i < fields.size(); i++) {
                writeValue(out, fields.get(i), "stream field " + i);
            }
        } catch (IOException e) {
            throw new IllegalStateException("writing to a byte array cannot fail", e);
        }
        return bytes.toByteArray();
    }

    static List<Object> decodeStream(byte[] body) throws MessageFormatException {
        try {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(body));
            int count = readHeader(in, "StreamMessage");
            List<Object> fields = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                fields.add(readValue(in));
            }
            checkFullyRead(in, "StreamMessage");
            return fields;
        } catch (IOException e) {
            throw corrupt("StreamMessage", e);
        }
    }

    private static void writeValue(DataOutputStream out, Object v, String what)
            throws IOException, MessageFormatException {
        if (v == null) {
            out.writeByte(TAG_NULL);
        } else if (v instanceof Boolean b) {
            out.writeByte(TAG_BOOLEAN);
            out.writeBoolean(b);
        } else if (v instanceof Byte b) {
            out.writeByte(TAG_BYTE);
            out.writeByte(b);
        } else if (v instanceof Short s) {
            out.writeByte(TAG_SHORT);
            out.writeShort(s);
        } else if (v instanceof Character c) {
            out.writeByte(TAG_CHAR);
            out.writeChar(c);
        } else if (v instanceof Integer i) {
            out.writeByte(TAG_INT);
            out.writeInt(i);
        } else if (v instanceof Long l) {
            out.writeByte(TAG_LONG);
            out.writeLong(l);
        } else if (v instanceof Float f) {
            out.writeByte(TAG_FLOAT);
            out.writeInt(Float.floatToRawIntBits(f));
        } else if (v instanceof Double d) {
            out.writeByte(TAG_DOUBLE);
            out.writeLong(Double.doubleToRawLongBits(d));
        } else if (v instanceof String s) {
            out.writeByte(TAG_STRING);
            writeString(out, s);
        } else if (v instanceof byte[] b) {
            out.writeByte(TAG_BYTES);
            out.writeInt(b.length);
            out.write(b);
        } else {
            throw new MessageFormatException(what + " holds a " + v.getClass().getName()
                    + ": expected Boolean, Byte, Short, Character, Integer, Long, Float, Double, String or byte[]");
        }
    }

    private static Object readValue(DataInputStream in) throws IOException {
        byte tag = in.readByte();
        return switch (tag) {
            case TAG_NULL -> null;
            case TAG_BOOLEAN -> in.readBoolean();
            case TAG_BYTE -> in.readByte();
            case TAG_SHORT -> in.readShort();
            case TAG_CHAR -> in.readChar();
            case TAG_INT -> in.readInt();
            case TAG_LONG -> in.readLong();
            case TAG_FLOAT -> Float.intBitsToFloat(in.readInt());
            case TAG_DOUBLE -> Double.longBitsToDouble(in.readLong());
            case TAG_STRING -> readString(in);
            case TAG_BYTES -> readBytes(in);
            default -> throw new IOException("unknown type tag " + tag);
        };
    }

    private static void writeString(DataOutputStream out, String s) throws IOException {
        io.shardq.broker.message.Texts.requireEncodable(s, "a text in the message body");
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(utf8.length);
        out.write(utf8);
    }

    private static String readString(DataInputStream in) throws IOException {
        return new String(readBytes(in), StandardCharsets.UTF_8);
    }

    private static byte[] readBytes(DataInputStream in) throws IOException {
        int length = in.readInt();
        // available() is exact for a byte array: a corrupt length must not allocate gigabytes
        if (length < 0 || length > in.available()) {
            throw new EOFException("length " + length + " exceeds the " + in.available() + " bytes left");
        }
        byte[] b = new byte[length];
        in.readFully(b);
        return b;
    }

    private static int readHeader(DataInputStream in, String what) throws IOException {
        byte version = in.readByte();
        if (version != TYPED_VERSION) {
            throw new IOException("unknown " + what + " encoding version " + version + ": expected " + TYPED_VERSION);
        }
        int count = in.readInt();
        if (count < 0 || count > in.available()) {
            throw new EOFException("entry count " + count + " exceeds the " + in.available() + " bytes left");
        }
        return count;
    }

    private static void checkFullyRead(DataInputStream in, String what) throws IOException {
        if (in.available() > 0) {
            throw new IOException(in.available() + " bytes left after the last " + what + " entry");
        }
    }

    private static MessageFormatException corrupt(String what, IOException e) {
        MessageFormatException mfe = new MessageFormatException(what + " body cannot be decoded: " + e.getMessage());
        mfe.initCause(e);
        mfe.setLinkedException(e);
        return mfe;
    }
}
