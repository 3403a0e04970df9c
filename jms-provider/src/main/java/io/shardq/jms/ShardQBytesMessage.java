package io.shardq.jms;

import io.shardq.broker.message.BrokerMessage;
import jakarta.jms.BytesMessage;
import jakarta.jms.JMSException;
import jakarta.jms.MessageEOFException;
import jakarta.jms.MessageFormatException;
import jakarta.jms.MessageNotReadableException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UTFDataFormatException;
import java.nio.ByteBuffer;

/**
 * A message whose body is a stream of bytes, written and read with the {@link java.io.DataOutput}
 * encodings (big-endian, modified UTF-8 for {@code writeUTF}).
 *
 * <p>A new or cleared message is in write mode: reads throw {@link MessageNotReadableException}.
 * {@link #reset()} (and receiving) switch to read mode at the first byte: writes throw {@link
 * jakarta.jms.MessageNotWriteableException} until {@link #clearBody()}. A read past the end throws
 * {@link MessageEOFException} and leaves the position where it was.
 */
public class ShardQBytesMessage extends ShardQMessage implements BytesMessage {
    /** Write mode: the bytes written so far. Null in read mode. */
    private ByteArrayOutputStream written = new ByteArrayOutputStream();

    private DataOutputStream out = new DataOutputStream(written);
    /** Read mode: the body, read from {@link #position}. Null in write mode. */
    private ByteBuffer in;

    ShardQBytesMessage() {}

    // ---------------------------------------------------------------- reading

    @Override
    public long getBodyLength() throws JMSException {
        return reading().limit();
    }

    @Override
    public boolean readBoolean() throws JMSException {
        return need(1).get() != 0;
    }

    @Override
    public byte readByte() throws JMSException {
        return need(1).get();
    }

    @Override
    public int readUnsignedByte() throws JMSException {
        return need(1).get() & 0xFF;
    }

    @Override
    public short readShort() throws JMSException {
        return need(2).getShort();
    }

    @Override
    public int readUnsignedShort() throws JMSException {
        return need(2).getShort() & 0xFFFF;
    }

    @Override
    public char readChar() throws JMSException {
        return need(2).getChar();
    }

    @Override
    public int readInt() throws JMSException {
        return need(4).getInt();
    }

    @Override
    public long readLong() throws JMSException {
        return need(8).getLong();
    }

    @Override
    public float readFloat() throws JMSException {
        return need(4).getFloat();
    }

    @Override
    public double readDouble() throws JMSException {
        return need(8).getDouble();
    }

    @Override
    public String readUTF() throws JMSException {
        ByteBuffer b = need(2);
        int start = b.position();
        int length = 2 + (b.getShort(start) & 0xFFFF);
        need(length);
        try {
            String s = new DataInputStream(new ByteArrayInputStream(b.array(), start, length)).readUTF();
            b.position(start + length);
            return s;
        } catch (UTFDataFormatException e) {
            throw (MessageFormatException)
                    new MessageFormatException("bytes at position " + start + " are not a modified UTF-8 string")
                            .initCause(e);
        } catch (IOException e) {
            throw new IllegalStateException("reading a byte array cannot fail", e);
        }
    }

    @Override
    public int readBytes(byte[] value) throws JMSException {
        return readBytes(value, value.length);
    }

    /**
     * Reads up to {@code length} bytes into the start of {@code value}.
     *
     * @return the number of bytes read, fewer than {@code length} at the end of the body, and -1
     *     when no bytes are left
     */
    @Override
    public int readBytes(byte[] value, int length) throws JMSException {
        if (length < 0 || length > value.length) {
            throw new IndexOutOfBoundsException(
                    "length " + length + " is out of range: expected 0.." + value.length + " (the array's length)");
        }
        ByteBuffer b = reading();
        if (!b.hasRemaining()) {
            return -1;
        }
        int n = Math.min(length, b.remaining());
        b.get(value, 0, n);
        return n;
    }

    private ByteBuffer reading() throws MessageNotReadableException {
        if (!bodyReadOnly) {
            throw new MessageNotReadableException("message body is write-only: call reset() to read it");
        }
        return in;
    }

    private ByteBuffer need(int bytes) throws JMSException {
        ByteBuffer b = reading();
        if (b.remaining() < bytes) {
            throw new MessageEOFException("end of message body: " + bytes + " bytes needed at position " + b.position()
                    + ", " + b.remaining() + " left");
        }
        return b;
    }

    // ---------------------------------------------------------------- writing

    @Override
    public void writeBoolean(boolean value) throws JMSException {
        write(o -> o.writeBoolean(value));
    }

    @Override
    public void writeByte(byte value) throws JMSException {
        write(o -> o.writeByte(value));
    }

    @Override
    public void writeShort(short value) throws JMSException {
        write(o -> o.writeShort(value));
    }

    @Override
    public void writeChar(char value) throws JMSException {
        write(o -> o.writeChar(value));
    }

    @Override
    public void writeInt(int value) throws JMSException {
        write(o -> o.writeInt(value));
    }

    @Override
    public void writeLong(long value) throws JMSException {
        write(o -> o.writeLong(value));
    }

    @Override
    public void writeFloat(float value) throws JMSException {
        write(o -> o.writeFloat(value));
    }

    @Override
    public void writeDouble(double value) throws JMSException {
        write(o -> o.writeDouble(value));
    }

    /**
     * Writes the string in modified UTF-8 with a two-byte length, as {@link
     * java.io.DataOutput#writeUTF}.
     *
     * @throws MessageFormatException when the encoded string is longer than 65535 bytes
     */
    @Override
    public void writeUTF(String value) throws JMSException {
        write(o -> o.writeUTF(value));
    }

    /** The stream to write to; a ByteArrayOutputStream underneath, so IOExceptions cannot happen. */
    private void write(Write write) throws JMSException {
        checkBodyWritable();
        try {
            write.to(out);
        } catch (UTFDataFormatException e) {
            throw (MessageFormatException)
                    new MessageFormatException("string is too long for writeUTF: at most 65535 bytes of modified UTF-8")
                            .initCause(e);
        } catch (IOException e) {
            throw new IllegalStateException("writing to a byte array cannot fail", e);
        }
    }

    @Override
    public void writeBytes(byte[] value) throws JMSException {
        write(o -> o.write(value));
    }

    @Override
    public void writeBytes(byte[] value, int offset, int length) throws JMSException {
        write(o -> o.write(value, offset, length));
    }

    /**
     * Writes a Boolean, Byte, Short, Character, Integer, Long, Float, Double, String (as {@link
     * #writeUTF}) or byte[].
     *
     * @throws NullPointerException for null
     * @throws MessageFormatException for any other class
     */
    @Override
    public void writeObject(Object value) throws JMSException {
        if (value == null) {
            throw new NullPointerException("BytesMessage.writeObject does not accept null");
        }
        if (value instanceof Boolean v) {
            writeBoolean(v);
        } else if (value instanceof Byte v) {
            writeByte(v);
        } else if (value instanceof Short v) {
            writeShort(v);
        } else if (value instanceof Character v) {
            writeChar(v);
        } else if (value instanceof Integer v) {
            writeInt(v);
        } else if (value instanceof Long v) {
            writeLong(v);
        } else if (value instanceof Float v) {
            writeFloat(v);
        } else if (value instanceof Double v) {
            writeDouble(v);
        } else if (value instanceof String v) {
            writeUTF(v);
        } else if (value instanceof byte[] v) {
            writeBytes(v);
        } else {
            throw new MessageFormatException("BytesMessage.writeObject cannot write a "
                    + value.getClass().getName()
                    + ": expected Boolean, Byte, Short, Character, Integer, Long, Float, Double, String or byte[]");
        }
    }

    private interface Write {
        void to(DataOutputStream out) throws IOException;
    }

    // ---------------------------------------------------------------- modes and body

    /** Switches to read mode at the first byte; the body becomes read-only. */
    @Override
    public void reset() {
        if (!bodyReadOnly) {
            in = ByteBuffer.wrap(written.toByteArray());
            written = null;
            out = null;
        } else {
            in.rewind();
        }
        bodyReadOnly = true;
    }

    @Override
    void doClearBody() {
        in = null;
        written = new ByteArrayOutputStream();
        out = new DataOutputStream(written);
    }

    @Override
    void markReadOnly() {
        reset();
        super.markReadOnly();
    }

    /** The whole body, in either mode, without moving the read position. */
    byte[] bodyBytes() {
        return bodyReadOnly ? in.array().clone() : written.toByteArray();
    }

    /** Replaces the body and switches to read mode, as on a received message. */
    void loadBody(byte[] body) {
        in = ByteBuffer.wrap(body);
        written = null;
        out = null;
        bodyReadOnly = true;
    }

    private boolean hasNoBody() {
        return bodyReadOnly ? in.limit() == 0 : written.size() == 0;
    }

    /** A copy of the whole body (whatever the read position), or null when it is empty. */
    @Override
    public <T> T getBody(Class<T> c) throws JMSException {
        if (hasNoBody()) {
            return null;
        }
        if (!isBodyAssignableTo(c)) {
            throw notAssignable("byte[]", c);
        }
        return c.cast(bodyBytes());
    }

    @Override
    @SuppressWarnings("rawtypes")
    public boolean isBodyAssignableTo(Class c) {
        return hasNoBody() || (c != null && c.isAssignableFrom(byte[].class));
    }

    @Override
    BrokerMessage.BodyType bodyType() {
        return BrokerMessage.BodyType.BYTES;
    }
}
