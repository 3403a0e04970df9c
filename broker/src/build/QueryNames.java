import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Build step (run by the exec plugin in generate-sources, as a single-file program): reads the
 * broker's named SQL files and writes the enum {@code io.shardq.broker.internal.Query}, one
 * constant per {@code -- name:} line, so code names a statement by a constant and a misspelt or
 * removed name fails compilation. A name used twice, or one that is not {@code [a-z0-9_]+}, fails
 * the build.
 *
 * <p>Arguments: the directory of the {@code .sql} files, the generated-sources directory.
 */
public final class QueryNames {
    private QueryNames() {}

    public static void main(String[] args) throws IOException {
        Path sqlDir = Path.of(args[0]);
        Path out = Path.of(args[1]).resolve("io/shardq/broker/internal/Query.java");
        Map<String, String[]> names = new LinkedHashMap<>(); // name -> {file, first comment}
        List<Path> files;
        try (Stream<Path> s = Files.list(sqlDir)) {
            files = s.filter(p -> p.toString().endsWith(".sql")).sorted().toList();
        }
        for (Path file : files) {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                if (!line.startsWith("-- name: ")) {
                    continue;
                }
                String name = line.substring("-- name: ".length()).strip();
                if (!name.matches("[a-z][a-z0-9_]*")) {
                    throw new IllegalArgumentException(file.getFileName() + ": bad statement name '" + name + "'");
                }
                StringBuilder doc = new StringBuilder();
                for (int j = i + 1; j < lines.size() && lines.get(j).startsWith("--"); j++) {
                    doc.append(lines.get(j).substring(2).strip()).append(' ');
                }
                String[] was = names.put(name, new String[] {file.getFileName().toString(), doc.toString().strip()});
                if (was != null) {
                    throw new IllegalArgumentException(
                            "statement " + name + " is named in both " + was[0] + " and " + file.getFileName());
                }
            }
        }
        StringBuilder src = new StringBuilder();
        src.append("// Generated from the broker's src/main/resources/io/shardq/broker/sql/*.sql by\n")
                .append("// broker/src/build/QueryNames.java at build time. Do not edit: add a \"-- name:\" block instead.\n")
                .append("package io.shardq.broker.internal;\n\n")
                .append("/** The broker's named SQL statements, one per {@code -- name:} block of its {@code .sql} files. */\n")
                .append("public enum Query {\n");
        List<String> constants = new ArrayList<>();
        for (Map.Entry<String, String[]> e : names.entrySet()) {
            String doc = e.getValue()[1].isEmpty() ? "" : " " + e.getValue()[1];
            constants.add("    /** {@code " + e.getValue()[0] + "}, {@code " + e.getKey() + "}." + javadocSafe(doc)
                    + " */\n    " + e.getKey().toUpperCase(Locale.ROOT) + "(\"" + e.getValue()[0]
                    + "\", \"" + e.getKey() + "\")");
        }
        src.append(String.join(",\n\n", constants)).append(";\n\n");
        src.append("    private final String file;\n")
                .append("    private final String sqlName;\n\n")
                .append("    Query(String file, String sqlName) {\n")
                .append("        this.file = file;\n")
                .append("        this.sqlName = sqlName;\n")
                .append("    }\n\n")
                .append("    /** The file under {@code io/shardq/broker/sql/} that holds the statement. */\n")
                .append("    public String file() {\n")
                .append("        return file;\n")
                .append("    }\n\n")
                .append("    /** The statement's name in its file. */\n")
                .append("    public String sqlName() {\n")
                .append("        return sqlName;\n")
                .append("    }\n")
                .append("}\n");
        Files.createDirectories(out.getParent());
        String text = src.toString();
        if (!Files.exists(out) || !Files.readString(out, StandardCharsets.UTF_8).equals(text)) {
            Files.writeString(out, text, StandardCharsets.UTF_8); // unchanged: no recompilation
        }
    }

    private static String javadocSafe(String s) {
        return s.replace("&", "&amp;").replace("*/", "*&#47;").replace("@", "&#64;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
