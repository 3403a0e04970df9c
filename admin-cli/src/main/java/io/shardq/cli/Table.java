package io.shardq.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * A plain text table: a header row, columns padded to their widest cell, numbers aligned right.
 * No borders, so the output stays easy to {@code grep} and {@code awk}.
 */
final class Table {
    private final String[] headers;
    private final List<Object[]> rows = new ArrayList<>();

    Table(String... headers) {
        this.headers = headers;
    }

    Table row(Object... cells) {
        if (cells.length != headers.length) {
            throw new IllegalArgumentException(cells.length + " cells for " + headers.length + " columns");
        }
        rows.add(cells);
        return this;
    }

    boolean isEmpty() {
        return rows.isEmpty();
    }

    void print(PrintWriter out) {
        int[] width = new int[headers.length];
        boolean[] right = new boolean[headers.length];
        for (int c = 0; c < headers.length; c++) {
            width[c] = headers[c].length();
            right[c] = !rows.isEmpty();
        }
        for (Object[] r : rows) {
            for (int c = 0; c < r.length; c++) {
                width[c] = Math.max(width[c], text(r[c]).length());
                right[c] &= r[c] instanceof Number;
            }
        }
        line(out, headers, width, right);
        for (Object[] r : rows) {
            line(out, r, width, right);
        }
    }

    private static void line(PrintWriter out, Object[] cells, int[] width, boolean[] right) {
        StringBuilder b = new StringBuilder();
        for (int c = 0; c < cells.length; c++) {
            String t = text(cells[c]);
            boolean last = c == cells.length - 1;
            if (right[c]) {
                b.append(" ".repeat(width[c] - t.length())).append(t);
            } else {
                b.append(t);
                if (!last) {
                    b.append(" ".repeat(width[c] - t.length()));
                }
            }
            if (!last) {
                b.append("  ");
            }
        }
        out.println(b.toString().stripTrailing());
    }

    private static String text(Object o) {
        if (o == null) {
            return "-";
        }
        if (o instanceof Long || o instanceof Integer) {
            return Format.count(((Number) o).longValue());
        }
        return o.toString();
    }
}
