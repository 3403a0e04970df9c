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
                .hasMessage("selector \"color = = 'red'\" is invalid: unexpected \"=\" at position 9")
                .satisfies(e -> assertThat(((ShardQException) e).kind()).isEqualTo(ErrorKind.INVALID_SELECTOR));
    }

    @Test
    void invalidSelectors_nameThePositionAndWhatIsFoundThere() {
        assertThat(refusal("a = 1 ANDD b = 2")).endsWith("is invalid: unexpected \"ANDD\" at position 7");
        assertThat(refusal("(a = 1")).endsWith("is invalid: the selector ends too early, at position 6");
        assertThat(refusal("a # 3")).endsWith("is invalid: unexpected character '#' at position 3");
        assertThat(refusal("a = 'x"))
                .endsWith(
                        "is invalid: the selector ends inside 'x (a string without its closing quote?), at position 7");
        assertThat(refusal("a = 1 AND\nb = = 2")).endsWith("is invalid: unexpected \"=\" at line 2, position 5");
    }

    private static String refusal(String selector) {
        try {
            Selector.compile(selector);
        } catch (ShardQException e) {
            assertThat(e.getMessage()).doesNotContain("Parse error").doesNotContain("Lexical error");
            return e.getMessage();
        }
        throw new AssertionError(selector + " was accepted");
    }

    @Test
    void anEvaluationError_isANonMatch_notAnException() {
        assertThat(Selector.compile("vip + 1 > 0").matches(m)).isFalse(); // arithmetic on a boolean
        assertThat(Selector.compile("color * 2 = 4").matches(m)).isFalse();
        assertThat(Selector.compile("NOT (vip + 1 > 0)").matches(m)).isFalse();
    }

    @Test
    void tooDeep_tooLong_orNotJms_isRefusedAtCompile_withABoundedMessage() {
        String deep = "weight" + " + 1".repeat(Selector.MAX_DEPTH + 5) + " > 0";
        assertThatThrownBy(() -> Selector.compile(deep))
                .isInstanceOf(ShardQException.class)
                .hasMessageContaining("deep")
                .satisfies(e -> assertThat(e.getMessage().length()).isLessThan(400));
        String nested = "(".repeat(20_000) + "vip" + ")".repeat(20_000);
        assertThatThrownBy(() -> Selector.compile(nested))
                .isInstanceOf(ShardQException.class)
                .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(400));
        String longOne = "color = '" + "x".repeat(400_000) + "'";
        assertThatThrownBy(() -> Selector.compile(longOne))
                .isInstanceOf(ShardQException.class)
                .hasMessageContaining("400010 characters long")
                .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(400));
        assertThatThrownBy(() -> Selector.compile("XPATH '//order'"))
                .isInstanceOf(ShardQException.class)
                .hasMessageContaining("XPATH");
        String fine = "weight" + " + 1".repeat(Selector.MAX_DEPTH - 5) + " > 0";
        assertThat(Selector.compile(fine).matches(m)).isTrue();
    }
}
