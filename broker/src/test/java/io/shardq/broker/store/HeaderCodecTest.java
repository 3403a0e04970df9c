package io.shardq.broker.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.message.StreamedBody;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The header column: a streamed body's id and size travel in version 2; other messages stay version 1. */
class HeaderCodecTest {
    @Test
    void streamedBody_roundTrips_inVersion2_andOrdinaryMessagesStayVersion1() {
        BrokerMessage plain = new BrokerMessage(
                "ID:1",
                BrokerMessage.BodyType.BYTES,
                42,
                "corr",
                null,
                null,
                4,
                0,
                0,
                true,
                Map.of("n", 7),
                new byte[] {1, 2});
        byte[] v1 = HeaderCodec.encode(plain);
        assertThat(v1[0]).isEqualTo((byte) 1);
        assertThat(HeaderCodec.decode(v1, new byte[] {1, 2}, 4, 0, 0).streamedBody())
                .isNull();

        BrokerMessage streamed = plain.withStreamedBody(new StreamedBody(99, 3L << 30));
        assertThat(streamed.bodySize()).isZero();
        byte[] v2 = HeaderCodec.encode(streamed);
        assertThat(v2[0]).isEqualTo((byte) 2);
        BrokerMessage back = HeaderCodec.decode(v2, new byte[0], 4, 0, 0);
        assertThat(back.streamedBody()).isEqualTo(new StreamedBody(99, 3L << 30));
        assertThat(back.messageId()).isEqualTo("ID:1");
        assertThat(back.correlationId()).isEqualTo("corr");
        assertThat(back.properties()).containsEntry("n", 7);
        assertThat(back.withProperty("x", "y").streamedBody())
                .as("copies keep it")
                .isEqualTo(streamed.streamedBody());
    }
}
