package io.shardq.perf;

import java.util.List;
import java.util.function.Function;

/**
 * A column of a benchmark's results table, one model for every benchmark: its name (the header of
 * results.csv, the field of each object in results.json's rows, the heading of the HTML table) and
 * its value for a row (null for an unknown figure). Each benchmark lists its columns once; {@link
 * CsvReport}, {@link JsonReport} and the HTML pages render them.
 */
record ResultColumn<R>(String name, Function<R, Object> value) {

    /** The columns' names, in order. */
    static <R> List<String> names(List<ResultColumn<R>> columns) {
        return columns.stream().map(ResultColumn::name).toList();
    }

    /** A row's cells, in the columns' order. */
    static <R> Object[] cells(List<ResultColumn<R>> columns, R row) {
        return columns.stream().map(c -> c.value().apply(row)).toArray();
    }
}
