package io.shardq.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.jms.ConversionTable.JmsType;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageFormatException;
import jakarta.jms.MessageNotWriteableException;
import java.util.Collections;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class ShardQMessagePropertiesTest {

    private final ShardQMessage message = new ShardQMessage();

    static void write(Message m, String name, JmsType type, Object v) throws JMSException {
        switch (type) {
            case BOOLEAN -> m.setBooleanProperty(name, (Boolean) v);
            case BYTE -> m.setByteProperty(name, (Byte) v);
            case SHORT -> m.setShortProperty(name, (Short) v);
            case INT -> m.setIntProperty(name, (Integer) v);
            case LONG -> m.setLongProperty(name, (Long) v);
            case FLOAT -> m.setFloatProperty(name, (Float) v);
            case DOUBLE -> m.setDoubleProperty(name, (Double) v);
            case STRING -> m.setStringProperty(name, (String) v);
            default -> throw new IllegalArgumentException(type + " is not a property type");
        }
    }

    static Object read(Message m, String name, JmsType type) throws JMSException {
        return switch (type) {
            case BOOLEAN -> m.getBooleanProperty(name);
            case BYTE -> m.getByteProperty(name);
            case SHORT -> m.getShortProperty(name);
            case INT -> m.getIntProperty(name);
            case LONG -> m.getLongProperty(name);
            case FLOAT -> m.getFloatProperty(name);
            case DOUBLE -> m.getDoubleProperty(name);
            case STRING -> m.getStringProperty(name);
            default -> throw new IllegalArgumentException(type + " is not a property type");
        };
    }

    @ParameterizedTest(name = "{0} read as {1}")
    @MethodSource("io.shardq.jms.ConversionTable#propertyPairs")
    void getProperty_followsSpecConversionTable_forEveryTypePair(JmsType written, JmsType read) throws Exception {
        write(message, "p", written, ConversionTable.SAMPLE.get(written));

        if (ConversionTable.allowed(written, read)) {
            assertThat(read(message, "p", read)).isEqualTo(ConversionTable.expected(written, read));
        } else {
            assertThatThrownBy(() -> read(message, "p", read))
                    .isInstanceOf(MessageFormatException.class)
                    .hasMessageContaining("\"p\"");
        }
        assertThat(message.getObjectProperty("p")).isEqualTo(ConversionTable.SAMPLE.get(written));
    }

    @ParameterizedTest(name = "{0} via setObjectProperty read as {1}")
    @MethodSource("io.shardq.jms.ConversionTable#propertyPairs")
    void setObjectProperty_followsSameConversionTable_asTypedSetters(JmsType written, JmsType read) throws Exception {
        message.setObjectProperty("p", ConversionTable.SAMPLE.get(written));

        if (ConversionTable.allowed(written, read)) {
            assertThat(read(message, "p", read)).isEqualTo(ConversionTable.expected(written, read));
        } else {
            assertThatThrownBy(() -> read(message, "p", read)).isInstanceOf(MessageFormatException.class);
        }
    }

    @Test
    void getIntProperty_convertsString_whenNumeric() throws Exception {
        message.setStringProperty("count", "12");

        assertThat(message.getIntProperty("count")).isEqualTo(12);
        assertThat(message.getLongProperty("count")).isEqualTo(12L);
        assertThat(message.getDoubleProperty("count")).isEqualTo(12.0);
    }

    @Test
    void getIntProperty_throwsNumberFormatException_whenStringNotNumeric() throws Exception {
        message.setStringProperty("count", "twelve");

        assertThatThrownBy(() -> message.getIntProperty("count")).isInstanceOf(NumberFormatException.class);
    }

    @Test
    void getByteProperty_throwsNumberFormatException_whenStringOutOfRange() throws Exception {
        message.setStringProperty("b", "300");

        assertThatThrownBy(() -> message.getByteProperty("b")).isInstanceOf(NumberFormatException.class);
    }

    @Test
    void getBooleanProperty_convertsString_likeBooleanValueOf() throws Exception {
        message.setStringProperty("yes", "TRUE");
        message.setStringProperty("no", "yes");

        assertThat(message.getBooleanProperty("yes")).isTrue();
        assertThat(message.getBooleanProperty("no")).isFalse();
    }

    @Test
    void getIntegralProperty_throwsNumberFormatException_whenMissing() {
        assertThatThrownBy(() -> message.getByteProperty("missing")).isInstanceOf(NumberFormatException.class);
        assertThatThrownBy(() -> message.getShortProperty("missing")).isInstanceOf(NumberFormatException.class);
        assertThatThrownBy(() -> message.getIntProperty("missing")).isInstanceOf(NumberFormatException.class);
        assertThatThrownBy(() -> message.getLongProperty("missing")).isInstanceOf(NumberFormatException.class);
    }

    @Test
    void getFloatingProperty_throwsNullPointerException_whenMissing_likeValueOfNull() {
        // Float.valueOf((String) null) and Double.valueOf((String) null) throw NullPointerException
        assertThatThrownBy(() -> message.getFloatProperty("missing")).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> message.getDoubleProperty("missing")).isInstanceOf(NullPointerException.class);
    }

    @Test
    void getBooleanProperty_returnsFalse_whenMissing() throws Exception {
        assertThat(message.getBooleanProperty("missing")).isFalse();
    }

    @Test
    void getStringAndObjectProperty_returnNull_whenMissing() throws Exception {
        assertThat(message.getStringProperty("missing")).isNull();
        assertThat(message.getObjectProperty("missing")).isNull();
        assertThat(message.propertyExists("missing")).isFalse();
    }

    @Test
    void getStringProperty_formatsNumbers_likeToString() throws Exception {
        message.setFloatProperty("f", 1.25f);
        message.setLongProperty("l", -9_000_000_000L);

        assertThat(message.getStringProperty("f")).isEqualTo("1.25");
        assertThat(message.getStringProperty("l")).isEqualTo("-9000000000");
    }

    @Test
    void getDoubleProperty_widensFloat_exactly() throws Exception {
        message.setFloatProperty("f", 0.1f);

        assertThat(message.getDoubleProperty("f")).isEqualTo((double) 0.1f);
    }

    @ParameterizedTest
    @MethodSource("propertyValues")
    void setObjectProperty_keepsType_forEachPropertyType(Object value) throws Exception {
        message.setObjectProperty("p", value);

        assertThat(message.getObjectProperty("p")).isEqualTo(value).isExactlyInstanceOf(value.getClass());
    }

    static Stream<Object> propertyValues() {
        return Stream.of(true, (byte) 1, (short) 2, 3, 4L, 5.5f, 6.5, "seven");
    }

    @ParameterizedTest
    @MethodSource("invalidPropertyValues")
    void setObjectProperty_throwsMessageFormatException_whenTypeNotAllowed(Object value) {
        assertThatThrownBy(() -> message.setObjectProperty("p", value))
                .isInstanceOf(MessageFormatException.class)
                .hasMessageContaining(value.getClass().getName())
                .hasMessageContaining("expected Boolean, Byte, Short, Integer, Long, Float, Double or String");
        assertThat(message.propertyExists("p")).isFalse();
    }

    static Stream<Object> invalidPropertyValues() {
        return Stream.of('c', new byte[] {1}, new Object(), List.of("a"), new java.math.BigDecimal("1"));
    }

    @Test
    void setProperty_removesProperty_whenValueNull() throws Exception {
        message.setStringProperty("s", "x");
        message.setStringProperty("s", null);
        message.setIntProperty("o", 1);
        message.setObjectProperty("o", null);

        assertThat(message.propertyExists("s")).isFalse();
        assertThat(message.propertyExists("o")).isFalse();
    }

    @Test
    void setProperty_replacesValueAndType_whenNameReused() throws Exception {
        message.setIntProperty("p", 1);
        message.setStringProperty("p", "two");

        assertThat(message.getObjectProperty("p")).isEqualTo("two");
        assertThat(Collections.list(message.getPropertyNames())).containsExactly("p");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                "1abc",
                "a-b",
                "a b",
                "a.b",
                "NULL",
                "true",
                "False",
                "not",
                "And",
                "OR",
                "between",
                "like",
                "in",
                "IS",
                "escape",
                "JMSXDeliveryCount",
                "JMSXUserID",
                "JMSXAppID",
                "JMSXUnknown",
                "JMSType",
                "JMSPriority",
                "JMSfoo",
                "a\u0000b"
            })
    void setProperty_throwsIllegalArgumentException_whenNameInvalid(String name) {
        assertThatThrownBy(() -> message.setStringProperty(name, "v"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("property");
        assertThatThrownBy(() -> message.setObjectProperty(name, 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void setProperty_throwsIllegalArgumentException_whenNameNull() {
        assertThatThrownBy(() -> message.setIntProperty(null, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("null or empty");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "a",
                "_x",
                "$y",
                "näme",
                "a1",
                "camelCase_2",
                "JMS_vendor_extra",
                "JMSXGroupID",
                "nullable",
                "island",
                "ANDROID",
                "inx",
                "Jms"
            })
    void setProperty_acceptsName_whenValidIdentifier(String name) throws Exception {
        message.setStringProperty(name, "v");

        assertThat(message.getStringProperty(name)).isEqualTo("v");
    }

    @Test
    void setJmsxGroupSeq_acceptsInt_andRefusesOtherTypes() throws Exception {
        message.setIntProperty("JMSXGroupSeq", 3);

        assertThat(message.getIntProperty("JMSXGroupSeq")).isEqualTo(3);
        assertThatThrownBy(() -> message.setStringProperty("JMSXGroupSeq", "3"))
                .isInstanceOf(MessageFormatException.class)
                .hasMessageContaining("JMSXGroupSeq must be an int");
        assertThatThrownBy(() -> message.setIntProperty("JMSXGroupID", 3))
                .isInstanceOf(MessageFormatException.class)
                .hasMessageContaining("JMSXGroupID must be a String");
    }

    @Test
    void getPropertyNames_listsProperties_inInsertionOrder() throws Exception {
        message.setIntProperty("b", 1);
        message.setStringProperty("a", "x");
        message.setBooleanProperty("c", true);

        assertThat(Collections.list(message.getPropertyNames())).containsExactly("b", "a", "c");
    }

    @Test
    void getPropertyNames_isSnapshot_whenPropertiesChangeDuringIteration() throws Exception {
        message.setIntProperty("a", 1);
        var names = message.getPropertyNames();
        message.setIntProperty("b", 2);

        assertThat(Collections.list(names)).containsExactly("a");
    }

    @Test
    void setProperty_throwsMessageNotWriteable_whenReadOnly() throws Exception {
        message.setIntProperty("kept", 1);
        message.markReadOnly();

        assertThatThrownBy(() -> message.setIntProperty("p", 1)).isInstanceOf(MessageNotWriteableException.class);
        assertThatThrownBy(() -> message.setBooleanProperty("p", true))
                .isInstanceOf(MessageNotWriteableException.class);
        assertThatThrownBy(() -> message.setByteProperty("p", (byte) 1))
                .isInstanceOf(MessageNotWriteableException.class);
        assertThatThrownBy(() -> message.setShortProperty("p", (short) 1))
                .isInstanceOf(MessageNotWriteableException.class);
        assertThatThrownBy(() -> message.setLongProperty("p", 1L)).isInstanceOf(MessageNotWriteableException.class);
        assertThatThrownBy(() -> message.setFloatProperty("p", 1f)).isInstanceOf(MessageNotWriteableException.class);
        assertThatThrownBy(() -> message.setDoubleProperty("p", 1d)).isInstanceOf(MessageNotWriteableException.class);
        assertThatThrownBy(() -> message.setStringProperty("p", "x"))
                .isInstanceOf(MessageNotWriteableException.class)
                .hasMessageContaining("clearProperties()");
        assertThatThrownBy(() -> message.setObjectProperty("p", 1)).isInstanceOf(MessageNotWriteableException.class);
        assertThat(message.getIntProperty("kept")).isEqualTo(1);
    }

    @Test
    void clearProperties_removesAllAndMakesWritable_whenReadOnly() throws Exception {
        message.setIntProperty("p", 1);
        message.setProviderProperty(ShardQMessage.JMSX_DELIVERY_COUNT, 2);
        message.markReadOnly();

        message.clearProperties();

        assertThat(Collections.list(message.getPropertyNames())).isEmpty();
        assertThatCode(() -> message.setIntProperty("p", 2)).doesNotThrowAnyException();
    }

    @Test
    void clearBody_leavesPropertiesReadOnly_whenReceived() throws Exception {
        message.markReadOnly();

        message.clearBody();

        assertThatThrownBy(() -> message.setIntProperty("p", 1)).isInstanceOf(MessageNotWriteableException.class);
    }

    @Test
    void clearProperties_leavesHeadersAlone() throws Exception {
        message.setJMSType("t");
        message.setJMSCorrelationID("c");
        message.setIntProperty("p", 1);

        message.clearProperties();

        assertThat(message.getJMSType()).isEqualTo("t");
        assertThat(message.getJMSCorrelationID()).isEqualTo("c");
    }
}
