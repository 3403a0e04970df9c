package io.shardq.perf;

import java.util.List;

/**
 * results.json, written by hand (no JSON library is a dependency of this module):
 *
 * <pre>{@code
 * {"unsafe": false, "banner": null,
 *  "environment": {"database": ..., "postgresql": ..., "fsync": "on", ...},
 *  "scenario": {"threads": [1, 2], "systems": [...], "payload_bytes": 512, ...},
 *  "results": [{"threads": 1, "system": "ceiling", "enqueue_per_s": 12345.6, ...}, ...]}
 * }</pre>
 *
 * Result fields are the CSV's columns; unknown figures are {@code null}.
 */
final class JsonReport {
    private JsonReport() {}

    /**
     * What every benchmark's results.json opens with: whether the run was unsafe, the environment's
     * facts, then the scenario object opened with its name (the caller adds its fields).
     */
    static StringBuilder opening(Environment env, String scenario) {
        StringBuilder sb = new StringBuilder("{\n");
        field(sb, 1, "unsafe", !env.durable(), true);
        field(sb, 1, "banner", env.unsafeBanner().isEmpty() ? null : env.unsafeBanner(), true);
        sb.append("  \"environment\": {\n");
        for (String[] f : env.facts()) {
            field(sb, 2, f[0], f[1], true);
        }
        field(sb, 2, "durable", env.durable(), false);
        sb.append("  },\n  \"scenario\": {\n");
        field(sb, 2, "name", scenario, true);
        return sb;
    }

    static String render(RunReport report) {
        Scenario sc = report.scenario();
        StringBuilder sb = opening(report.environment(), "queue");
        sb.append("    \"threads\": ").append(sc.threads()).append(",\n");
        sb.append("    \"systems\": [");
        for (int i = 0; i < sc.systems().size(); i++) {
            sb.append(i > 0 ? ", " : "").append(value(sc.systems().get(i)));
        }
        sb.append("],\n");
        field(sb, 2, "payload_bytes", sc.base().payloadBytes(), true);
        field(sb, 2, "batch", sc.base().batchSize(), true);
        field(sb, 2, "shards", sc.base().shards(), true);
        field(sb, 2, "persistent", sc.base().persistent(), true);
        field(sb, 2, "unsafe_option", sc.base().unsafe(), true);
        field(sb, 2, "warmup_s", sc.warmup().toMillis() / 1000.0, true);
        if (sc.systems().contains(ShardQSystem.ASYNC_NAME)) {
            field(sb, 2, "async_in_flight_batches", sc.asyncInFlightBatches(), true);
        }
        field(sb, 2, "duration_s", sc.duration().toMillis() / 1000.0, false);
        sb.append("  },\n  \"results\": [");
        List<RunReport.Row> rows = report.rows();
        for (int r = 0; r < rows.size(); r++) {
            sb.append(r > 0 ? ",\n    {" : "\n    {");
            for (int c = 0; c < RunReport.COLUMNS.size(); c++) {
                RunReport.Column col = RunReport.COLUMNS.get(c);
                sb.append(c > 0 ? ", " : "")
                        .append(value(col.name()))
                        .append(": ")
                        .append(value(col.value().apply(rows.get(r))));
            }
            sb.append('}');
        }
        sb.append(rows.isEmpty() ? "]\n}\n" : "\n  ]\n}\n");
        return sb.toString();
    }

    /** {@code "name": value} on a line of its own at a depth of two spaces per level. */
    static void field(StringBuilder sb, int depth, String name, Object v, boolean more) {
        sb.append("  ".repeat(depth))
                .append(value(name))
                .append(": ")
                .append(value(v))
                .append(more ? ",\n" : "\n");
    }

    /** A JSON value: null, true/false, a number (NaN and infinities as null) or a string. */
    static String value(Object v) {
        if (v == null) {
            return "null";
        }
        if (v instanceof Double d) {
            return d.isNaN() || d.isInfinite() ? "null" : Numbers.plain(d);
        }
        if (v instanceof Number || v instanceof Boolean) {
            return v.toString();
        }
        String s = v.toString();
        StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            switch (ch) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (ch < 0x20 || ch == 0x2028 || ch == 0x2029) {
                        sb.append(String.format("\\u%04x", (int) ch));
                    } else {
                        sb.append(ch);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }
}
