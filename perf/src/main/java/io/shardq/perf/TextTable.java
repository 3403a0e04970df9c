package io.shardq.perf;

import java.util.ArrayList;
import java.util.List;

/** A plain-text table with aligned columns, for the report printed at the end of a run. */
final class TextTable {
    private final List<String> headers;
    private final boolean[] left;
    private final List<List<String>> rows = new ArrayList<>();

    /** Headers starting with '<' are left-aligned (the '<' is not printed); others right-aligned. */
    TextTable(String... headers) {
        this.headers = new ArrayList<>();
        this.left = new boolean[headers.length];
        for (int i = 0; i < headers.length; i++) {
            left[i] = headers[i].startsWith("<");
            this.headers.add(left[i] ? headers[i].substring(1) : headers[i]);
        }
    }

    TextTable row(String... cells) {
        if (cells.length != headers.size()) {
            throw new IllegalArgumentException(
                    "row of " + cells.length + " cells is invalid: expected " + headers.size());
        }
        rows.add(List.of(cells));
        return this;
    }

    String render() {
        int[] width = new int[headers.size()];
        for (int i = 0; i < width.length; i++) {
            width[i] = headers.get(i).length();
            for (List<String> r : rows) {
                width[i] = Math.max(width[i], r.get(i).length());
            }
        }
        StringBuilder sb = new StringBuilder();
        line(sb, headers, width);
        for (List<String> r : rows) {
            line(sb, r, width);
        }
        return sb.toString();
    }

    private void line(StringBuilder sb, List<String> cells, int[] width) {
        StringBuilder l = new StringBuilder();
        for (int i = 0; i < cells.size(); i++) {
            if (i > 0) {
                l.append("  ");
            }
            String c = cells.get(i);
            String pad = " ".repeat(width[i] - c.length());
            l.append(left[i] ? c + pad : pad + c);
        }
        sb.append(l.toString().stripTrailing()).append('\n');
    }
}
