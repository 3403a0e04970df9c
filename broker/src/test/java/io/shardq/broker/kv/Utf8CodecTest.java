package io.shardq.broker.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The UTF-8 codec: exact bytes for any valid string, a lone surrogate refused wherever it is. */
class Utf8CodecTest {
    private final Codec<String> utf8 = Codec.utf8();

    @Test
    void validStrings_encodeToTheirUtf8Bytes_andBack() {
        for (String s : new String[] {"", "LHR-JFK-2026-12-01", "prix: 42 €", "日本語", "smile \ud83d\ude00 pair"}) {
            byte[] b = utf8.encode(s);
            assertThat(b).isEqualTo(s.getBytes(StandardCharsets.UTF_8));
            assertThat(utf8.decode(b)).isEqualTo(s);
        }
        assertThat(utf8.encode("\ud83d\ude00")).hasSize(4);
    }

    @Test
    void aLoneSurrogate_isRefused_atTheStartMiddleOrEnd() {
        for (String s : new String[] {"\ud800", "a\udc00b", "ok\ud83d", "\ude00\ud83d"}) {
            assertThatThrownBy(() -> utf8.encode(s))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("not valid Unicode");
        }
    }
}
