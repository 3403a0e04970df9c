package io.shardq.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import jakarta.jms.MessageEOFException;
import jakarta.jms.MessageFormatException;
import jakarta.jms.MessageNotReadableException;
import jakarta.jms.MessageNotWriteableException;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import org.junit.jupiter.api.Test;

class ShardQBytesMessageTest {

    private final ShardQBytesMessage message = new ShardQBytesMessage();

    @Test
    void readEveryType_returnsWrittenValues_inOrderAfterReset() throws Exception {
        message.writeBoolean(true);
        message.writeByte((byte) -2);
        message.writeShort((short) -3);
        message.writeChar('é');
        message.writeInt(-4);
        message.writeLong(Long.MIN_VALUE);
        message.writeFloat(5.5f);
        message.writeDouble(Double.MAX_VALUE);
        message.writeUTF("grüße 𝄞");
        message.writeBytes(new byte[] {1, 2});
        message.writeBytes(new byte[] {9, 3, 4, 9}, 1, 2);

        message.reset();

        assertThat(message.readBoolean()).isTrue();
        assertThat(message.readByte()).isEqualTo((byte) -2);
        assertThat(message.readShort()).isEqualTo((short) -3);
        assertThat(message.readChar()).isEqualTo('é');
        assertThat(message.readInt()).isEqualTo(-4);
        assertThat(message.readLong()).isEqualTo(Long.MIN_VALUE);
        assertThat(message.readFloat()).isEqualTo(5.5f);
        assertThat(message.readDouble()).isEqualTo(Double.MAX_VALUE);
        assertThat(message.readUTF()).isEqualTo("grüße 𝄞");
        byte[] rest = new byte[10];
        assertThat(message.readBytes(rest)).isEqualTo(4);
        assertThat(rest).startsWith(1, 2, 3, 4);
        assertThat(message.readBytes(rest)).isEqualTo(-1);
    }

    @Test
    void body_usesDataOutputEncoding_soOtherClientsCanReadIt() throws Exception {
        message.writeInt(258);
        message.writeUTF("hi");
        message.reset();

        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(expected);
        out.writeInt(258);
        out.writeUTF("hi");
        assertThat(message.bodyBytes()).isEqualTo(expected.toByteArray());
    }

    @Test
    void readUnsigned_returnsValuesAboveSignedRange() throws Exception {
        message.writeByte((byte) 0xF0);
        message.writeShort((short) 0xFFFE);
        message.reset();

        assertThat(message.readUnsignedByte()).isEqualTo(0xF0);
        assertThat(message.readUnsignedShort()).isEqualTo(0xFFFE);
    }

    @Test
    void read_throwsMessageNotReadable_whenInWriteMode() throws Exception {
        message.writeInt(1);

        assertThatThrownBy(message::readInt)
                .isInstanceOf(MessageNotReadableException.class)
                .hasMessageContaining("reset()");
        assertThatThrownBy(message::getBodyLength).isInstanceOf(MessageNotReadableException.class);
        assertThatThrownBy(() -> message.readBytes(new byte[1])).isInstanceOf(MessageNotReadableException.class);
        assertThatThrownBy(message::readUTF).isInstanceOf(MessageNotReadableException.class);
    }

    @Test
    void write_throwsMessageNotWriteable_afterReset() throws Exception {
        message.writeInt(1);
        message.reset();

        assertThatThrownBy(() -> message.writeInt(2)).isInstanceOf(MessageNotWriteableException.class);
        assertThatThrownBy(() -> message.writeBytes(new byte[1])).isInstanceOf(MessageNotWriteableException.class);
        assertThatThrownBy(() -> message.writeUTF("x")).isInstanceOf(MessageNotWriteableException.class);
        assertThatThrownBy(() -> message.writeObject(1)).isInstanceOf(MessageNotWriteableException.class);
    }

    @Test
    void getBodyLength_countsAllBytes_whateverThePosition() throws Exception {
        message.writeLong(1);
        message.writeShort((short) 1);
        message.reset();
        message.readLong();

        assertThat(message.getBodyLength()).isEqualTo(10);
    }

    @Test
    void readInt_throwsMessageEOF_andKeepsPosition_whenFewerBytesLeft() throws Exception {
        message.writeShort((short) 7);
        message.reset();

        assertThatThrownBy(message::readInt)
                .isInstanceOf(MessageEOFException.class)
                .hasMessageContaining("4 bytes needed");
        assertThat(message.readShort()).isEqualTo((short) 7);
        assertThatThrownBy(message::readByte).isInstanceOf(MessageEOFException.class);
    }

    @Test
    void readUTF_throwsMessageEOF_whenStringTruncated() throws Exception {
        message.writeShort((short) 10);
        message.writeByte((byte) 'a');
        message.reset();

        assertThatThrownBy(message::readUTF).isInstanceOf(MessageEOFException.class);
        assertThat(message.readShort()).isEqualTo((short) 10);
    }

    @Test
    void readUTF_throwsMessageFormat_whenBytesNotModifiedUtf8() throws Exception {
        message.writeShort((short) 1);
        message.writeByte((byte) 0xFF);
        message.reset();

        assertThatThrownBy(message::readUTF).isInstanceOf(MessageFormatException.class);
    }

    @Test
    void writeUTF_throwsMessageFormat_whenLongerThan65535Bytes() {
        String tooLong = "x".repeat(65536);

        assertThatThrownBy(() -> message.writeUTF(tooLong))
                .isInstanceOf(MessageFormatException.class)
                .hasMessageContaining("65535");
    }

    @Test
    void readBytes_fillsArray_thenReturnsRemainder_thenMinusOne() throws Exception {
        message.writeBytes(new byte[] {1, 2, 3, 4, 5});
        message.reset();
        byte[] buffer = new byte[2];

        assertThat(message.readBytes(buffer)).isEqualTo(2);
        assertThat(buffer).containsExactly(1, 2);
        assertThat(message.readBytes(buffer)).isEqualTo(2);
        assertThat(buffer).containsExactly(3, 4);
        assertThat(message.readBytes(buffer)).isEqualTo(1);
        assertThat(buffer[0]).isEqualTo((byte) 5);
        assertThat(message.readBytes(buffer)).isEqualTo(-1);
    }

    @Test
    void readBytes_returnsMinusOne_whenBodyEmpty() throws Exception {
        message.reset();

        assertThat(message.readBytes(new byte[4])).isEqualTo(-1);
        assertThat(message.getBodyLength()).isZero();
    }

    @Test
    void readBytesWithLength_readsAtMostLength() throws Exception {
        message.writeBytes(new byte[] {1, 2, 3});
        message.reset();
        byte[] buffer = new byte[3];

        assertThat(message.readBytes(buffer, 2)).isEqualTo(2);
        assertThat(buffer).containsExactly(1, 2, 0);
    }

    @Test
    void readBytesWithLength_throwsIndexOutOfBounds_whenLengthInvalid() throws Exception {
        message.reset();

        assertThatThrownBy(() -> message.readBytes(new byte[2], 3)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> message.readBytes(new byte[2], -1)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void reset_rewindsToStart_whenAlreadyReading() throws Exception {
        message.writeInt(42);
        message.reset();
        message.readInt();

        message.reset();

        assertThat(message.readInt()).isEqualTo(42);
    }

    @Test
    void clearBody_emptiesAndReturnsToWriteMode() throws Exception {
        message.writeInt(1);
        message.reset();

        message.clearBody();
        message.writeByte((byte) 9);
        message.reset();

        assertThat(message.getBodyLength()).isEqualTo(1);
        assertThat(message.readByte()).isEqualTo((byte) 9);
    }

    @Test
    void writeObject_writesEachSupportedType_likeTypedWriters() throws Exception {
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
        message.reset();

        assertThat(message.readBoolean()).isTrue();
        assertThat(message.readByte()).isEqualTo((byte) 1);
        assertThat(message.readShort()).isEqualTo((short) 2);
        assertThat(message.readChar()).isEqualTo('c');
        assertThat(message.readInt()).isEqualTo(3);
        assertThat(message.readLong()).isEqualTo(4L);
        assertThat(message.readFloat()).isEqualTo(5f);
        assertThat(message.readDouble()).isEqualTo(6d);
        assertThat(message.readUTF()).isEqualTo("s");
        assertThat(message.readByte()).isEqualTo((byte) 7);
    }

    @Test
    void writeObject_throwsNullPointer_whenNull() {
        assertThatThrownBy(() -> message.writeObject(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void writeObject_throwsMessageFormat_whenTypeNotSupported() {
        assertThatThrownBy(() -> message.writeObject(new java.util.Date()))
                .isInstanceOf(MessageFormatException.class)
                .hasMessageContaining("java.util.Date");
    }

    @Test
    void getBody_returnsCopyOfWholeBody_inEitherMode() throws Exception {
        message.writeBytes(new byte[] {1, 2, 3});
        assertThat(message.getBody(byte[].class)).containsExactly(1, 2, 3);

        message.reset();
        message.readByte();
        byte[] body = message.getBody(byte[].class);
        body[0] = 99;

        assertThat(message.getBody(Object.class)).isEqualTo(new byte[] {1, 2, 3});
        assertThat(message.readByte()).isEqualTo((byte) 2);
    }

    @Test
    void getBody_returnsNull_whenBodyEmpty() throws Exception {
        assertThat(message.getBody(String.class)).isNull();
        assertThat(message.isBodyAssignableTo(String.class)).isTrue();
    }

    @Test
    void getBody_throwsMessageFormat_whenTypeNotByteArray() throws Exception {
        message.writeByte((byte) 1);

        assertThat(message.isBodyAssignableTo(String.class)).isFalse();
        assertThatThrownBy(() -> message.getBody(String.class)).isInstanceOf(MessageFormatException.class);
    }

    @Test
    void markReadOnly_switchesToReadMode_whenWriting() throws Exception {
        message.writeInt(5);

        message.markReadOnly();

        assertThat(message.readInt()).isEqualTo(5);
        assertThatThrownBy(() -> message.writeInt(1)).isInstanceOf(MessageNotWriteableException.class);
    }
}
