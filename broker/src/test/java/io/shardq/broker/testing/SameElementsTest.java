package io.shardq.broker.testing;

import static io.shardq.broker.testing.SameElements.assertSameElements;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class SameElementsTest {
    @Test
    void sameElements_inAnyOrder_pass() {
        assertThatCode(() -> assertSameElements("ids", List.of(3, 1, 2), List.of(1, 2, 3)))
                .doesNotThrowAnyException();
    }

    @Test
    void aMissingADuplicatedAndAnUnexpectedElement_areEachNamed() {
        assertThatThrownBy(() -> assertSameElements("ids", List.of(1, 1, 4), List.of(1, 2)))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("1 missing [2]")
                .hasMessageContaining("1 seen too often [1 x2]")
                .hasMessageContaining("1 unexpected [4]");
    }

    @Test
    void countsOtherThanOne_fail() {
        assertThatThrownBy(() -> SameElements.assertCounts("ids", Map.of("a", 1, "b", 0), List.of("a", "b")))
                .hasMessageContaining("1 missing [b]");
    }

    @Test
    void twoMillionElements_areComparedInLinearTime() {
        List<Integer> expected = IntStream.range(0, 2_000_000).boxed().toList();
        List<Integer> actual =
                IntStream.range(0, 2_000_000).map(i -> 1_999_999 - i).boxed().toList();
        // no timing claim (the machine may be busy): quadratic would not finish within the surefire run
        assertSameElements("ids", actual, expected);
    }
}
