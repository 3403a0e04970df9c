package io.shardq.broker.message;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class BrokerMessageTest {
    final byte[] body = {1, 2, 3};
    final AtomicInteger reads = new AtomicInteger();
    final BrokerMessage metadata = new BrokerMessage(
                    "ID:1", BrokerMessage.BodyType.BYTES, 0, null, null, null, 4, 0, 0, true, Map.of("p", 1), body)
            .withoutBody();

    @Test
    void body_throws_whenNotLoaded() {
        assertThat(metadata.bodyLoaded()).isFalse();
        assertThat(metadata.bodySize()).isEqualTo(3);
        assertThatThrownBy(metadata::body)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("ID:1");
        assertThatThrownBy(metadata::withBodyLoaded).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void withBodyLoaded_readsTheReferenceOnce() {
        BrokerMessage lazy = metadata.withBodyRef(3, () -> {
            reads.incrementAndGet();
            return body;
        });
        BrokerMessage loaded = lazy.withBodyLoaded();
        assertThat(loaded.body()).isEqualTo(body);
        assertThat(loaded.withBodyLoaded()).isSameAs(loaded);
        assertThat(reads).hasValue(1);
    }

    @Test
    void withProperty_loadsTheBody_whenNotLoaded() {
        BrokerMessage copy = metadata.withBodyRef(3, () -> body).withProperty("reason", "dead");
        assertThat(copy.body()).isEqualTo(body);
        assertThat(copy.properties()).containsEntry("p", 1).containsEntry("reason", "dead");
    }

    @Test
    void estimatedSize_countsOnlyALoadedBody() {
        BrokerMessage big = new BrokerMessage(
                "ID:2", BrokerMessage.BodyType.BYTES, 0, null, null, null, 4, 0, 0, true, Map.of(), new byte[10_000]);
        assertThat(big.withoutBody().estimatedSize()).isEqualTo(big.estimatedSize() - 10_000);
    }
}
