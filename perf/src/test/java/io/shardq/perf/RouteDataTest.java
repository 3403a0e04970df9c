package io.shardq.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RouteDataTest {

    @Test
    void keys_lookLikeRoutes_andAreDistinct_acrossAMillionEntries() {
        assertThat(RouteData.key(0)).matches("[A-Z]{3}-[A-Z]{3}-2026-01-01");
        assertThat(RouteData.key(364)).endsWith("-2026-12-31");
        Set<String> seen = new HashSet<>();
        for (long i = 0; i < 1_000_000; i += 7) {
            assertThat(seen.add(RouteData.key(i))).as("key %d", i).isTrue();
        }
        assertThat(seen.add(RouteData.key(RouteData.MAX_ENTRIES - 1))).isTrue();
        assertThat(RouteData.keyBytes(12345)).hasSize(18);
    }

    @Test
    void values_haveTheSizeAsked_andDependOnTheEntry() {
        RouteData data = new RouteData(200);
        assertThat(data.value(1)).hasSize(200);
        assertThat(new String(data.value(1), java.nio.charset.StandardCharsets.US_ASCII))
                .startsWith("{\"route\":\"" + RouteData.key(1) + "\"")
                .endsWith("\"}");
        assertThat(data.value(1)).isNotEqualTo(data.value(2));
        assertThat(new RouteData(16).value(99)).hasSize(16);
    }

    @Test
    void sizesOutOfRange_areRefused_namingWhatIsAllowed() {
        assertThatThrownBy(() -> new RouteData(8))
                .hasMessage("value size 8 is invalid: expected 16 to 1,048,576 bytes");
        assertThatThrownBy(() -> RouteData.checkEntries(0)).hasMessage("entries 0 is invalid: expected 1 to 6,415,240");
    }
}
