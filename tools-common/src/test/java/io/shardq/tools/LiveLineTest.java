package io.shardq.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class LiveLineTest {
    private static final long SECOND = 1_000_000_000L;

    @Test
    void elsewhere_plainLines_atMostOnePerInterval() {
        StringWriter sw = new StringWriter();
        LiveLine line = new LiveLine(new PrintWriter(sw), false, Duration.ZERO, Duration.ofSeconds(5));
        line.restart(0);
        assertThat(line.showIfDue("at 1s", SECOND)).isFalse();
        assertThat(line.showIfDue("at 5s", 5 * SECOND)).isTrue();
        assertThat(line.showIfDue("at 9s", 9 * SECOND)).isFalse();
        assertThat(line.showIfDue("at 10s", 10 * SECOND)).isTrue();
        line.end(); // no newline of its own: every line ended already
        assertThat(sw.toString()).isEqualTo("at 5s" + System.lineSeparator() + "at 10s" + System.lineSeparator());
    }

    @Test
    void onATerminal_redrawsInPlace_padsAShorterLine_andEndsWithANewline() {
        StringWriter sw = new StringWriter();
        LiveLine line = new LiveLine(new PrintWriter(sw), true, Duration.ZERO, Duration.ofSeconds(5));
        line.show("long line", 1);
        line.show("short", 2);
        line.end();
        assertThat(sw.toString()).isEqualTo("\rlong line\rshort    " + System.lineSeparator());
    }

    @Test
    void clear_erasesTheDrawnLine_andANoteStartsOnAFreshLine() {
        StringWriter sw = new StringWriter();
        LiveLine line = new LiveLine(new PrintWriter(sw), true, Duration.ofMillis(200), Duration.ofSeconds(5));
        line.show("abc", 0);
        assertThat(line.due(SECOND / 10)).isFalse();
        assertThat(line.due(SECOND / 5)).isTrue();
        line.clear();
        assertThat(sw.toString()).isEqualTo("\rabc\r   \r");
        line.show("x", SECOND);
        line.note("a step failed");
        assertThat(sw.toString()).endsWith("\rx" + System.lineSeparator() + "a step failed" + System.lineSeparator());
    }
}
