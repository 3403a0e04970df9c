package io.shardq.perf;

import io.shardq.perf.Workload.Step;
import io.shardq.perf.Workload.Template;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Reads a workload file: plain text, one thing per line, so a mistake is reported with its line.
 *
 * <pre>
 * # a comment runs from '#' to the end of the line; blank lines are ignored
 * accounts = 10000                      # a setting: KEY = whole number
 * send10-update  40  send 10, update-account
 * # a template: NAME WEIGHT STEP[, STEP...]
 * </pre>
 *
 * Settings, each optional and at most once: {@code accounts}, {@code payload}, {@code shards},
 * {@code prefill}, {@code receive-wait-ms} (see {@link #SETTINGS} for defaults and ranges).
 * Steps: {@code send N}, {@code receive N}, {@code browse N} (N from 1 to 1000), {@code
 * update-account}, {@code insert-audit}. Weights are relative whole numbers.
 */
final class WorkloadParser {
    static final int MAX_WEIGHT = 1_000_000;
    static final int MAX_STEP_COUNT = 1000;
    private static final String NAME_PATTERN = "[a-z0-9][a-z0-9_.-]{0,47}";

    /** A setting's default and allowed range. */
    record Setting(int defaultValue, int min, int max, String meaning) {}

    static final Map<String, Setting> SETTINGS = settings();

    private static Map<String, Setting> settings() {
        Map<String, Setting> m = new LinkedHashMap<>();
        m.put("accounts", new Setting(10_000, 1, 10_000_000, "rows of shardq_perf.accounts"));
        m.put("payload", new Setting(512, 1, 1_048_576, "bytes per message body"));
        m.put("shards", new Setting(8, 1, 256, "shards of the queue"));
        m.put("prefill", new Setting(1000, 0, 10_000_000, "messages sent before the first stage"));
        m.put("receive-wait-ms", new Setting(100, 0, 60_000, "wait of a receive step for its first message"));
        return m;
    }

    private WorkloadParser() {}

    /**
     * Parses a workload.
     *
     * @param source the file name (or a label) used in error messages: {@code "w.txt line 7: ..."}
     * @throws IllegalArgumentException naming the line, the bad value and what is allowed
     */
    static Workload parse(String text, String source) {
        Map<String, Integer> values = new HashMap<>();
        Map<String, Integer> settingLines = new HashMap<>();
        Map<String, Integer> templateLines = new HashMap<>();
        List<Template> templates = new ArrayList<>();
        String[] lines = text.split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            Line line = new Line(source, i + 1);
            String content = stripComment(lines[i]).strip();
            if (content.isEmpty()) {
                continue;
            }
            if (content.contains("=")) {
                String key = setting(line, content, values);
                Integer earlier = settingLines.putIfAbsent(key, line.number);
                if (earlier != null) {
                    throw line.error("setting " + key + " is already set on line " + earlier + ": expected it once");
                }
            } else {
                Template t = template(line, content);
                Integer earlier = templateLines.putIfAbsent(t.name(), line.number);
                if (earlier != null) {
                    throw line.error("template \"" + t.name() + "\" is already defined on line " + earlier
                            + ": expected unique names");
                }
                templates.add(t);
            }
        }
        if (templates.isEmpty()) {
            throw new IllegalArgumentException(source
                    + ": no template is defined: expected at least one line NAME WEIGHT STEP[, STEP...],"
                    + " e.g. \"send10-update 40 send 10, update-account\"");
        }
        return new Workload(
                source,
                value(values, "accounts"),
                value(values, "payload"),
                value(values, "shards"),
                value(values, "prefill"),
                value(values, "receive-wait-ms"),
                templates);
    }

    private static String stripComment(String raw) {
        int hash = raw.indexOf('#');
        return hash < 0 ? raw : raw.substring(0, hash);
    }

    private static String setting(Line line, String content, Map<String, Integer> values) {
        int eq = content.indexOf('=');
        String key = content.substring(0, eq).strip().toLowerCase(Locale.ROOT);
        String raw = content.substring(eq + 1).strip();
        Setting s = SETTINGS.get(key);
        if (s == null) {
            throw line.error(
                    "setting \"" + key + "\" is unknown: expected one of " + String.join(", ", SETTINGS.keySet()));
        }
        values.put(key, number(line, raw, s.min(), s.max(), "value of " + key));
        return key;
    }

    private static Template template(Line line, String content) {
        String[] head = content.split("\\s+", 3);
        String name = head[0];
        if (!name.matches(NAME_PATTERN)) {
            throw line.error("template name \"" + name + "\" is invalid: expected " + NAME_PATTERN
                    + " (or KEY = VALUE for a setting)");
        }
        if (head.length < 2) {
            throw line.error("template " + name + " has no weight: expected NAME WEIGHT STEP[, STEP...]");
        }
        int weight = number(line, head[1], 1, MAX_WEIGHT, "weight of template " + name);
        if (head.length < 3 || head[2].isBlank()) {
            throw line.error("template " + name + " has no steps: expected NAME WEIGHT STEP[, STEP...] with steps "
                    + stepList());
        }
        List<Step> steps = new ArrayList<>();
        for (String raw : head[2].split(",", -1)) {
            steps.add(step(line, name, raw.strip()));
        }
        return new Template(name, weight, steps);
    }

    private static Step step(Line line, String template, String raw) {
        if (raw.isEmpty()) {
            throw line.error("template " + template + " has an empty step: expected steps separated by single commas");
        }
        String[] parts = raw.split("\\s+");
        Step.Kind kind = Step.Kind.byToken(parts[0]);
        if (kind == null) {
            throw line.error("step \"" + raw + "\" of template " + template + " is unknown: expected " + stepList());
        }
        if (!kind.counted) {
            if (parts.length != 1) {
                throw line.error("step \"" + raw + "\" of template " + template + " is invalid: " + kind.token
                        + " takes no count");
            }
            return new Step(kind, 1);
        }
        if (parts.length != 2) {
            throw line.error("step \"" + raw + "\" of template " + template + " is invalid: expected " + kind.token
                    + " N, N from 1 to " + MAX_STEP_COUNT);
        }
        return new Step(kind, number(line, parts[1], 1, MAX_STEP_COUNT, "count of step " + kind.token));
    }

    private static int number(Line line, String raw, int min, int max, String what) {
        int v;
        try {
            v = Integer.parseInt(raw.replace("_", ""));
        } catch (NumberFormatException e) {
            v = Integer.MIN_VALUE;
        }
        if (v < min || v > max) {
            throw line.error(String.format(
                    Locale.ROOT, "%s \"%s\" is invalid: expected a whole number from %,d to %,d", what, raw, min, max));
        }
        return v;
    }

    private static int value(Map<String, Integer> values, String key) {
        Integer v = values.get(key);
        return v != null ? v : SETTINGS.get(key).defaultValue();
    }

    private static String stepList() {
        return "send N, receive N, browse N, update-account, insert-audit";
    }

    private record Line(String source, int number) {
        IllegalArgumentException error(String message) {
            return new IllegalArgumentException(source + " line " + number + ": " + message);
        }
    }
}
