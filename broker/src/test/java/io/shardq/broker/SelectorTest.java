package io.shardq.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.selector.Selector;
import io.shardq.broker.testing.Messages;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SelectorTest {
    BrokerMessage m = Messages.text("x", Map.of("color", "red", "weight", 12, "ratio", 0.5, "vip", true));

    @Test
    void matches_onPropertiesAndHeaders() {
        assertThat(Selector.compile("color = 'red' AND weight > 10").matches(m)).isTrue();
        assertThat(Selector.compile("color IN ('blue', 'green')").matches(m)).isFalse();
        assertThat(Selector.compile("ratio BETWEEN 0.1 AND 0.9 AND vip").matches(m))
                .isTrue();
        assertThat(Selector.compile("color LIKE 'r%'").matches(m)).isTrue();
        assertThat(Selector.compile("missing IS NULL").matches(m)).isTrue();
        assertThat(Selector.compile("JMSPriority = 4 AND JMSDeliveryMode = 'PERSISTENT'")
                        .matches(m))
                .isTrue();
        assertThat(Selector.compile("weight + 1 = 13").matches(m)).isTrue();
    }

    @Test
    void blank_meansEveryMessage() {
        assertThat(Selector.compile("  ")).isNull();
    }

    @Test
    void invalidSelector_isRefusedWithItsText() {
        assertThatThrownBy(() -> Selector.compile("color = = 'red'"))
                .isInstanceOf(ShardQException.class)
                .hasMessageContaining("selector \"color = = 'red'\" is invalid")
                .satisfies(e -> assertThat(((ShardQException) e).kind()).isEqualTo(ErrorKind.INVALID_SELECTOR));
    }
}
