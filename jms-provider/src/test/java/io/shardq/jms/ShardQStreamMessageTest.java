package io.shardq.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.jms.ConversionTable.JmsType;
import jakarta.jms.JMSException;
import jakarta.jms.MessageEOFException;
import jakarta.jms.MessageFormatException;
import jakarta.jms.MessageNotReadableException;
import jakarta.jms.MessageNotWriteableException;
import jakarta.jms.StreamMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ShardQStreamMessageTest {

    private final ShardQStreamMessage message = new ShardQStreamMessage();

    static void write(StreamMessage m, JmsType type, Object v) throws JMSException {
        switch (type) {
            case BOOLEAN -> m.writeBoolean((Boolean) v);
            case BYTE -> m.writeByte((Byte) v);
            case SHORT -> m.writeShort((Short) v);
            case CHAR -> m.writeChar((Character) v);
            case INT -> m.writeInt((Integer) v);
            case LONG -> m.writeLong((Long) v);
            case FLOAT -> m.writeFloat((Float) v);
            case DOUBLE -> m.writeDouble((Double) v);
            case STRING -> m.writeString((String) v);
            case BYTES -> m.writeBytes((byte[]) v);
        }
    }

    static Object read(StreamMessage m, JmsType type) throws JMSException {
        return switch (type) {
            case BOOLEAN -> m.readBoolean();
            case BYTE -> m.readByte();
            case SHORT -> m.readShort();
            case CHAR -> m.readChar();
            case INT -> m.readInt();
            case LONG -> m.readLong();
            case FLOAT -> m.readFloat();
            case DOUBLE -> m.readDouble();
            case STRING -> m.readString();
            case BYTES -> {
                byte[] buffer = new byte[64];
                int n = m.readBytes(buffer);
                yield java.util.Arrays.copyOf(buffer, n);
            }
        };
    }

    @ParameterizedTest(name = "{0} read as {1}")
    @MethodSource("io.shardq.jms.ConversionTable#allPairs")
    void read_followsSpecConversionTable_andKeepsPositionOnFailure(JmsType written, JmsType read) throws Exception {
        write(message, written, ConversionTable.SAMPLE.get(written));
        message.reset();

        if (ConversionTable.allowed(written, read)) {
            assertThat(read(message, read)).isEqualTo(ConversionTable.expected(written, read));
        } else {
            assertThatThrownBy(() -> read(message, read)).isInstanceOf(MessageFormatException.class);
            assertThat(message.readObject()).isEqualTo(ConversionTable.SAMPLE.get(written));
        }
    }

    @Test
    void readInt_throwsNumberFormat_andKeepsPosition_whenStringNotNumeric() throws Exception {
        message.writeString("abc");
        message.reset();

        assertThatThrownBy(message::readInt).isInstanceOf(NumberFormatException.class);
        assertThat(message.readString()).isEqualTo("abc");
    }

    @Test
    void readNull_convertsLikeValueOfNull_andKeepsPositionOnFailure() throws Exception {
        message.writeString(null);
        message.reset();

        assertThatThrownBy(message::readInt).isInstanceOf(NumberFormatException.class);
        assertThatThrownBy(message::readLong).isInstanceOf(NumberFormatException.class);
        assertThatThrownBy(message::readFloat).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(message::readDouble).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(message::readChar).isInstanceOf(NullPointerException.class);
        assertThat(message.readBoolean()).isFalse();
        message.reset();
        assertThat(message.readString()).isNull();
        message.reset();
        assertThat(message.readObject()).isNull();
        message.reset();
        assertThat(message.readBytes(new byte[1])).isEqualTo(-1);
        assertThatThrownBy(message::readObject).isInstanceOf(MessageEOFException.class);
    }

    @Test
    void readObject_returnsExactTypes_inOrder() throws Exception {
        message.writeObject(true);
        message.writeObject((byte) 1);
        message.writeObject((short) 2);
        message.writeObject('c');
        message.writeObject(3);
        message.writeObject(4L);
        message.writeObject(5f);
        message.writeObject(6d);
        message.writeObject("s");
        message.writeObject(new byte[] {7});
        message.writeObject(null);
        message.reset();

        assertThat(message.readObject()).isEqualTo(true);
        assertThat(message.readObject()).isExactlyInstanceOf(Byte.class).isEqualTo((byte) 1);
        assertThat(message.readObject()).isExactlyInstanceOf(Short.class).isEqualTo((short) 2);
        assertThat(message.readObject()).isEqualTo('c');
        assertThat(message.readObject()).isExactlyInstanceOf(Integer.class).isEqualTo(3);
        assertThat(message.readObject()).isExactlyInstanceOf(Long.class).isEqualTo(4L);
        assertThat(message.readObject()).isExactlyInstanceOf(Float.class).isEqualTo(5f);
        assertThat(message.readObject()).isExactlyInstanceOf(Double.class).isEqualTo(6d);
        assertThat(message.readObject()).isEqualTo("s");
        assertThat(message.readObject()).isEqualTo(new byte[] {7});
        assertThat(message.readObject()).isNull();
        assertThatThrownBy(message::readObject).isInstanceOf(MessageEOFException.class);
    }

    @Test
    void readBytes_returnsChunks_thenMinusOne_thenNextField() throws Exception {
        message.writeBytes(new byte[] {1, 2, 3, 4, 5});
        message.writeInt(9);
        message.reset();
        byte[] buffer = new byte[2];

        assertThat(message.readBytes(buffer)).isEqualTo(2);
        assertThat(buffer).containsExactly(1, 2);
        assertThat(message.readBytes(buffer)).isEqualTo(2);
        assertThat(buffer).containsExactly(3, 4);
        assertThat(message.readBytes(buffer)).isEqualTo(1);
        assertThat(buffer[0]).isEqualTo((byte) 5);
        assertThat(message.readBytes(buffer)).isEqualTo(-1);
        assertThat(message.readInt()).isEqualTo(9);
    }

    @Test
    void readBytes_returnsMinusOneAfterFullRead_whenBufferExactlyFits() throws Exception {
        message.writeBytes(new byte[] {1, 2});
        message.writeBytes(new byte[] {3});
        message.reset();
        byte[] buffer = new byte[2];

        assertThat(message.readBytes(buffer)).isEqualTo(2);
        assertThat(message.readBytes(buffer)).isEqualTo(-1);
        assertThat(message.readBytes(buffer)).isEqualTo(1);
        assertThat(buffer[0]).isEqualTo((byte) 3);
        assertThat(message.readBytes(buffer)).isEqualTo(-1);
        assertThatThrownBy(() -> message.readBytes(buffer)).isInstanceOf(MessageEOFException.class);
    }

    @Test
    void readBytes_returnsZeroThenMinusOne_whenFieldEmpty() throws Exception {
        message.writeBytes(new byte[0]);
        message.reset();

        assertThat(message.readBytes(new byte[4])).isZero();
        assertThat(message.readBytes(new byte[4])).isEqualTo(-1);
    }

    @Test
    void readBytes_returnsMinusOne_whenFieldNull() throws Exception {
        message.writeBytes(null);
        message.writeInt(1);
        message.reset();

        assertThat(message.readBytes(new byte[4])).isEqualTo(-1);
        assertThat(message.readInt()).isEqualTo(1);
    }

    @Test
    void readOther_throwsMessageFormat_whenByteFieldPartlyRead() throws Exception {
        message.writeBytes(new byte[] {1, 2, 3});
        message.writeInt(9);
        message.reset();
        message.readBytes(new byte[2]);

        assertThatThrownBy(message::readInt)
                .isInstanceOf(MessageFormatException.class)
                .hasMessageContaining("partly read");
        assertThatThrownBy(message::readObject).isInstanceOf(MessageFormatException.class);
        assertThat(message.readBytes(new byte[2])).isEqualTo(1);
        assertThat(message.readInt()).isEqualTo(9);
    }

    @Test
    void readBytes_throwsMessageFormat_andKeepsPosition_whenFieldNotBytes() throws Exception {
        message.writeString("s");
        message.reset();

        assertThatThrownBy(() -> message.readBytes(new byte[1])).isInstanceOf(MessageFormatException.class);
        assertThat(message.readString()).isEqualTo("s");
    }

    @Test
    void readObject_returnsCopy_ofByteField() throws Exception {
        byte[] written = {1, 2};
        message.writeBytes(written);
        written[0] = 9;
        message.reset();

        byte[] read = (byte[]) message.readObject();
        read[1] = 9;
        message.reset();

        assertThat(message.readObject()).isEqualTo(new byte[] {1, 2});
    }

    @Test
    void writeBytesWithOffset_writesSlice() throws Exception {
        message.writeBytes(new byte[] {1, 2, 3, 4}, 1, 2);
        message.reset();

        assertThat(message.readObject()).isEqualTo(new byte[] {2, 3});
        assertThatThrownBy(() -> message.writeBytes(new byte[2], 0, 2))
                .isInstanceOf(MessageNotWriteableException.class);
    }

    @Test
    void read_throwsMessageEOF_atEndOfStream() throws Exception {
        message.writeInt(1);
        message.reset();
        message.readInt();

        assertThatThrownBy(message::readInt).isInstanceOf(MessageEOFException.class);
        assertThatThrownBy(message::readString).isInstanceOf(MessageEOFException.class);
        assertThatThrownBy(() -> message.readBytes(new byte[1])).isInstanceOf(MessageEOFException.class);
    }

    @Test
    void read_throwsMessageNotReadable_whenInWriteMode() throws Exception {
        message.writeInt(1);

        assertThatThrownBy(message::readInt).isInstanceOf(MessageNotReadableException.class);
        assertThatThrownBy(message::readObject).isInstanceOf(MessageNotReadableException.class);
        assertThatThrownBy(() -> message.readBytes(new byte[1])).isInstanceOf(MessageNotReadableException.class);
    }

    @Test
    void write_throwsMessageNotWriteable_afterReset() throws Exception {
        message.reset();

        assertThatThrownBy(() -> message.writeInt(1)).isInstanceOf(MessageNotWriteableException.class);
        assertThatThrownBy(() -> message.writeObject("x")).isInstanceOf(MessageNotWriteableException.class);
    }

    @Test
    void reset_rewindsToFirstField_whenReading() throws Exception {
        message.writeInt(1);
        message.writeInt(2);
        message.reset();
        message.readInt();
        message.readInt();

        message.reset();

        assertThat(message.readInt()).isEqualTo(1);
    }

    @Test
    void clearBody_emptiesAndReturnsToWriteMode() throws Exception {
        message.writeInt(1);
        message.reset();

        message.clearBody();
        message.writeString("new");
        message.reset();

        assertThat(message.readString()).isEqualTo("new");
        assertThatThrownBy(message::readString).isInstanceOf(MessageEOFException.class);
    }

    @Test
    void writeObject_throwsMessageFormat_whenTypeNotSupported() {
        assertThatThrownBy(() -> message.writeObject(new StringBuilder("x")))
                .isInstanceOf(MessageFormatException.class)
                .hasMessageContaining("java.lang.StringBuilder");
    }

    @Test
    void getBody_throwsMessageFormat_andIsNeverAssignable() throws Exception {
        message.writeInt(1);

        assertThat(message.isBodyAssignableTo(Object.class)).isFalse();
        assertThatThrownBy(() -> message.getBody(Object.class)).isInstanceOf(MessageFormatException.class);
    }
}
