package io.shardq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The transcripts in {@code docs/cli.md} (the fenced blocks after a {@code <!-- transcript -->}
 * comment) are what the commands print today: each {@code $ shardq ...} line is run, in a JVM of
 * its own on a fresh embedded PostgreSQL, and its output compared with the lines below it. Values
 * that differ from run to run (ports, times, durations, rates, sizes, ages) are masked on both
 * sides; everything else, the {@code --help} listing included, must match.
 */
class CliTranscriptTest {
    @TempDir
    Path dir;

    static final Path DOC = Path.of("..", "docs", "cli.md");

    record Step(String command, List<String> args, String expected) {}

    @Test
    void theFirstSessionTranscript_isWhatTheCommandsPrintToday() throws Exception {
        List<Step> steps = steps(Files.readString(DOC, StandardCharsets.UTF_8));
        assertThat(steps).as("transcript commands in docs/cli.md").hasSizeGreaterThan(10);
        writeOrders(dir.resolve("orders.jsonl"));
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                "-Dshardq.embedded.data-dir=" + dir.resolve("pgdata"),
                TranscriptMain.class.getName()));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true);
        pb.environment().keySet().removeIf(k -> k.startsWith("SHARDQ_"));
        Process p = pb.start();
        List<String> mismatches = new ArrayList<>();
        try (OutputStream in = p.getOutputStream();
                BufferedReader out =
                        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (Step step : steps) {
                String actual;
                if (step.args().isEmpty()) { // wc -l
                    actual = wc(step.command());
                } else {
                    in.write((String.join("\u0000", step.args()) + "\n").getBytes(StandardCharsets.UTF_8));
                    in.flush();
                    StringBuilder got = new StringBuilder();
                    String line;
                    while ((line = out.readLine()) != null && !line.equals(TranscriptMain.END)) {
                        got.append(line).append('\n');
                    }
                    actual = got.toString();
                }
                if (!mask(actual).strip().equals(mask(step.expected()).strip())) {
                    mismatches.add(
                            "$ " + step.command() + "\n--- docs/cli.md:\n" + step.expected() + "--- today:\n" + actual);
                }
            }
        } finally {
            p.waitFor(2, TimeUnit.MINUTES);
            p.destroyForcibly();
        }
        assertThat(mismatches).as("transcript steps whose output differs").isEmpty();
    }

    /** The commands of the marked transcript blocks and the output written below each. */
    static List<Step> steps(String doc) {
        List<Step> steps = new ArrayList<>();
        Matcher blocks = Pattern.compile("<!-- transcript[^>]*-->\\s*```\\n(.*?)```", Pattern.DOTALL)
                .matcher(doc);
        while (blocks.find()) {
            String command = null;
            StringBuilder expected = new StringBuilder();
            for (String line : blocks.group(1).split("\n", -1)) {
                if (line.startsWith("$ ")) {
                    add(steps, command, expected);
                    command = line.substring(2).replaceAll("\\s+#.*$", "").strip();
                    expected.setLength(0);
                } else if (command != null) {
                    expected.append(line).append('\n');
                }
            }
            add(steps, command, expected);
        }
        return steps;
    }

    private static void add(List<Step> steps, String command, StringBuilder expected) {
        if (command == null) {
            return;
        }
        List<String> words = words(command);
        if (words.get(0).equals("shardq")) {
            steps.add(new Step(command, words.subList(1, words.size()), expected.toString()));
        } else if (words.get(0).equals("wc")) {
            steps.add(new Step(command, List.of(), expected.toString()));
        } // export, alias, python3 gen.py: the test sets up the same itself
    }

    /** Shell words: spaces separate, single and double quotes group. */
    static List<String> words(String command) {
        List<String> words = new ArrayList<>();
        StringBuilder w = new StringBuilder();
        char quote = 0;
        boolean any = false;
        for (char c : command.toCharArray()) {
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                } else {
                    w.append(c);
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
                any = true;
            } else if (c == ' ') {
                if (any || w.length() > 0) {
                    words.add(w.toString());
                }
                w.setLength(0);
                any = false;
            } else {
                w.append(c);
            }
        }
        if (any || w.length() > 0) {
            words.add(w.toString());
        }
        return words;
    }

    private String wc(String command) throws Exception {
        StringBuilder b = new StringBuilder();
        for (String file : words(command).subList(2, words(command).size())) {
            b.append(String.format(
                    "%7d %s%n", Files.readAllLines(dir.resolve(file)).size(), file));
        }
        return b.toString();
    }

    /** Values that differ between runs, masked. */
    static String mask(String s) {
        return s.replaceAll("127\\.0\\.0\\.1:\\d+", "127.0.0.1:PORT")
                .replaceAll("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ", "TIME")
                .replaceAll("[\\d,]+ msg/s", "RATE")
                .replaceAll("\\d[\\d,.]* ?(ms|s|min|h|d)\\b", "DURATION")
                .replaceAll("\\d[\\d.]* (B|KiB|MiB|GiB)\\b", "SIZE")
                .replaceAll("(?m)[ \\t]+$", "");
    }

    /** What gen.py in docs/cli.md writes: 10,000 orders in three regions. */
    static void writeOrders(Path file) throws Exception {
        long now = System.currentTimeMillis();
        StringBuilder b = new StringBuilder();
        String[] regions = {"eu", "us", "apac"};
        for (int i = 0; i < 10_000; i++) {
            String body = String.format("{\"order\": %d, \"item\": \"widget\", \"qty\": %d}", i, i % 7 + 1);
            b.append(String.format(
                    "{\"messageId\": \"ID:order-%05d\", \"bodyType\": \"TEXT\", \"timestamp\": %d, \"type\": \"OrderPlaced\","
                            + " \"properties\": {\"orderNo\": {\"type\": \"int\", \"value\": %d}, \"region\": {\"type\":"
                            + " \"string\", \"value\": \"%s\"}}, \"body\": %s}\n",
                    i, now, i, regions[i % 3], Json.MAPPER.writeValueAsString(body)));
        }
        Files.writeString(file, b.toString(), StandardCharsets.UTF_8);
    }
}
