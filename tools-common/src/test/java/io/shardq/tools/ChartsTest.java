package io.shardq.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChartsTest {

    @Test
    void aSpecCannotCloseItsScript_andTextIsEscaped() {
        String html = Charts.render(
                "</script><b>rates</b>",
                "x",
                "y",
                List.of("1", "4"),
                "threads",
                List.of(new Charts.Series("a&b", "#000", new double[] {1, Double.NaN})),
                Charts::compact);
        String spec = html.substring(html.indexOf("chart-spec\">"), html.lastIndexOf("</script>"));
        assertThat(spec).doesNotContain("</script>").doesNotContain("<b>").contains("\\u003C/script\\u003E");
        assertThat(spec).contains("\"values\":[1.0,null]").contains("\"labels\":[\"1\",\"\"]");
        assertThat(html).contains("aria-label=\"&lt;/script&gt;&lt;b&gt;rates&lt;/b&gt;\"");
    }

    @Test
    void assets_carryUPlotAndTheDrawingScript_fromTheClassPath() {
        String assets = Charts.assets();
        assertThat(assets).contains("uPlot").contains("figure.chart").doesNotContain(" src=");
    }

    /**
     * The page a report writes, opened in a real browser (Chromium, headless): uPlot draws each
     * chart (a canvas, the title, a legend with every series). Skipped when Chromium is not
     * installed ({@code apt-get install chromium}).
     */
    @Test
    void aBrowserDrawsTheCharts(@TempDir Path dir) throws Exception {
        Path chromium = Path.of("/usr/bin/chromium");
        Assumptions.assumeTrue(
                Files.isExecutable(chromium), "Chromium is not installed (apt-get install chromium): not drawn");
        String page = "<!DOCTYPE html><html><head><meta charset=\"utf-8\">" + Charts.assets() + "</head><body>"
                + Charts.render(
                        "Dequeue rate",
                        "threads",
                        "messages per second",
                        List.of("1", "4", "16"),
                        "threads",
                        List.of(
                                new Charts.Series("shardq", "#1f6fd1", new double[] {1000, 4000, 9000}),
                                new Charts.Series("ceiling", "#6b7280", new double[] {2000, 6000, Double.NaN})),
                        Charts::compact)
                + "</body></html>";
        Path file = dir.resolve("page.html");
        Files.writeString(file, page, StandardCharsets.UTF_8);
        String dom = dump(chromium, file);
        assertThat(dom).contains("<canvas").contains("u-title").contains("Dequeue rate");
        assertThat(dom).contains("u-legend").contains("shardq").contains("ceiling");
    }

    private static String dump(Path chromium, Path file) throws IOException, InterruptedException {
        Path out = file.resolveSibling("dom.html");
        Process p = new ProcessBuilder(
                        chromium.toString(),
                        "--headless",
                        "--no-sandbox",
                        "--disable-gpu",
                        "--virtual-time-budget=5000",
                        "--dump-dom",
                        file.toUri().toString())
                .redirectOutput(out.toFile())
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        if (!p.waitFor(2, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError("chromium did not finish drawing the page within two minutes");
        }
        return Files.readString(out, StandardCharsets.UTF_8);
    }
}
