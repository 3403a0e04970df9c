package io.shardq.perf;

/**
 * results.csv (RFC 4180): a header line, then one line per system and threads value. Unknown
 * figures are empty cells; a cell with a comma, quote or line break is quoted, quotes doubled.
 */
final class CsvReport {
    private CsvReport() {}

    static String render(RunReport report) {
        return render(RunReport.COLUMNS, report.rows());
    }

    /** Every benchmark's results.csv: the columns' names, then one line per row. */
    static <R> String render(java.util.List<ResultColumn<R>> columns, java.util.List<R> rows) {
        StringBuilder sb = new StringBuilder();
        line(sb, ResultColumn.names(columns).toArray());
        for (R row : rows) {
            line(sb, ResultColumn.cells(columns, row));
        }
        return sb.toString();
    }

    /** One CSV line of cells, CRLF-terminated. */
    static void line(StringBuilder sb, Object[] cells) {
        for (int i = 0; i < cells.length; i++) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append(cell(cells[i]));
        }
        sb.append("\r\n");
    }

    static String cell(Object v) {
        String s;
        if (v == null || (v instanceof Double d && (d.isNaN() || d.isInfinite()))) {
            s = "";
        } else if (v instanceof Double d) {
            s = Numbers.plain(d);
        } else {
            s = v.toString();
        }
        if (s.indexOf(',') >= 0 || s.indexOf('"') >= 0 || s.indexOf('\n') >= 0 || s.indexOf('\r') >= 0) {
            return '"' + s.replace("\"", "\"\"") + '"';
        }
        return s;
    }
}
