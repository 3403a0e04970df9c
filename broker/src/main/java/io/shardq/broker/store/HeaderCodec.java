package io.shardq.broker.store;

import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.message.StreamedBody;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code header} column: everything of a message but its body and the columns the engine
 * filters on (priority, expiration, delivery time). A compact, versioned binary form; property
 * values keep their exact type. A message whose body was streamed is written as version 2, which
 * carries the {@link StreamedBody} (id and size) after the body type; others stay version 1.
 */
public final class HeaderCodec {
    private static final int VERSION = 1;
    /** Version 1 followed, after the body type, by a streamed body's id and size (V012). */
    private static final int VERSION_STREAMED = 2;
    /**
     * Version 1's layout with no properties, written by a send from SQL ({@code shardq.send}): its
     * properties are only in the {@code properties} column ({@link PropertiesJson}'s form).
     */
    public static final int VERSION_SQL = 3;

    private HeaderCodec() {}

    public static byte[] encode(BrokerMessage m) {
        try {
            ByteArrayOutputStream bytes =
                    new ByteArrayOutputStream(64 + m.properties().size() * 24);
            DataOutputStream out = new DataOutputStream(bytes);
            StreamedBody streamed = m.streamedBody();
            out.writeByte(streamed == null ? VERSION : VERSION_STREAMED);
            out.writeByte(m.bodyType().code());
            if (streamed != null) {
                out.writeLong(streamed.id());
                out.writeLong(streamed.size());
            }
            writeNullable(out, m.messageId());
            out.writeLong(m.timestamp());
            writeNullable(out, m.correlationId());
            writeNullable(out, m.type());
            writeNullable(out, m.replyTo());
            out.writeShort(m.properties().size());
            for (Map.Entry<String, Object> e : m.properties().entrySet()) {
                out.writeUTF(e.getKey());
                writeValue(out, e.getKey(), e.getValue());
            }
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Rebuilds a persistent message the JVM wrote (header version 1 or 2) from its row. */
    public static BrokerMessage decode(byte[] header, byte[] body, int priority, long expiration, long deliverAt) {
        return decode(header, null, body, priority, expiration, deliverAt);
    }

    /**
     * Rebuilds a persistent message from its row; {@code properties} is the row's properties
     * column as text, read for a message sent from SQL (version 3) and ignored otherwise.
     */
    public static BrokerMessage decode(
            byte[] header, String properties, byte[] body, int priority, long expiration, long deliverAt) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(header))) {
            int version = in.readUnsignedByte();
            if (version != VERSION && version != VERSION_STREAMED && version != VERSION_SQL) {
                throw new IllegalStateException("message header version " + version + " is not supported");
            }
            BrokerMessage.BodyType bodyType = BrokerMessage.BodyType.ofCode(in.readUnsignedByte());
            StreamedBody streamed = version == VERSION_STREAMED ? new StreamedBody(in.readLong(), in.readLong()) : null;
            String id = readNullable(in);
            long timestamp = in.readLong();
            String correlationId = readNullable(in);
            String type = readNullable(in);
            String replyTo = readNullable(in);
            int n = in.readUnsignedShort();
            Map<String, Object> props = new LinkedHashMap<>(Math.max(4, n * 2));
            for (int i = 0; i < n; i++) {
                String name = in.readUTF();
                props.put(name, readValue(in));
            }
            if (version == VERSION_SQL && properties != null) {
                props.putAll(PropertiesJson.decode(properties));
            }
            BrokerMessage m = new BrokerMessage(
                    id,
                    bodyType,
                    timestamp,
                    correlationId,
                    type,
                    replyTo,
                    priority,
                    expiration,
                    deliverAt,
                    true,
                    props,
                    body);
            return streamed == null ? m : m.withStreamedBody(streamed);
        } catch (IOException e) {
            throw new UncheckedIOException("corrupt message header", e);
        }
    }

    private static void writeNullable(DataOutputStream out, String s) throws IOException {
        out.writeBoolean(s != null);
        if (s != null) {
            writeLongString(out, s);
        }
    }

    private static String readNullable(DataInputStream in) throws IOException {
        return in.readBoolean() ? readLongString(in) : null;
    }

    private static void writeLongString(DataOutputStream out, String s) throws IOException {
        byte[] b = s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }

    private static String readLongString(DataInputStream in) throws IOException {
        byte[] b = new byte[in.readInt()];
        in.readFully(b);
        return new String(b, java.nio.charset.StandardCharsets.UTF_8);
    }

    private static void writeValue(DataOutputStream out, String name, Object v) throws IOException {
        if (v instanceof String s) {
            out.writeByte('S');
            writeLongString(out, s);
        } else if (v instanceof Integer i) {
            out.writeByte('I');
            out.writeInt(i);
        } else if (v instanceof Long l) {
            out.writeByte('J');
            out.writeLong(l);
        } else if (v instanceof Boolean b) {
            out.writeByte('Z');
            out.writeBoolean(b);
        } else if (v instanceof Double d) {
            out.writeByte('D');
            out.writeDouble(d);
        } else if (v instanceof Float f) {
            out.writeByte('F');
            out.writeFloat(f);
        } else if (v instanceof Short s) {
            out.writeByte('T');
            out.writeShort(s);
        } else if (v instanceof Byte b) {
            out.writeByte('B');
            out.writeByte(b);
        } else {
            throw new IllegalArgumentException("property " + name + " has unsupported type "
                    + (v == null ? "null" : v.getClass().getName())
                    + ": expected boolean, byte, short, int, long, float, double or String");
        }
    }

    private static Object readValue(DataInputStream in) throws IOException {
        int tag = in.readUnsignedByte();
        return switch (tag) {
            case 'S' -> readLongString(in);
            case 'I' -> in.readInt();
            case 'J' -> in.readLong();
            case 'Z' -> in.readBoolean();
            case 'D' -> in.readDouble();
            case 'F' -> in.readFloat();
            case 'T' -> in.readShort();
            case 'B' -> in.readByte();
            default -> throw new IOException("unknown property tag " + tag);
        };
    }
}
