package io.shardq.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.jms.ConversionTable.JmsType;
import jakarta.jms.JMSException;
import jakarta.jms.MapMessage;
import jakarta.jms.MessageFormatException;
import jakarta.jms.MessageNotWriteableException;
import java.util.Collections;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class ShardQMapMessageTest {

    private final ShardQMapMessage message = new ShardQMapMessage();

    static void write(MapMessage m, String name, JmsType type, Object v) throws JMSException {
        switch (type) {
            case BOOLEAN -> m.setBoolean(name, (Boolean) v);
            case BYTE -> m.setByte(name, (Byte) v);
            case SHORT -> m.setShort(name, (Short) v);
            case CHAR -> m.setChar(name, (Character) v);
            case INT -> m.setInt(name, (Integer) v);
            case LONG -> m.setLong(name, (Long) v);
            case FLOAT -> m.setFloat(name, (Float) v);
            case DOUBLE -> m.setDouble(name, (Double) v);
            case STRING -> m.setString(name, (String) v);
            case BYTES -> m.setBytes(name, (byte[]) v);
        }
    }

    static Object read(MapMessage m, String name, JmsType type) throws JMSException {
        return switch (type) {
            case BOOLEAN -> m.getBoolean(name);
            case BYTE -> m.getByte(name);
            case SHORT -> m.getShort(name);
            case CHAR -> m.getChar(name);
            case INT -> m.getInt(name);
            case LONG -> m.getLong(name);
            case FLOAT -> m.getFloat(name);
            case DOUBLE -> m.getDouble(name);
            case STRING -> m.getString(name);
            case BYTES -> m.getBytes(name);
        };
    }

    @ParameterizedTest(name = "{0} read as {1}")
    @MethodSource("io.shardq.jms.ConversionTable#allPairs")
    void get_followsSpecConversionTable_forEveryTypePair(JmsType written, JmsType read) throws Exception {
        write(message, "item", written, ConversionTable.SAMPLE.get(written));

        if (ConversionTable.allowed(written, read)) {
            assertThat(read(message, "item", read)).isEqualTo(ConversionTable.expected(written, read));
        } else {
            assertThatThrownBy(() -> read(message, "item", read))
                    .isInstanceOf(MessageFormatException.class)
                    .hasMessageContaining("map item \"item\"");
        }
    }

    @ParameterizedTest(name = "{0} via setObject read as {1}")
    @MethodSource("io.shardq.jms.ConversionTable#allPairs")
    void setObject_followsSameConversionTable_asTypedSetters(JmsType written, JmsType read) throws Exception {
        message.setObject("item", ConversionTable.SAMPLE.get(written));

        if (ConversionTable.allowed(written, read)) {
            assertThat(read(message, "item", read)).isEqualTo(ConversionTable.expected(written, read));
        } else {
            assertThatThrownBy(() -> read(message, "item", read)).isInstanceOf(MessageFormatException.class);
        }
    }

    @Test
    void get_convertsLikeValueOfNull_whenItemMissingOrNull() throws Exception {
        message.setString("nothing", null);

        for (String name : new String[] {"missing", "nothing"}) {
            assertThat(message.getBoolean(name)).isFalse();
            assertThat(message.getString(name)).isNull();
            assertThat(message.getBytes(name)).isNull();
            assertThat(message.getObject(name)).isNull();
            assertThatThrownBy(() -> message.getInt(name)).isInstanceOf(NumberFormatException.class);
            assertThatThrownBy(() -> message.getByte(name)).isInstanceOf(NumberFormatException.class);
            assertThatThrownBy(() -> message.getShort(name)).isInstanceOf(NumberFormatException.class);
            assertThatThrownBy(() -> message.getLong(name)).isInstanceOf(NumberFormatException.class);
            assertThatThrownBy(() -> message.getFloat(name)).isInstanceOf(NullPointerException.class);
            assertThatThrownBy(() -> message.getDouble(name)).isInstanceOf(NullPointerException.class);
            assertThatThrownBy(() -> message.getChar(name)).isInstanceOf(NullPointerException.class);
        }
    }

    @Test
    void getInt_convertsString_whenNumeric() throws Exception {
        message.setString("n", "-12");

        assertThat(message.getInt("n")).isEqualTo(-12);
    }

    @Test
    void itemExists_isTrue_forNullValue() throws Exception {
        message.setObject("nothing", null);

        assertThat(message.itemExists("nothing")).isTrue();
        assertThat(message.itemExists("missing")).isFalse();
    }

    @Test
    void getMapNames_listsNames_inInsertionOrder() throws Exception {
        message.setInt("b", 1);
        message.setString("a", "x");
        message.setBytes("c", null);

        assertThat(Collections.list(message.getMapNames())).containsExactly("b", "a", "c");
    }

    @Test
    void setBytes_copiesInAndOut() throws Exception {
        byte[] value = {1, 2};
        message.setBytes("b", value);
        value[0] = 9;

        byte[] read = message.getBytes("b");
        read[1] = 9;
        ((byte[]) message.getObject("b"))[1] = 9;

        assertThat(message.getBytes("b")).containsExactly(1, 2);
    }

    @Test
    void setBytesWithOffset_storesSlice() throws Exception {
        message.setBytes("b", new byte[] {1, 2, 3, 4}, 1, 2);

        assertThat(message.getBytes("b")).containsExactly(2, 3);
        assertThatThrownBy(() -> message.setBytes("b", new byte[2], 1, 2))
                .isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void setObject_throwsMessageFormat_whenTypeNotSupported() {
        assertThatThrownBy(() -> message.setObject("x", new java.util.ArrayList<>()))
                .isInstanceOf(MessageFormatException.class)
                .hasMessageContaining("java.util.ArrayList");
        assertThat(message.itemExists("x")).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {""})
    void set_throwsIllegalArgument_whenNameEmpty(String name) {
        assertThatThrownBy(() -> message.setInt(name, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> message.setObject(name, 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void set_throwsIllegalArgument_whenNameNull() {
        assertThatThrownBy(() -> message.setString(null, "x")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void set_acceptsAnyNonEmptyName_notOnlyIdentifiers() throws Exception {
        message.setInt("not an identifier!", 1);

        assertThat(message.getInt("not an identifier!")).isEqualTo(1);
    }

    @Test
    void set_throwsMessageNotWriteable_whenReadOnly() throws Exception {
        message.setInt("a", 1);
        message.markReadOnly();

        assertThatThrownBy(() -> message.setInt("b", 2))
                .isInstanceOf(MessageNotWriteableException.class)
                .hasMessageContaining("clearBody()");
        assertThatThrownBy(() -> message.setObject("b", 2)).isInstanceOf(MessageNotWriteableException.class);
        assertThatThrownBy(() -> message.setBytes("b", new byte[1])).isInstanceOf(MessageNotWriteableException.class);
        assertThat(message.getInt("a")).isEqualTo(1);
    }

    @Test
    void clearBody_emptiesAndMakesWritable() throws Exception {
        message.setInt("a", 1);
        message.markReadOnly();

        message.clearBody();

        assertThat(message.itemExists("a")).isFalse();
        assertThatCode(() -> message.setInt("b", 2)).doesNotThrowAnyException();
    }

    @Test
    void getBody_returnsCopyOfMap_whenAssignable() throws Exception {
        message.setInt("a", 1);
        message.setBytes("b", new byte[] {2});

        @SuppressWarnings("unchecked")
        Map<String, Object> body = message.getBody(Map.class);
        body.put("c", 3);
        ((byte[]) body.get("b"))[0] = 9;

        assertThat(body).containsEntry("a", 1);
        assertThat(message.itemExists("c")).isFalse();
        assertThat(message.getBytes("b")).containsExactly(2);
        assertThat(message.isBodyAssignableTo(Object.class)).isTrue();
    }

    @Test
    void getBody_throwsMessageFormat_whenTypeNotMap() throws Exception {
        message.setInt("a", 1);

        assertThat(message.isBodyAssignableTo(java.util.HashMap.class)).isFalse();
        assertThatThrownBy(() -> message.getBody(String.class)).isInstanceOf(MessageFormatException.class);
    }

    @Test
    void getBody_returnsNull_whenMapEmpty() throws Exception {
        assertThat(message.getBody(String.class)).isNull();
    }
}
