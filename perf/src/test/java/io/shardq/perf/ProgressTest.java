package io.shardq.perf;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ProgressTest {
    private static final long SECOND = 1_000_000_000L;

    @Test
    void plain_printsALineEveryInterval_withRatesOverThatInterval() {
        StringWriter sw = new StringWriter();
        Progress p = new Progress(new PrintWriter(sw), false, Duration.ofSeconds(5));
        p.begin("naive x2", 0);
        p.tick("warm-up", SECOND, 1_000, 900, true, SECOND); // not due yet
        p.tick("warm-up", 5 * SECOND, 50_000, 40_000, true, 5 * SECOND);
        p.tick("measure", SECOND, 60_000, 55_000, true, 6 * SECOND); // not due
        p.tick("measure", 5 * SECOND, 100_000, 80_000, true, 10 * SECOND);
        p.end();

        String[] lines = sw.toString().split("\n");
        assertThat(lines).hasSize(2);
        assertThat(lines[0])
                .contains("naive x2", "warm-up", "5.0s")
                .contains("enqueue     10,000/s")
                .contains("dequeue      8,000/s")
                .contains("backlog 10,000");
        assertThat(lines[1]).contains("measure", "enqueue     10,000/s", "dequeue      8,000/s", "backlog 20,000");
        assertThat(sw.toString()).doesNotContain("\r");
    }

    @Test
    void console_rewritesOneLineInPlace_andEndsIt() {
        StringWriter sw = new StringWriter();
        Progress p = new Progress(new PrintWriter(sw), true, Duration.ofSeconds(5));
        p.begin("ceiling x1", 0);
        p.tick("measure", SECOND, 1_000, 0, false, SECOND);
        p.tick("measure", 2 * SECOND, 3_000, 0, false, 2 * SECOND);
        p.end();

        String s = sw.toString();
        assertThat(s).startsWith("\rceiling x1").endsWith(System.lineSeparator());
        assertThat(s.chars().filter(c -> c == '\r').count()).isEqualTo(2);
        assertThat(s).contains("enqueue      2,000/s").contains("backlog -");
    }
}
