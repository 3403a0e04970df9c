package io.shardq.perf;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The files every benchmark's {@code --out DIR} writes: results.json, results.csv, results.html. */
final class ReportFiles {
    private ReportFiles() {}

    /** Writes the three renderings into {@code dir} (made if missing); returns their paths. */
    static List<Path> write(Path dir, String json, String csv, String html) throws IOException {
        Files.createDirectories(dir);
        Path jsonFile = dir.resolve("results.json");
        Path csvFile = dir.resolve("results.csv");
        Path htmlFile = dir.resolve("results.html");
        Files.writeString(jsonFile, json, StandardCharsets.UTF_8);
        Files.writeString(csvFile, csv, StandardCharsets.UTF_8);
        Files.writeString(htmlFile, html, StandardCharsets.UTF_8);
        return List.of(jsonFile, csvFile, htmlFile);
    }

    /** Tells the user where the files went, one line each. */
    static void announce(List<Path> written, PrintWriter stdout) {
        for (Path p : written) {
            stdout.println("wrote " + p.toAbsolutePath());
        }
    }
}
