package io.shardq.jms;

import io.shardq.broker.message.BrokerMessage;
import jakarta.jms.JMSException;
import jakarta.jms.MessageEOFException;
import jakarta.jms.MessageFormatException;
import jakarta.jms.MessageNotReadableException;
import jakarta.jms.StreamMessage;
import java.util.ArrayList;
import java.util.List;

/**
 * A message whose body is a sequence of typed fields: boolean, byte, short, char, int, long, float,
 * double, String, byte[] or null, read back with the StreamMessage conversion table.
 *
 * <p>A new or cleared message is in write mode; {@link #reset()} (and receiving) switch to read
 * mode at the first field. A read that fails with {@link MessageFormatException}, {@link
 * NumberFormatException} or {@link NullPointerException} does not move the position, so the field
 * can be read again as another type. A byte[] field read in chunks with {@link #readBytes} must be
 * read to its end before another field is read.
 */
public class ShardQStreamMessage extends ShardQMessage implements StreamMessage {
    private static final String KIND = "stream field";

    private final List<Object> fields = new ArrayList<>();
    /** Read mode: the index of the field the next read returns. */
    private int index;
    /** Bytes of the current byte[] field already returned by readBytes; -1 when not in one. */
    private int bytesRead = -1;

    ShardQStreamMessage() {}

    // ---------------------------------------------------------------- reading

    @Override
    public boolean readBoolean() throws JMSException {
        boolean v = Conversions.toBoolean(current(), KIND, index);
        index++;
        return v;
    }

    @Override
    public byte readByte() throws JMSException {
        byte v = Conversions.toByte(current(), KIND, index);
        index++;
        return v;
    }

    @Override
    public short readShort() throws JMSException {
        short v = Conversions.toShort(current(), KIND, index);
        index++;
        return v;
    }

    @Override
    public char readChar() throws JMSException {
        char v = Conversions.toChar(current(), KIND, index);
        index++;
        return v;
    }

    @Override
    public int readInt() throws JMSException {
        int v = Conversions.toInt(current(), KIND, index);
        index++;
        return v;
    }

    @Override
    public long readLong() throws JMSException {
        long v = Conversions.toLong(current(), KIND, index);
        index++;
        return v;
    }

    @Override
    public float readFloat() throws JMSException {
        float v = Conversions.toFloat(current(), KIND, index);
        index++;
        return v;
    }

    @Override
    public double readDouble() throws JMSException {
        double v = Conversions.toDouble(current(), KIND, index);
        index++;
        return v;
    }

    @Override
    public String readString() throws JMSException {
        String v = Conversions.toText(current(), KIND, index);
        index++;
        return v;
    }

    /**
     * Reads the next chunk of a byte[] field. The first call on the field returns up to {@code
     * value.length} bytes (0 for an empty array); later calls the following chunks; once the field
     * is exhausted, one more call returns -1 and moves to the next field. A null field returns -1 at
     * once.
     */
    @Override
    public int readBytes(byte[] value) throws JMSException {
        checkReadable();
        boolean first = bytesRead < 0;
        if (first) {
            if (index >= fields.size()) {
                throw endOfStream();
            }
            Object v = fields.get(index);
            if (v == null) {
                index++;
                return -1;
            }
            if (!(v instanceof byte[])) {
                throw new MessageFormatException(KIND + " \"" + index + "\" holds a "
                        + v.getClass().getSimpleName() + " value, which cannot be read as byte[]");
            }
            bytesRead = 0;
        }
        byte[] field = (byte[]) fields.get(index);
        int remaining = field.length - bytesRead;
        if (!first && remaining == 0) {
            bytesRead = -1;
            index++;
            return -1;
        }
        int n = Math.min(value.length, remaining);
        System.arraycopy(field, bytesRead, value, 0, n);
        bytesRead += n;
        return n;
    }

    /** The next field as written (byte[] copied), or null. */
    @Override
    public Object readObject() throws JMSException {
        Object v = current();
        index++;
        return v instanceof byte[] b ? b.clone() : v;
    }

    /** The field the next read returns, after finishing a byte[] field that readBytes has exhausted. */
    private Object current() throws JMSException {
        checkReadable();
        if (bytesRead >= 0) {
            byte[] field = (byte[]) fields.get(index);
            if (bytesRead < field.length) {
                throw new MessageFormatException(KIND + " \"" + index + "\" is a byte[] partly read (" + bytesRead
                        + " of " + field.length + " bytes): read it to the end with readBytes first");
            }
            bytesRead = -1;
            index++;
        }
        if (index >= fields.size()) {
            throw endOfStream();
        }
        return fields.get(index);
    }

    private MessageEOFException endOfStream() {
        return new MessageEOFException("end of stream: all " + fields.size() + " fields have been read");
    }

    private void checkReadable() throws MessageNotReadableException {
        if (!bodyReadOnly) {
            throw new MessageNotReadableException("message body is write-only: call reset() to read it");
        }
    }

    // ---------------------------------------------------------------- writing

    @Override
    public void writeBoolean(boolean value) throws JMSException {
        add(value);
    }

    @Override
    public void writeByte(byte value) throws JMSException {
        add(value);
    }

    @Override
    public void writeShort(short value) throws JMSException {
        add(value);
    }

    @Override
    public void writeChar(char value) throws JMSException {
        add(value);
    }

    @Override
    public void writeInt(int value) throws JMSException {
        add(value);
    }

    @Override
    public void writeLong(long value) throws JMSException {
        add(value);
    }

    @Override
    public void writeFloat(float value) throws JMSException {
        add(value);
    }

    @Override
    public void writeDouble(double value) throws JMSException {
        add(value);
    }

    @Override
    public void writeString(String value) throws JMSException {
        add(value);
    }

    /** Writes a copy of the array; null writes a null field. */
    @Override
    public void writeBytes(byte[] value) throws JMSException {
        add(value == null ? null : value.clone());
    }

    @Override
    public void writeBytes(byte[] value, int offset, int length) throws JMSException {
        checkBodyWritable();
        if (offset < 0 || length < 0 || offset > value.length - length) {
            throw new IndexOutOfBoundsException("offset " + offset + " and length " + length
                    + " are out of range for an array of " + value.length + " bytes");
        }
        byte[] copy = new byte[length];
        System.arraycopy(value, offset, copy, 0, length);
        add(copy);
    }

    /**
     * Writes a Boolean, Byte, Short, Character, Integer, Long, Float, Double, String, byte[]
     * (copied) or null.
     *
     * @throws MessageFormatException for any other class
     */
    @Override
    public void writeObject(Object value) throws JMSException {
        checkBodyWritable();
        if (value != null && !ShardQMapMessage.isItemType(value)) {
            throw new MessageFormatException("StreamMessage.writeObject cannot write a "
                    + value.getClass().getName()
                    + ": expected Boolean, Byte, Short, Character, Integer, Long, Float, Double, String or byte[]");
        }
        add(value instanceof byte[] b ? b.clone() : value);
    }

    private void add(Object value) throws JMSException {
        checkBodyWritable();
        fields.add(value);
    }

    // ---------------------------------------------------------------- modes and body

    /** Switches to read mode at the first field; the body becomes read-only. */
    @Override
    public void reset() {
        bodyReadOnly = true;
        index = 0;
        bytesRead = -1;
    }

    @Override
    void doClearBody() {
        fields.clear();
        index = 0;
        bytesRead = -1;
    }

    @Override
    void markReadOnly() {
        reset();
        super.markReadOnly();
    }

    /** The live field list, for the codec: byte[] values are not copied. */
    List<Object> fields() {
        return fields;
    }

    /** A StreamMessage body cannot be returned as one object: always a MessageFormatException. */
    @Override
    public <T> T getBody(Class<T> c) throws JMSException {
        throw new MessageFormatException("getBody is not supported for a StreamMessage: read its fields instead");
    }

    /** Always false for a StreamMessage. */
    @Override
    @SuppressWarnings("rawtypes")
    public boolean isBodyAssignableTo(Class c) {
        return false;
    }

    @Override
    BrokerMessage.BodyType bodyType() {
        return BrokerMessage.BodyType.STREAM;
    }
}
