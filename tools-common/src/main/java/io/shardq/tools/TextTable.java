package io.shardq.tools;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * The one plain-text table of the tools (the admin CLI's lists and stats, the benchmarks'
 * reports): a header row, columns padded to their widest cell, two spaces between columns, no
 * borders (so the output stays easy to {@code grep} and {@code awk}), no trailing spaces.
 *
 * <p>Alignment per column: a header starting with {@code <} is left-aligned and one starting with
 * {@code >} right-aligned (the mark is not printed); otherwise the table's default decides:
 * {@link #TextTable(String...)} right-aligns a column whose cells are all numbers (the CLI's
 * tables of mixed values), {@link #numeric(String...)} right-aligns every unmarked column (the
 * benchmarks' tables of formatted figures). How a cell becomes text is {@link #cells}: by default
 * {@code null} is {@code -} and anything else its {@code toString}.
 */
public final class TextTable {
    private final String[] headers;
    private final Boolean[] rightAligned; // null: decided by the cells
    private final List<Object[]> rows = new ArrayList<>();
    private Function<Object, String> text = o -> o == null ? "-" : o.toString();

    /** Unmarked columns are right-aligned when every cell is a {@link Number}. */
    public TextTable(String... headers) {
        this(headers, null);
    }

    /** Unmarked columns are right-aligned (figures formatted by the caller). */
    public static TextTable numeric(String... headers) {
        return new TextTable(headers, Boolean.TRUE);
    }

    private TextTable(String[] headers, Boolean unmarked) {
        this.headers = new String[headers.length];
        this.rightAligned = new Boolean[headers.length];
        for (int i = 0; i < headers.length; i++) {
            String h = headers[i];
            if (h.startsWith("<")) {
                rightAligned[i] = Boolean.FALSE;
                h = h.substring(1);
            } else if (h.startsWith(">")) {
                rightAligned[i] = Boolean.TRUE;
                h = h.substring(1);
            } else {
                rightAligned[i] = unmarked;
            }
            this.headers[i] = h;
        }
    }

    /** How a cell becomes text (for example numbers with thousands separators). */
    public TextTable cells(Function<Object, String> text) {
        this.text = Objects.requireNonNull(text, "text");
        return this;
    }

    /** Adds a row; it must have one cell per header. */
    public TextTable row(Object... cells) {
        if (cells.length != headers.length) {
            throw new IllegalArgumentException(
                    "row of " + cells.length + " cells is invalid: expected " + headers.length);
        }
        rows.add(cells.clone());
        return this;
    }

    public boolean isEmpty() {
        return rows.isEmpty();
    }

    /** The table, one line per row after the header, each ending with a newline. */
    public String render() {
        int n = headers.length;
        int[] width = new int[n];
        boolean[] right = new boolean[n];
        List<String[]> texts = new ArrayList<>(rows.size());
        for (Object[] r : rows) {
            String[] t = new String[n];
            for (int c = 0; c < n; c++) {
                t[c] = text.apply(r[c]);
            }
            texts.add(t);
        }
        for (int c = 0; c < n; c++) {
            width[c] = headers[c].length();
            boolean allNumbers = !rows.isEmpty();
            for (int r = 0; r < rows.size(); r++) {
                width[c] = Math.max(width[c], texts.get(r)[c].length());
                allNumbers &= rows.get(r)[c] instanceof Number;
            }
            right[c] = rightAligned[c] != null ? rightAligned[c] : allNumbers;
        }
        StringBuilder out = new StringBuilder();
        line(out, headers, width, right);
        for (String[] t : texts) {
            line(out, t, width, right);
        }
        return out.toString();
    }

    /** Prints {@link #render()}. */
    public void print(PrintWriter out) {
        out.print(render());
    }

    private static void line(StringBuilder out, String[] cells, int[] width, boolean[] right) {
        StringBuilder l = new StringBuilder();
        for (int c = 0; c < cells.length; c++) {
            if (c > 0) {
                l.append("  ");
            }
            String pad = " ".repeat(width[c] - cells[c].length());
            l.append(right[c] ? pad + cells[c] : cells[c] + pad);
        }
        out.append(l.toString().stripTrailing()).append('\n');
    }
}
