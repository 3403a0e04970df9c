package io.shardq.broker.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.message.BrokerMessage;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MessageCacheTest {

    @Test
    void put_keepsMetadataOnly_whenTheBodyIsLarge() {
        MessageCache cache = new MessageCache(1 << 20, 1000);
        cache.put(1, 0, 1, message(1000));
        cache.put(1, 0, 2, message(1001));
        assertThat(cache.get(1, 0, 1).bodyLoaded()).isTrue();
        BrokerMessage large = cache.get(1, 0, 2);
        assertThat(large.bodyLoaded()).isFalse();
        assertThat(large.bodySize()).isEqualTo(1001);
        assertThat(large.messageId()).isEqualTo("ID:1001");
        assertThat(cache.weightedSize()).isLessThan(1000 + 2 * 400);
    }

    @Test
    void weightedSize_staysWithinMaxBytes_whenMoreIsPut() {
        MessageCache cache = new MessageCache(100_000, 65536);
        for (int i = 0; i < 200; i++) {
            cache.put(1, 0, i, message(10_000));
            assertThat(cache.weightedSize()).isLessThanOrEqualTo(cache.maxBytes());
        }
        assertThat(cache.estimatedSize()).isLessThan(200);
    }

    static BrokerMessage message(int bodySize) {
        return new BrokerMessage(
                "ID:" + bodySize,
                BrokerMessage.BodyType.BYTES,
                0,
                null,
                null,
                null,
                4,
                0,
                0,
                true,
                Map.of(),
                new byte[bodySize]);
    }
}
