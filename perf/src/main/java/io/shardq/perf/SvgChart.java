package io.shardq.perf;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.DoubleFunction;

/**
 * A line chart as inline SVG, with no script and no external reference, so results.html is one
 * self-contained file. X is categorical (the threads values, evenly spaced); Y starts at zero and
 * ends at a round number; one line per series, a legend on the right.
 */
final class SvgChart {
    static final int WIDTH = 560;
    static final int HEIGHT = 360;
    private static final int LEFT = 78;
    private static final int RIGHT = 120;
    private static final int TOP = 40;
    private static final int BOTTOM = 58;
    /** At most this many x labels; beyond it every k-th category is labelled. */
    static final int MAX_LABELS = 15;

    /** One line: a value per x category, NaN where the series has none. */
    record Series(String name, String color, double[] values) {}

    private SvgChart() {}

    static String render(
            String title,
            String xLabel,
            String yLabel,
            List<String> categories,
            List<Series> series,
            DoubleFunction<String> yFormat) {
        return render(title, xLabel, yLabel, categories, "threads", series, yFormat);
    }

    /** As above; {@code unit} names the x categories in the points' tooltips ("8 users: 1.2k"). */
    static String render(
            String title,
            String xLabel,
            String yLabel,
            List<String> categories,
            String unit,
            List<Series> series,
            DoubleFunction<String> yFormat) {
        double max = 0;
        boolean any = false;
        for (Series s : series) {
            for (double v : s.values()) {
                if (!Double.isNaN(v)) {
                    any = true;
                    max = Math.max(max, v);
                }
            }
        }
        double[] ticks = niceTicks(max);
        double top = ticks[ticks.length - 1];
        // a legend of long names widens the chart rather than running off its right edge
        int longest = series.stream().mapToInt(x -> x.name().length()).max().orElse(0);
        int width = WIDTH + Math.max(0, 48 + 7 * longest - RIGHT);
        int plotW = WIDTH - LEFT - RIGHT;
        int plotH = HEIGHT - TOP - BOTTOM;
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(
                Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\""
                        + " role=\"img\" aria-label=\"%s\" font-family=\"sans-serif\" font-size=\"12\">\n",
                width,
                HEIGHT,
                width,
                HEIGHT,
                escape(title)));
        sb.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", width, HEIGHT));
        text(sb, LEFT + plotW / 2.0, 22, "middle", "font-size=\"15\" font-weight=\"bold\"", title);
        for (double t : ticks) {
            double y = TOP + plotH - t / top * plotH;
            sb.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e5e7eb\"/>\n",
                    LEFT,
                    y,
                    LEFT + plotW,
                    y));
            text(sb, LEFT - 8, y + 4, "end", "fill=\"#374151\"", yFormat.apply(t));
        }
        int n = Math.max(1, categories.size());
        // many categories (a 60-second timeline): label every k-th so the labels do not overlap;
        // each point's tooltip still names its own
        int every = Math.max(1, (n + MAX_LABELS - 1) / MAX_LABELS);
        for (int i = 0; i < categories.size(); i += every) {
            text(sb, x(i, n, plotW), TOP + plotH + 18, "middle", "fill=\"#374151\"", categories.get(i));
        }
        sb.append(String.format(
                Locale.ROOT,
                "<path d=\"M%d %d V%d H%d\" fill=\"none\" stroke=\"#374151\"/>\n",
                LEFT,
                TOP,
                TOP + plotH,
                LEFT + plotW));
        text(sb, LEFT + plotW / 2.0, HEIGHT - 14, "middle", "fill=\"#111827\"", xLabel);
        sb.append(String.format(
                Locale.ROOT,
                "<text transform=\"translate(18 %.1f) rotate(-90)\" text-anchor=\"middle\" fill=\"#111827\">%s</text>\n",
                TOP + plotH / 2.0,
                escape(yLabel)));
        if (!any) {
            text(sb, LEFT + plotW / 2.0, TOP + plotH / 2.0, "middle", "fill=\"#6b7280\"", "no data");
        }
        for (Series s : series) {
            List<String> points = new ArrayList<>();
            StringBuilder path = new StringBuilder();
            boolean pen = false;
            for (int i = 0; i < s.values().length && i < categories.size(); i++) {
                double v = s.values()[i];
                if (Double.isNaN(v)) {
                    pen = false;
                    continue;
                }
                double px = x(i, n, plotW);
                double py = TOP + plotH - v / top * plotH;
                path.append(String.format(Locale.ROOT, "%s%.1f %.1f ", pen ? "L" : "M", px, py));
                pen = true;
                points.add(String.format(
                        Locale.ROOT,
                        "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"><title>%s, %s %s: %s</title></circle>\n",
                        px,
                        py,
                        s.color(),
                        escape(s.name()),
                        escape(categories.get(i)),
                        escape(unit),
                        escape(yFormat.apply(v))));
            }
            if (path.length() > 0) {
                sb.append(String.format(
                        Locale.ROOT,
                        "<path d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2.5\"/>\n",
                        path.toString().trim(),
                        s.color()));
            }
            points.forEach(sb::append);
        }
        for (int i = 0; i < series.size(); i++) {
            Series s = series.get(i);
            double ly = TOP + 10 + i * 22;
            double lx = WIDTH - RIGHT + 16;
            sb.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2.5\"/>"
                            + "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>\n",
                    lx,
                    ly,
                    lx + 24,
                    ly,
                    s.color(),
                    lx + 12,
                    ly,
                    s.color()));
            text(sb, lx + 32, ly + 4, "start", "fill=\"#111827\"", s.name());
        }
        return sb.append("</svg>\n").toString();
    }

    /** Tick values from 0 to a round number at or above max: steps of 1, 2, 2.5 or 5 times 10^k. */
    static double[] niceTicks(double max) {
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

    /** Compact labels for rates: 950, 1.5k, 12k, 1.2M. */
    static String compact(double v) {
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

    private static double x(int i, int n, int plotW) {
        return LEFT + (i + 0.5) * plotW / n;
    }

    private static void text(StringBuilder sb, double x, double y, String anchor, String attrs, String s) {
        sb.append(String.format(
                Locale.ROOT,
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" %s>%s</text>\n",
                x,
                y,
                anchor,
                attrs,
                escape(s)));
    }

    static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
