package io.shardq.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import jakarta.jms.DeliveryMode;
import jakarta.jms.IllegalStateException;
import jakarta.jms.Message;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ShardQMessageHeadersTest {

    private final ShardQMessage message = new ShardQMessage();

    @Test
    void newMessage_hasSpecDefaults() {
        assertThat(message.getJMSMessageID()).isNull();
        assertThat(message.getJMSTimestamp()).isZero();
        assertThat(message.getJMSCorrelationID()).isNull();
        assertThat(message.getJMSCorrelationIDAsBytes()).isNull();
        assertThat(message.getJMSReplyTo()).isNull();
        assertThat(message.getJMSDestination()).isNull();
        assertThat(message.getJMSDeliveryMode()).isEqualTo(DeliveryMode.PERSISTENT);
        assertThat(message.getJMSRedelivered()).isFalse();
        assertThat(message.getJMSType()).isNull();
        assertThat(message.getJMSExpiration()).isZero();
        assertThat(message.getJMSDeliveryTime()).isZero();
        assertThat(message.getJMSPriority()).isEqualTo(Message.DEFAULT_PRIORITY);
    }

    @Test
    void setters_storeEveryHeader() {
        ShardQQueue replyTo = new ShardQQueue("replies");
        ShardQTopic destination = new ShardQTopic("prices");

        message.setJMSMessageID("ID:1");
        message.setJMSTimestamp(11);
        message.setJMSCorrelationID("corr");
        message.setJMSReplyTo(replyTo);
        message.setJMSDestination(destination);
        message.setJMSDeliveryMode(DeliveryMode.NON_PERSISTENT);
        message.setJMSRedelivered(true);
        message.setJMSType("type");
        message.setJMSExpiration(22);
        message.setJMSDeliveryTime(33);
        message.setJMSPriority(9);

        assertThat(message.getJMSMessageID()).isEqualTo("ID:1");
        assertThat(message.getJMSTimestamp()).isEqualTo(11);
        assertThat(message.getJMSCorrelationID()).isEqualTo("corr");
        assertThat(message.getJMSReplyTo()).isEqualTo(replyTo);
        assertThat(message.getJMSDestination()).isEqualTo(destination);
        assertThat(message.getJMSDeliveryMode()).isEqualTo(DeliveryMode.NON_PERSISTENT);
        assertThat(message.getJMSRedelivered()).isTrue();
        assertThat(message.getJMSType()).isEqualTo("type");
        assertThat(message.getJMSExpiration()).isEqualTo(22);
        assertThat(message.getJMSDeliveryTime()).isEqualTo(33);
        assertThat(message.getJMSPriority()).isEqualTo(9);
    }

    @Test
    void correlationIdAsBytes_returnsSameBytes_forEveryByteValue() {
        byte[] all = new byte[256];
        for (int i = 0; i < all.length; i++) {
            all[i] = (byte) i;
        }

        message.setJMSCorrelationIDAsBytes(all);

        assertThat(message.getJMSCorrelationIDAsBytes()).isEqualTo(all);
    }

    @Test
    void correlationIdAsBytes_isReadableAsString_whenBytesAreAscii() {
        message.setJMSCorrelationIDAsBytes("order-42".getBytes(java.nio.charset.StandardCharsets.US_ASCII));

        assertThat(message.getJMSCorrelationID()).isEqualTo("order-42");
    }

    @Test
    void correlationIdAsBytes_returnsUtf8_whenStringHasCharactersBeyondLatin1() {
        message.setJMSCorrelationID("ключ");

        assertThat(message.getJMSCorrelationIDAsBytes())
                .isEqualTo("ключ".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    @Test
    void correlationIdAsBytes_clears_whenNull() {
        message.setJMSCorrelationIDAsBytes(new byte[] {1});
        message.setJMSCorrelationIDAsBytes(null);

        assertThat(message.getJMSCorrelationID()).isNull();
    }

    @Test
    void acknowledge_doesNothing_whenMessageNotReceived() {
        assertThatCode(message::acknowledge).doesNotThrowAnyException();
    }

    @Test
    void acknowledge_callsAcknowledger_whenSetBySession() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        message.setAcknowledger(calls::incrementAndGet);

        message.acknowledge();
        message.acknowledge();

        assertThat(calls).hasValue(2);
    }

    @Test
    void acknowledge_propagatesIllegalState_whenSessionClosed() {
        message.setAcknowledger(() -> {
            throw new IllegalStateException("session is closed");
        });

        assertThatThrownBy(message::acknowledge)
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("session is closed");
    }

    @Test
    void getBody_returnsNull_forAnyType_whenMessageHasNoBody() throws Exception {
        assertThat(message.getBody(String.class)).isNull();
        assertThat(message.getBody(Integer.class)).isNull();
        assertThat(message.isBodyAssignableTo(byte[].class)).isTrue();
    }

    @Test
    void headers_stayWritable_whenReadOnly() {
        message.markReadOnly();

        message.setJMSCorrelationID("c");
        message.setJMSType("t");
        message.setJMSReplyTo(new ShardQQueue("q"));

        assertThat(message.getJMSType()).isEqualTo("t");
    }

    @Test
    void toString_namesTypeIdAndDestination_withoutBody() throws Exception {
        ShardQTextMessage text = new ShardQTextMessage("secret payload");
        text.setJMSMessageID("ID:7");
        text.setJMSDestination(new ShardQQueue("orders"));

        assertThat(text.toString())
                .contains("ShardQTextMessage", "ID:7", "orders")
                .doesNotContain("secret");
    }
}
