package io.shardq.tools;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.DoubleFunction;

/**
 * The tools' one chart stack: uPlot (its WebJar), drawn in the browser. The console's live rate
 * charts load it from the console's own server ({@link #UPLOT}); a benchmark's HTML report inlines
 * it once ({@link #assets()}) with the small script that draws each chart from its spec, so the
 * report stays one file with no external reference.
 *
 * <p>Why uPlot rather than the SVG the reports were drawn with before: one library, kept by others,
 * for both places, instead of a hand-made renderer beside it; the console needs a script-drawn chart
 * anyway (it updates every second), and a report's reader gets the same cursor and legend values.
 * What a report's chart shows is decided here, in Java: the y ticks (from zero to a round number)
 * and every label (ticks, categories, each point's value) are formatted by the caller's format and
 * written into the chart's spec, so the script formats nothing.
 */
public final class Charts {
    /** uPlot's files inside its WebJar (the version is the one tools-common depends on). */
    public static final String UPLOT = "META-INF/resources/webjars/uplot/1.6.30/dist/";

    /** At most this many x labels; beyond it every k-th category is labelled. */
    public static final int MAX_LABELS = 15;

    /** One line: a value per x category, NaN where the series has none. */
    public record Series(String name, String color, double[] values) {}

    private static final ObjectMapper JSON = new ObjectMapper();

    static {
        // a spec sits inside <script>: no "</script>" or "<!--" may appear in it
        JSON.getFactory().setCharacterEscapes(new CharacterEscapes() {
            private final int[] escapes = standardAsciiEscapesForJSON();

            {
                escapes['<'] = CharacterEscapes.ESCAPE_STANDARD;
                escapes['>'] = CharacterEscapes.ESCAPE_STANDARD;
                escapes['&'] = CharacterEscapes.ESCAPE_STANDARD;
            }

            @Override
            public int[] getEscapeCodesForAscii() {
                return escapes;
            }

            @Override
            public SerializableString getEscapeSequence(int ch) {
                return null; // only the standard escapes are asked for
            }
        });
    }

    private Charts() {}

    /**
     * What a page needs once, before its charts: uPlot's style and script and the script that draws
     * every chart of the page (read from the class path: nothing is fetched when the page is read).
     */
    public static String assets() {
        return "<style>\n" + resource(UPLOT + "uPlot.min.css") + "\n</style>\n<script>\n"
                + resource(UPLOT + "uPlot.iife.min.js") + "\n</script>\n<script>\n"
                + resource("io/shardq/tools/charts.js") + "\n</script>\n";
    }

    /**
     * A line chart: x categorical (evenly spaced), y from zero to a round number, one line per
     * series, each point's value in the legend under the cursor as {@code yFormat} writes it.
     *
     * @param unit names the x categories beside the cursor's value ("8 threads")
     */
    public static String render(
            String title,
            String xLabel,
            String yLabel,
            List<String> categories,
            String unit,
            List<Series> series,
            DoubleFunction<String> yFormat) {
        double max = 0;
        for (Series s : series) {
            for (double v : s.values()) {
                if (!Double.isNaN(v)) {
                    max = Math.max(max, v);
                }
            }
        }
        double[] ticks = niceTicks(max);
        List<String> tickLabels = new ArrayList<>();
        for (double t : ticks) {
            tickLabels.add(yFormat.apply(t));
        }
        int every = Math.max(1, (categories.size() + MAX_LABELS - 1) / MAX_LABELS);
        List<String> xLabels = new ArrayList<>();
        for (int i = 0; i < categories.size(); i++) {
            xLabels.add(i % every == 0 ? categories.get(i) : "");
        }
        List<Map<String, Object>> lines = new ArrayList<>();
        for (Series s : series) {
            List<Double> values = new ArrayList<>();
            List<String> labels = new ArrayList<>();
            for (int i = 0; i < categories.size(); i++) {
                double v = i < s.values().length ? s.values()[i] : Double.NaN;
                values.add(Double.isNaN(v) ? null : v);
                labels.add(Double.isNaN(v) ? "" : yFormat.apply(v));
            }
            Map<String, Object> line = new LinkedHashMap<>();
            line.put("name", s.name());
            line.put("color", s.color());
            line.put("values", values);
            line.put("labels", labels);
            lines.add(line);
        }
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("title", title);
        spec.put("xLabel", xLabel);
        spec.put("yLabel", yLabel);
        spec.put("unit", unit);
        spec.put("categories", categories);
        spec.put("xLabels", xLabels);
        spec.put("yTicks", ticks);
        spec.put("yTickLabels", tickLabels);
        spec.put("series", lines);
        try {
            return "<figure class=\"chart\" aria-label=\"" + escape(title) + "\"><div class=\"chart-plot\"></div>"
                    + "<script type=\"application/json\" class=\"chart-spec\">" + JSON.writeValueAsString(spec)
                    + "</script></figure>\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a chart's spec could not be written: " + e.getMessage(), e);
        }
    }

    /** Tick values from 0 to a round number at or above max: steps of 1, 2, 2.5 or 5 times 10^k. */
    public static double[] niceTicks(double max) {
        if (!(max > 0)) {
            return new double[] {0, 1};
        }
        double raw = max / 5;
        double mag = Math.pow(10, Math.floor(Math.log10(raw)));
        double norm = raw / mag;
        double step = (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 2.5 ? 2.5 : norm <= 5 ? 5 : 10) * mag;
        int count = (int) Math.ceil(max / step - 1e-9);
        double[] ticks = new double[count + 1];
        for (int i = 0; i <= count; i++) {
            ticks[i] = i * step;
        }
        return ticks;
    }

    /** 32.5k, 1.2M, 0.25: a number short enough for an axis. */
    public static String compact(double v) {
        if (v >= 1_000_000) {
            return trim(v / 1_000_000) + "M";
        }
        if (v >= 1_000) {
            return trim(v / 1_000) + "k";
        }
        return trim(v);
    }

    private static String trim(double v) {
        String s = String.format(Locale.ROOT, v >= 100 ? "%.0f" : v >= 10 ? "%.1f" : "%.2f", v);
        return s.contains(".") ? s.replaceFirst("0+$", "").replaceFirst("\\.$", "") : s;
    }

    /** Text for HTML: {@code & < > "} escaped. */
    public static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    private static String resource(String path) {
        try (InputStream in = Charts.class.getClassLoader().getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException(path + " is not on the class path (uPlot's WebJar, or tools-common)");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
