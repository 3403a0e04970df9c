package io.shardq.perf;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * What every benchmark produces, one model rendered four ways: the text printed when the run ends,
 * and with {@code --out} results.json, results.csv and results.html. A benchmark's results are rows
 * described by {@link ResultColumn}s (the CSV, the JSON's rows and the HTML table come from them);
 * the HTML page is built from {@link HtmlReport}'s parts (head, charts through the tools' {@code
 * Charts}, targets, results table, settings).
 */
interface BenchmarkReport extends RunOptions.Output.Files {
    /** What is printed when the run ends. */
    String text();

    /** results.json: the environment, the scenario and the rows ({@link JsonReport}). */
    String json();

    /** results.csv: one line per row ({@link CsvReport}). */
    String csv();

    /** results.html: one self-contained page. */
    String html();

    @Override
    default List<Path> writeTo(Path dir) throws IOException {
        return ReportFiles.write(dir, json(), csv(), html());
    }
}
