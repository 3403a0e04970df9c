package io.shardq.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.message.BrokerMessage.BodyType;
import io.shardq.jms.ForeignMessages.ForeignTextMessage;
import jakarta.jms.BytesMessage;
import jakarta.jms.DeliveryMode;
import jakarta.jms.MapMessage;
import jakarta.jms.Message;
import jakarta.jms.MessageFormatException;
import jakarta.jms.MessageNotWriteableException;
import jakarta.jms.ObjectMessage;
import jakarta.jms.Queue;
import jakarta.jms.StreamMessage;
import jakarta.jms.TextMessage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class MessageCodecTest {

    private static final ShardQQueue ORDERS = new ShardQQueue("orders");

    private static ShardQMessage roundTrip(Message m) throws Exception {
        return MessageCodec.fromBroker(MessageCodec.toBroker(m), ORDERS, 1);
    }

    /** Sets every header a producer sets and one property of each type, extremes included. */
    private static <T extends Message> T withHeadersAndProperties(T m) throws Exception {
        m.setJMSMessageID("ID:shardq-1");
        m.setJMSTimestamp(1_700_000_000_123L);
        m.setJMSCorrelationID("corr-ü");
        m.setJMSType("order.created");
        m.setJMSReplyTo(new ShardQTopic("replies"));
        m.setJMSPriority(7);
        m.setJMSExpiration(1_700_000_060_000L);
        m.setJMSDeliveryTime(1_700_000_005_000L);
        m.setJMSDeliveryMode(DeliveryMode.NON_PERSISTENT);
        m.setBooleanProperty("aBoolean", true);
        m.setByteProperty("aByte", Byte.MIN_VALUE);
        m.setShortProperty("aShort", Short.MAX_VALUE);
        m.setIntProperty("anInt", Integer.MIN_VALUE);
        m.setLongProperty("aLong", Long.MAX_VALUE);
        m.setFloatProperty("aFloat", Float.NaN);
        m.setDoubleProperty("aDouble", -0.0);
        m.setStringProperty("aString", "grüße 𝄞");
        m.setStringProperty("anEmptyString", "");
        m.setStringProperty("JMSXGroupID", "group-1");
        m.setIntProperty("JMSXGroupSeq", 2);
        return m;
    }

    private static void assertSameHeadersAndProperties(Message received, Message sent) throws Exception {
        assertThat(received.getJMSMessageID()).isEqualTo(sent.getJMSMessageID());
        assertThat(received.getJMSTimestamp()).isEqualTo(sent.getJMSTimestamp());
        assertThat(received.getJMSCorrelationID()).isEqualTo(sent.getJMSCorrelationID());
        assertThat(received.getJMSType()).isEqualTo(sent.getJMSType());
        assertThat(received.getJMSReplyTo()).isEqualTo(sent.getJMSReplyTo());
        assertThat(received.getJMSPriority()).isEqualTo(sent.getJMSPriority());
        assertThat(received.getJMSExpiration()).isEqualTo(sent.getJMSExpiration());
        assertThat(received.getJMSDeliveryTime()).isEqualTo(sent.getJMSDeliveryTime());
        assertThat(received.getJMSDeliveryMode()).isEqualTo(sent.getJMSDeliveryMode());
        assertThat(received.getJMSDestination()).isEqualTo(ORDERS);
        List<Object> sentNames = Collections.list(sent.getPropertyNames());
        for (Object name : sentNames) {
            Object value = received.getObjectProperty((String) name);
            assertThat(value).as((String) name).isEqualTo(sent.getObjectProperty((String) name));
            assertThat(value)
                    .as((String) name)
                    .isExactlyInstanceOf(sent.getObjectProperty((String) name).getClass());
        }
        List<Object> names = new ArrayList<>(sentNames);
        names.add(ShardQMessage.JMSX_DELIVERY_COUNT);
        assertThat(Collections.list(received.getPropertyNames())).containsExactlyElementsOf(names);
    }

    // ---------------------------------------------------------------- round trips, one per body type

    @Test
    void roundTrip_keepsHeadersAndEveryPropertyType_forMessageWithoutBody() throws Exception {
        ShardQMessage sent = withHeadersAndProperties(new ShardQMessage());

        ShardQMessage received = roundTrip(sent);

        assertThat(received).isExactlyInstanceOf(ShardQMessage.class);
        assertSameHeadersAndProperties(received, sent);
    }

    @ParameterizedTest
    @NullAndEmptySource
    @ValueSource(strings = {"hello", "grüße 𝄞 ✓", "\u0000", "\u00ff"})
    void roundTrip_keepsText_includingNullAndEmpty(String text) throws Exception {
        ShardQTextMessage sent = withHeadersAndProperties(new ShardQTextMessage());
        sent.setText(text);

        ShardQMessage received = roundTrip(sent);

        assertThat(received).isExactlyInstanceOf(ShardQTextMessage.class);
        assertThat(((TextMessage) received).getText()).isEqualTo(text);
        assertSameHeadersAndProperties(received, sent);
    }

    @Test
    void toBroker_storesTextAsPlainUtf8_andNullAsOneMarkerByte() throws Exception {
        assertThat(MessageCodec.toBroker(new ShardQTextMessage("é")).body())
                .isEqualTo("é".getBytes(StandardCharsets.UTF_8));
        assertThat(MessageCodec.toBroker(new ShardQTextMessage("")).body()).isEmpty();
        assertThat(MessageCodec.toBroker(new ShardQTextMessage(null)).body()).containsExactly(0xFF);
    }

    @Test
    void roundTrip_keepsBytes_writtenButNotReset() throws Exception {
        ShardQBytesMessage sent = withHeadersAndProperties(new ShardQBytesMessage());
        sent.writeInt(42);
        sent.writeUTF("x");

        BytesMessage received = (BytesMessage) roundTrip(sent);

        assertThat(received.getBodyLength()).isEqualTo(7);
        assertThat(received.readInt()).isEqualTo(42);
        assertThat(received.readUTF()).isEqualTo("x");
        assertSameHeadersAndProperties(received, sent);
        assertThatCode(() -> sent.writeInt(1))
                .as("sending leaves the sender's message writable")
                .doesNotThrowAnyException();
    }

    @Test
    void bytesSentWithoutACopy_stayAsSent_whenTheMessageIsWrittenAgainOrCleared() throws Exception {
        ShardQBytesMessage m = new ShardQBytesMessage();
        m.writeBytes(new byte[] {
            1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29,
            30, 31, 32
        });
        byte[] first = MessageCodec.toBroker(m).body();
        m.writeByte((byte) 99); // the application goes on writing, then sends again
        byte[] second = MessageCodec.toBroker(m).body();
        m.clearBody();
        m.writeBytes(new byte[32]); // and reuses the message for another body
        byte[] third = MessageCodec.toBroker(m).body();

        assertThat(first).hasSize(32).startsWith(1, 2, 3).endsWith(32);
        assertThat(second).hasSize(33).startsWith(1, 2, 3).endsWith(32, 99);
        assertThat(third).hasSize(32).containsOnly(0);
        assertThat(m.getBody(byte[].class)).isNotSameAs(third); // the application's copy is its own
    }

    @Test
    void roundTrip_keepsMapItems_withExactTypes_nullAndByteArray() throws Exception {
        ShardQMapMessage sent = withHeadersAndProperties(new ShardQMapMessage());
        sent.setBoolean("bool", false);
        sent.setByte("byte", (byte) -1);
        sent.setShort("short", (short) -2);
        sent.setChar("char", '\uD834'); // a lone surrogate: chars travel as two bytes, not UTF-8
        sent.setInt("int", 3);
        sent.setLong("long", -4L);
        sent.setFloat("float", Float.MIN_VALUE);
        sent.setDouble("double", Double.NEGATIVE_INFINITY);
        sent.setString("string", "s");
        sent.setString("emptyString", "");
        sent.setString("nullString", null);
        sent.setBytes("bytes", new byte[] {0, -1, 127});
        sent.setBytes("emptyBytes", new byte[0]);
        sent.setObject("nullObject", null);

        MapMessage received = (MapMessage) roundTrip(sent);

        assertThat(Collections.list(received.getMapNames()))
                .containsExactlyElementsOf(Collections.list(sent.getMapNames()));
        for (Object name : Collections.list(sent.getMapNames())) {
            Object expected = sent.getObject((String) name);
            Object actual = received.getObject((String) name);
            assertThat(actual).as((String) name).isEqualTo(expected);
            if (expected != null) {
                assertThat(actual).as((String) name).isExactlyInstanceOf(expected.getClass());
            }
        }
        assertThat(received.itemExists("nullString")).isTrue();
        assertSameHeadersAndProperties(received, sent);
    }

    @Test
    void roundTrip_keepsStreamFields_withExactTypes_nullAndByteArray() throws Exception {
        ShardQStreamMessage sent = withHeadersAndProperties(new ShardQStreamMessage());
        List<Object> fields = new ArrayList<>(
                List.of(true, (byte) 1, (short) 2, 'c', 3, 4L, 5.5f, Double.NaN, "s", "", new byte[] {9}, new byte[0]));
        fields.add(3, null);
        for (Object f : fields) {
            sent.writeObject(f);
        }

        StreamMessage received = (StreamMessage) roundTrip(sent);

        for (Object expected : fields) {
            Object actual = received.readObject();
            assertThat(actual).isEqualTo(expected);
            if (expected != null) {
                assertThat(actual).isExactlyInstanceOf(expected.getClass());
            }
        }
        assertThatThrownBy(received::readObject).isInstanceOf(jakarta.jms.MessageEOFException.class);
        assertSameHeadersAndProperties(received, sent);
    }

    @Test
    void roundTrip_keepsObject() throws Exception {
        ShardQObjectMessage sent = withHeadersAndProperties(new ShardQObjectMessage());
        sent.setObject(new ArrayList<>(List.of("a", "b")));

        ObjectMessage received = (ObjectMessage) roundTrip(sent);

        assertThat(received.getObject()).isEqualTo(List.of("a", "b"));
        assertSameHeadersAndProperties(received, sent);
    }

    @ParameterizedTest
    @MethodSource("emptyMessages")
    void roundTrip_keepsTypeAndEmptiness_whenBodyEmpty(Supplier<ShardQMessage> factory) throws Exception {
        ShardQMessage sent = factory.get();

        ShardQMessage received = roundTrip(sent);

        assertThat(received).isExactlyInstanceOf(sent.getClass());
        assertThat(received.getBody(Object.class)).isNull();
    }

    static Stream<Supplier<ShardQMessage>> emptyMessages() {
        return Stream.of(
                ShardQMessage::new,
                ShardQTextMessage::new,
                ShardQBytesMessage::new,
                ShardQMapMessage::new,
                ShardQObjectMessage::new);
    }

    @Test
    void roundTrip_keepsEmptyStream() throws Exception {
        StreamMessage received = (StreamMessage) roundTrip(new ShardQStreamMessage());

        assertThatThrownBy(received::readObject).isInstanceOf(jakarta.jms.MessageEOFException.class);
    }

    @Test
    void roundTrip_keepsCorrelationIdBytes_exactly() throws Exception {
        ShardQMessage sent = new ShardQMessage();
        byte[] id = {0, 1, (byte) 0x80, (byte) 0xFF, 'a'};
        sent.setJMSCorrelationIDAsBytes(id);

        assertThat(roundTrip(sent).getJMSCorrelationIDAsBytes()).isEqualTo(id);
    }

    // ---------------------------------------------------------------- header mapping

    @Test
    void toBroker_mapsHeadersToBrokerFields() throws Exception {
        ShardQMessage m = withHeadersAndProperties(new ShardQMessage());

        BrokerMessage bm = MessageCodec.toBroker(m);

        assertThat(bm.messageId()).isEqualTo("ID:shardq-1");
        assertThat(bm.bodyType()).isEqualTo(BodyType.NONE);
        assertThat(bm.timestamp()).isEqualTo(1_700_000_000_123L);
        assertThat(bm.correlationId()).isEqualTo("corr-ü");
        assertThat(bm.type()).isEqualTo("order.created");
        assertThat(bm.replyTo()).isEqualTo("topic:replies");
        assertThat(bm.priority()).isEqualTo(7);
        assertThat(bm.expiration()).isEqualTo(1_700_000_060_000L);
        assertThat(bm.deliverAt()).isEqualTo(1_700_000_005_000L);
        assertThat(bm.persistent()).isFalse();
        assertThat(bm.properties()).containsEntry("anInt", Integer.MIN_VALUE).hasSize(11);
    }

    @Test
    void toBroker_marksPersistent_whenDeliveryModePersistent() throws Exception {
        ShardQMessage m = new ShardQMessage();
        m.setJMSDeliveryMode(DeliveryMode.PERSISTENT);
        m.setJMSReplyTo(new ShardQQueue("back"));

        BrokerMessage bm = MessageCodec.toBroker(m);

        assertThat(bm.persistent()).isTrue();
        assertThat(bm.replyTo()).isEqualTo("queue:back");
        assertThat(MessageCodec.fromBroker(bm, ORDERS, 1).getJMSReplyTo()).isEqualTo(new ShardQQueue("back"));
    }

    @ParameterizedTest
    @ValueSource(ints = {-1, 10})
    void toBroker_throwsMessageFormat_whenPriorityOutOfRange(int priority) {
        ShardQMessage m = new ShardQMessage();
        m.setJMSPriority(priority);

        assertThatThrownBy(() -> MessageCodec.toBroker(m))
                .isInstanceOf(MessageFormatException.class)
                .hasMessageContaining("expected 0..9");
    }

    @Test
    void fromBroker_throwsMessageFormat_whenReplyToUndecodable() {
        BrokerMessage bm = brokerMessage(BodyType.NONE, new byte[0]).withProperty("x", 1);
        BrokerMessage bad = new BrokerMessage(
                null, BodyType.NONE, 0, null, null, "elsewhere:x", 4, 0, 0, true, bm.properties(), null);

        assertThatThrownBy(() -> MessageCodec.fromBroker(bad, ORDERS, 1))
                .isInstanceOf(MessageFormatException.class)
                .hasMessageContaining("elsewhere:x");
    }

    // ---------------------------------------------------------------- delivery state

    @Test
    void fromBroker_setsDeliveryCount_andRedeliveredOnlyAfterFirstDelivery() throws Exception {
        BrokerMessage bm = MessageCodec.toBroker(new ShardQTextMessage("x"));

        ShardQMessage first = MessageCodec.fromBroker(bm, ORDERS, 1);
        ShardQMessage third = MessageCodec.fromBroker(bm, ORDERS, 3);

        assertThat(first.getJMSRedelivered()).isFalse();
        assertThat(first.getIntProperty("JMSXDeliveryCount")).isEqualTo(1);
        assertThat(third.getJMSRedelivered()).isTrue();
        assertThat(third.getIntProperty("JMSXDeliveryCount")).isEqualTo(3);
        assertThat(third.getObjectProperty("JMSXDeliveryCount")).isInstanceOf(Integer.class);
    }

    @ParameterizedTest
    @EnumSource(BodyType.class)
    void fromBroker_makesPropertiesReadOnly_untilClearProperties(BodyType type) throws Exception {
        ShardQMessage received = MessageCodec.fromBroker(
                brokerMessage(type, MessageCodec.toBroker(emptyOf(type)).body()).withProperty("p", 1), ORDERS, 1);

        assertThatThrownBy(() -> received.setIntProperty("p", 2)).isInstanceOf(MessageNotWriteableException.class);
        assertThatThrownBy(() -> received.setObjectProperty("q", "x")).isInstanceOf(MessageNotWriteableException.class);

        received.clearProperties();
        received.setIntProperty("p", 2);
        assertThat(received.getIntProperty("p")).isEqualTo(2);
    }

    @Test
    void fromBroker_makesEveryBodyReadOnly_untilClearBody() throws Exception {
        TextMessage text = (TextMessage) roundTrip(new ShardQTextMessage("x"));
        BytesMessage bytes = (BytesMessage) roundTrip(new ShardQBytesMessage());
        MapMessage map = (MapMessage) roundTrip(new ShardQMapMessage());
        StreamMessage stream = (StreamMessage) roundTrip(new ShardQStreamMessage());
        ObjectMessage object = (ObjectMessage) roundTrip(new ShardQObjectMessage());

        assertThatThrownBy(() -> text.setText("y")).isInstanceOf(MessageNotWriteableException.class);
        assertThatThrownBy(() -> bytes.writeInt(1)).isInstanceOf(MessageNotWriteableException.class);
        assertThatThrownBy(() -> map.setInt("a", 1)).isInstanceOf(MessageNotWriteableException.class);
        assertThatThrownBy(() -> stream.writeInt(1)).isInstanceOf(MessageNotWriteableException.class);
        assertThatThrownBy(() -> object.setObject("y")).isInstanceOf(MessageNotWriteableException.class);

        for (Message m : List.of(text, bytes, map, stream, object)) {
            m.clearBody();
        }
        text.setText("y");
        bytes.writeInt(1);
        map.setInt("a", 1);
        stream.writeInt(1);
        object.setObject("y");
        assertThat(text.getText()).isEqualTo("y");
    }

    @Test
    void fromBroker_leavesBrokerBodyUnchanged_whenReceiverReadsAndCopies() throws Exception {
        ShardQBytesMessage sent = new ShardQBytesMessage();
        sent.writeBytes(new byte[] {1, 2, 3});
        BrokerMessage bm = MessageCodec.toBroker(sent);

        BytesMessage received = (BytesMessage) MessageCodec.fromBroker(bm, ORDERS, 1);
        received.getBody(byte[].class)[0] = 9;
        received.readBytes(new byte[3]);

        assertThat(bm.body()).containsExactly(1, 2, 3);
    }

    @Test
    void toBroker_dropsDeliveryCount_whenResendingReceivedMessage() throws Exception {
        ShardQMessage sent = new ShardQMessage();
        sent.setStringProperty("JMSXGroupID", "g");
        ShardQMessage received = MessageCodec.fromBroker(MessageCodec.toBroker(sent), ORDERS, 4);

        BrokerMessage resent = MessageCodec.toBroker(received);

        assertThat(resent.properties()).containsOnlyKeys("JMSXGroupID");
        assertThat(MessageCodec.fromBroker(resent, ORDERS, 1).getIntProperty("JMSXDeliveryCount"))
                .isEqualTo(1);
    }

    // ---------------------------------------------------------------- other providers' messages

    @Test
    void toBroker_copiesForeignTextMessage_throughJmsApi() throws Exception {
        ForeignTextMessage foreign = withHeadersAndProperties(new ForeignTextMessage());
        Queue theirReplyQueue = () -> "their-replies";
        foreign.setJMSReplyTo(theirReplyQueue);
        foreign.setText("from elsewhere");
        foreign.setIntProperty("JMSXDeliveryCount", 5);

        ShardQMessage received = roundTrip(foreign);

        assertThat(received).isExactlyInstanceOf(ShardQTextMessage.class);
        assertThat(((TextMessage) received).getText()).isEqualTo("from elsewhere");
        assertThat(received.getJMSReplyTo()).isEqualTo(new ShardQQueue("their-replies"));
        assertThat(received.getIntProperty("JMSXDeliveryCount")).isEqualTo(1);
        assertThat(received.getStringProperty("aString")).isEqualTo("grüße 𝄞");
        assertThat(received.getObjectProperty("aFloat")).isEqualTo(Float.NaN);
        assertThat(received.getJMSPriority()).isEqualTo(7);
        assertThat(received.getJMSDeliveryMode()).isEqualTo(DeliveryMode.NON_PERSISTENT);
    }

    @Test
    void toBroker_throwsMessageFormat_whenForeignPropertyTypeInvalid() {
        ForeignTextMessage foreign = new ForeignTextMessage();
        foreign.putRawProperty("when", new java.util.Date());

        assertThatThrownBy(() -> MessageCodec.toBroker(foreign))
                .isInstanceOf(MessageFormatException.class)
                .hasMessageContaining("\"when\"")
                .hasMessageContaining("java.util.Date");
    }

    @Test
    void toBroker_copiesForeignBytesMessage_andLeavesItReadableFromStart() throws Exception {
        ShardQBytesMessage delegate = new ShardQBytesMessage();
        delegate.writeInt(7);
        delegate.writeUTF("z");
        Message foreign = ForeignMessages.wrap(delegate);
        assertThat(foreign).isNotInstanceOf(ShardQMessage.class);

        BytesMessage received = (BytesMessage) roundTrip(foreign);

        assertThat(received.readInt()).isEqualTo(7);
        assertThat(received.readUTF()).isEqualTo("z");
        assertThat(((BytesMessage) foreign).readInt()).isEqualTo(7);
    }

    @Test
    void toBroker_copiesForeignMapMessage() throws Exception {
        ShardQMapMessage delegate = new ShardQMapMessage();
        delegate.setChar("c", 'q');
        delegate.setBytes("b", new byte[] {1});
        delegate.setString("n", null);

        MapMessage received = (MapMessage) roundTrip(ForeignMessages.wrap(delegate));

        assertThat(received.getChar("c")).isEqualTo('q');
        assertThat(received.getBytes("b")).containsExactly(1);
        assertThat(received.itemExists("n")).isTrue();
    }

    @Test
    void toBroker_copiesForeignStreamMessage_inWriteMode() throws Exception {
        ShardQStreamMessage delegate = new ShardQStreamMessage();
        delegate.writeLong(1L);
        delegate.writeBytes(null);
        delegate.writeString("s");

        StreamMessage received = (StreamMessage) roundTrip(ForeignMessages.wrap(delegate));

        assertThat(received.readObject()).isEqualTo(1L);
        assertThat(received.readObject()).isNull();
        assertThat(received.readObject()).isEqualTo("s");
    }

    @Test
    void toBroker_copiesForeignObjectMessage_andPlainMessage() throws Exception {
        ShardQObjectMessage object = new ShardQObjectMessage();
        object.setObject(new java.util.TreeMap<>(Map.of("k", 1)));
        ShardQMessage plain = new ShardQMessage();
        plain.setJMSType("ping");

        ObjectMessage receivedObject = (ObjectMessage) roundTrip(ForeignMessages.wrap(object));
        ShardQMessage receivedPlain = roundTrip(ForeignMessages.wrap(plain));

        assertThat(receivedObject.getObject()).isEqualTo(Map.of("k", 1));
        assertThat(receivedPlain).isExactlyInstanceOf(ShardQMessage.class);
        assertThat(receivedPlain.getJMSType()).isEqualTo("ping");
    }

    // ---------------------------------------------------------------- corrupt bodies

    @ParameterizedTest
    @MethodSource("corruptTypedBodies")
    void fromBroker_throwsMessageFormat_whenMapOrStreamBodyCorrupt(BodyType type, byte[] body) {
        assertThatThrownBy(() -> MessageCodec.fromBroker(brokerMessage(type, body), ORDERS, 1))
                .isInstanceOf(MessageFormatException.class)
                .hasMessageContaining("cannot be decoded");
    }

    static Stream<org.junit.jupiter.params.provider.Arguments> corruptTypedBodies() throws Exception {
        ShardQMapMessage map = new ShardQMapMessage();
        map.setString("k", "value");
        byte[] good = MessageCodec.toBroker(map).body();
        byte[] truncated = java.util.Arrays.copyOf(good, good.length - 2);
        byte[] trailing = java.util.Arrays.copyOf(good, good.length + 1);
        byte[] hugeLength = {1, 0, 0, 0, 1, 0x7F, 0x7F, 0x7F, 0x7F};
        byte[] badTag = {1, 0, 0, 0, 1, 42};
        byte[] badVersion = {2, 0, 0, 0, 0};
        return Stream.of(
                org.junit.jupiter.params.provider.Arguments.of(BodyType.MAP, new byte[0]),
                org.junit.jupiter.params.provider.Arguments.of(BodyType.MAP, truncated),
                org.junit.jupiter.params.provider.Arguments.of(BodyType.MAP, trailing),
                org.junit.jupiter.params.provider.Arguments.of(BodyType.MAP, hugeLength),
                org.junit.jupiter.params.provider.Arguments.of(BodyType.STREAM, badTag),
                org.junit.jupiter.params.provider.Arguments.of(BodyType.STREAM, badVersion),
                org.junit.jupiter.params.provider.Arguments.of(BodyType.STREAM, hugeLength));
    }

    private static BrokerMessage brokerMessage(BodyType type, byte[] body) {
        return new BrokerMessage(null, type, 0, null, null, null, 4, 0, 0, true, Map.of(), body);
    }

    private static ShardQMessage emptyOf(BodyType type) {
        return switch (type) {
            case NONE -> new ShardQMessage();
            case TEXT -> new ShardQTextMessage();
            case BYTES -> new ShardQBytesMessage();
            case MAP -> new ShardQMapMessage();
            case STREAM -> new ShardQStreamMessage();
            case OBJECT -> new ShardQObjectMessage();
        };
    }
}
