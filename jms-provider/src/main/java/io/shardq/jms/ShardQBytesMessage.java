package io.shardq.jms;

import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.message.StreamedBody;
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
import java.io.InputStream;
import java.io.OutputStream;
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
 *
 * <p><b>Streamed bodies</b> (issue 12, after Artemis' large messages). A producer sets a {@code
 * java.io.InputStream} as the object property {@code JMS_ShardQ_InputStream} on a message with no
 * body written; the send reads it to its end and stores it in chunks, holding one chunk on the heap.
 * A received streamed message reads its body one chunk at a time: {@link #readBytes(byte[])} and
 * the other reads work (a read that meets the end of the body mid-value throws {@link
 * MessageEOFException} having consumed what was left), {@link #getBodyLength()} is the size, and
 * setting {@code JMS_ShardQ_SaveStream} to an {@code OutputStream} writes the whole body to it and
 * returns when it is written. {@code getBody(byte[].class)} refuses a streamed body (it would need
 * all of it on the heap). Read the body before the message is acknowledged (CLIENT_ACKNOWLEDGE),
 * before the transaction commits (transacted), or inside {@code onMessage}: once consumed, the body
 * is deleted when its slice is retired, and a read then fails saying so. {@code
 * JMS_ShardQ_OutputStream} (Artemis' non-blocking save) is refused: a write still running after
 * {@code onMessage} returned or {@code receive} auto-acknowledged would race that deletion.
 */
public class ShardQBytesMessage extends ShardQMessage implements BytesMessage {
    /** Write mode: the bytes written so far. Null in read mode. */
    private Body written = new Body();

    private DataOutputStream out = new DataOutputStream(written);
    /** Read mode: the body, read from {@link #position}. Null in write mode. */
    private ByteBuffer in;

    /** Producer side: the body to stream at send ({@code JMS_ShardQ_InputStream}), or null. */
    private InputStream sendStream;
    /** Receive side: the streamed body, read through {@link #opener}; null for an ordinary body. */
    private StreamedBody streamed;

    private BodyOpener opener;
    /** Read mode of a streamed body: where the reads are, opened at the first read after a reset. */
    private DataInputStream streamIn;

    /** Opens a streamed body for reading; {@code what} names the message in errors. */
    @FunctionalInterface
    interface BodyOpener {
        InputStream open(StreamedBody body, String what);
    }

    ShardQBytesMessage() {}

    // ---------------------------------------------------------------- reading

    @Override
    public long getBodyLength() throws JMSException {
        ByteBuffer b = reading();
        return streamed != null ? streamed.size() : b.limit();
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
        if (streamed != null) {
            reading();
            try {
                return streamIn().readUTF();
            } catch (java.io.EOFException e) {
                throw eof(e);
            } catch (UTFDataFormatException e) {
                throw (MessageFormatException)
                        new MessageFormatException("the bytes read are not a modified UTF-8 string").initCause(e);
            } catch (IOException e) {
                throw readFailed(e);
            }
        }
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
        if (streamed != null) {
            try {
                int n = streamIn().readNBytes(value, 0, length);
                return n == 0 && length > 0 ? -1 : n;
            } catch (IOException e) {
                throw readFailed(e);
            }
        }
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
        if (streamed != null) {
            // the next bytes of the streamed body, as a buffer the caller reads as it would the body
            byte[] next = new byte[bytes];
            try {
                int n = streamIn().readNBytes(next, 0, bytes);
                if (n < bytes) {
                    throw new MessageEOFException(
                            "end of the streamed body: " + bytes + " bytes needed, " + n + " left");
                }
            } catch (IOException e) {
                throw readFailed(e);
            }
            return ByteBuffer.wrap(next);
        }
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
        if (sendStream != null) {
            throw new MessageFormatException("the body of this message is streamed from " + INPUT_STREAM
                    + ": it cannot also be written (call clearBody() to write one instead)");
        }
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
        closeStreamIn(); // a streamed body is read again from its first chunk
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
        closeStreamIn();
        sendStream = null;
        streamed = null;
        opener = null;
        in = null;
        written = new Body();
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

    /**
     * The body for a send, which only reads it: the array itself where it holds exactly the body
     * (the usual single {@code writeBytes}, or a received body), else a copy. Never modified after:
     * a read-mode body is never written, and a write past a full buffer grows into a new array.
     */
    byte[] bodyForSend() {
        return bodyReadOnly ? in.array() : written.exact();
    }

    /**
     * The bytes written, handed to a send without a copy when the buffer is exactly full. Its
     * buffer is never written in place once handed out: writes only append, and appending to a
     * full buffer copies it into a larger one ({@code reset()} is never called; clearBody makes a
     * new one).
     */
    private static final class Body extends ByteArrayOutputStream {
        byte[] exact() {
            return count == buf.length ? buf : toByteArray();
        }
    }

    /** Replaces the body and switches to read mode, as on a received message. */
    void loadBody(byte[] body) {
        in = ByteBuffer.wrap(body);
        written = null;
        out = null;
        bodyReadOnly = true;
    }

    private boolean hasNoBody() {
        if (streamed != null) {
            return streamed.size() == 0;
        }
        return bodyReadOnly ? in.limit() == 0 : written.size() == 0;
    }

    /**
     * A copy of the whole body (whatever the read position), or null when it is empty.
     *
     * @throws MessageFormatException for a streamed body, which would need all of it on the heap
     */
    @Override
    public <T> T getBody(Class<T> c) throws JMSException {
        if (hasNoBody()) {
            return null;
        }
        if (streamed != null) {
            throw new MessageFormatException("the body of message " + getJMSMessageID() + " is streamed ("
                    + streamed.size() + " bytes): getBody would need all of it on the heap; read it with readBytes"
                    + " or write it to an OutputStream with the property " + SAVE_STREAM);
        }
        if (!isBodyAssignableTo(c)) {
            throw notAssignable("byte[]", c);
        }
        return c.cast(bodyBytes());
    }

    @Override
    @SuppressWarnings("rawtypes")
    public boolean isBodyAssignableTo(Class c) {
        return hasNoBody() || (streamed == null && c != null && c.isAssignableFrom(byte[].class));
    }

    // ---------------------------------------------------------------- streamed bodies

    @Override
    void streamProperty(String name, Object value) throws JMSException {
        if (name.equals(INPUT_STREAM)) {
            checkBodyWritable();
            if (value == null) {
                throw new MessageFormatException(INPUT_STREAM + " must not be null: set the java.io.InputStream the"
                        + " body is read from when the message is sent");
            }
            if (!(value instanceof InputStream stream)) {
                throw new MessageFormatException(INPUT_STREAM + " cannot hold a "
                        + value.getClass().getName() + ": expected a java.io.InputStream");
            }
            if (written.size() > 0) {
                throw new MessageFormatException("this BytesMessage has " + written.size() + " bytes written: a body"
                        + " streamed from " + INPUT_STREAM + " is the whole body (call clearBody() first)");
            }
            sendStream = stream;
        } else if (name.equals(SAVE_STREAM)) {
            if (!(value instanceof OutputStream target)) {
                throw new MessageFormatException(SAVE_STREAM + " takes the java.io.OutputStream to write the body to,"
                        + " not "
                        + (value == null ? "null" : "a " + value.getClass().getName()));
            }
            save(target);
        } else {
            throw new MessageFormatException(OUTPUT_STREAM + " (a non-blocking save) is not offered: it would"
                    + " still be writing after the message is acknowledged, when the body may be deleted; set "
                    + SAVE_STREAM + " (it returns when the body is written), from a thread of your own if need be");
        }
    }

    /** The producer's {@code JMS_ShardQ_InputStream}; other names as for any message. */
    @Override
    public Object getObjectProperty(String name) {
        return name.equals(INPUT_STREAM) ? sendStream : super.getObjectProperty(name);
    }

    /** Writes the whole body of a received message to {@code target}, one chunk at a time when streamed. */
    private void save(OutputStream target) throws JMSException {
        if (!bodyReadOnly) {
            throw new MessageNotReadableException(SAVE_STREAM + " saves the body of a received message: this message's"
                    + " body is write-only (call reset() to read it)");
        }
        try (InputStream body = streamed != null
                ? opener.open(streamed, "message " + getJMSMessageID())
                : new ByteArrayInputStream(in.array(), 0, in.limit())) {
            body.transferTo(target);
            target.flush();
        } catch (IOException e) {
            throw (JMSException) new JMSException("saving the body of message " + getJMSMessageID() + " to "
                            + SAVE_STREAM + " failed: " + e.getMessage())
                    .initCause(e);
        }
    }

    /** A received streamed body ({@code in} stays empty): reads go to {@code opener}, one chunk at a time. */
    void loadStreamed(StreamedBody body, BodyOpener opener) {
        loadBody(new byte[0]);
        this.streamed = body;
        this.opener = opener;
    }

    /**
     * What a send streams as this message's body: the producer's {@code JMS_ShardQ_InputStream}, or
     * the streamed body of a received message sent on; null for an ordinary body.
     *
     * @throws MessageFormatException when bytes were also written
     */
    InputStream streamToSend() throws JMSException {
        if (sendStream != null) {
            if (!bodyReadOnly && written.size() > 0) {
                throw new MessageFormatException("this BytesMessage has both " + written.size() + " bytes written and"
                        + " a body stream in " + INPUT_STREAM + ": set one of them");
            }
            return sendStream;
        }
        return streamed == null ? null : opener.open(streamed, "message " + getJMSMessageID());
    }

    private DataInputStream streamIn() {
        if (streamIn == null) {
            streamIn = new DataInputStream(opener.open(streamed, "message " + getJMSMessageID()));
        }
        return streamIn;
    }

    private void closeStreamIn() {
        if (streamIn != null) {
            try {
                streamIn.close();
            } catch (IOException ignored) {
                // a chunk reader holds nothing to release
            }
            streamIn = null;
        }
    }

    private MessageEOFException eof(IOException e) {
        return (MessageEOFException)
                new MessageEOFException("end of the streamed body of message " + getJMSMessageID()).initCause(e);
    }

    private JMSException readFailed(IOException e) {
        return (JMSException) new JMSException(
                        "reading the streamed body of message " + getJMSMessageID() + " failed: " + e.getMessage())
                .initCause(e);
    }

    @Override
    BrokerMessage.BodyType bodyType() {
        return BrokerMessage.BodyType.BYTES;
    }
}
