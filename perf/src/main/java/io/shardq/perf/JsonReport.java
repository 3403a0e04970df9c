package io.shardq.perf;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.UncheckedIOException;
import java.util.Collection;
import java.util.List;

/**
 * results.json of every benchmark, built as a Jackson tree (Jackson is already on the class path
 * through the engine; a hand-written writer and the test's parser were copies of it):
 *
 * <pre>{@code
 * {"unsafe": false, "banner": null,
 *  "environment": {"database": ..., "postgresql": ..., "fsync": "on", ...},
 *  "scenario": {"name": "queue", "threads": [1, 2], "systems": [...], "payload_bytes": 512, ...},
 *  "results": [{"threads": 1, "system": "ceiling", "enqueue_per_s": 12345.6, ...}, ...]}
 * }</pre>
 *
 * Result fields are the CSV's columns; unknown figures (and NaN or infinite ones) are {@code null}.
 */
final class JsonReport {
    /** Indented, {@code "name": value} (Jackson's default printer puts a space before the colon too). */
    private static final ObjectWriter WRITER = new ObjectMapper()
            .writer(new DefaultPrettyPrinter()
                    .withSeparators(
                            Separators.createDefaultInstance().withObjectFieldValueSpacing(Separators.Spacing.AFTER)));

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private JsonReport() {}

    /**
     * What every benchmark's results.json opens with: whether the run was unsafe, the environment's
     * facts, then the scenario object with its name, returned for the caller to add its fields.
     */
    static ObjectNode scenario(ObjectNode root, Environment env, String scenario) {
        root.put("unsafe", !env.durable());
        put(root, "banner", env.unsafeBanner().isEmpty() ? null : env.unsafeBanner());
        ObjectNode environment = root.putObject("environment");
        for (String[] f : env.facts()) {
            put(environment, f[0], f[1]);
        }
        environment.put("durable", env.durable());
        return root.putObject("scenario").put("name", scenario);
    }

    /** An empty object, to start a report with. */
    static ObjectNode root() {
        return NODES.objectNode();
    }

    /** Sets {@code name} to {@code v} (see {@link #node}); returns {@code o}. */
    static ObjectNode put(ObjectNode o, String name, Object v) {
        o.set(name, node(v));
        return o;
    }

    /**
     * A JSON value of a report's figure: null, a boolean, a number (NaN and infinities as null), a
     * list or collection as an array, anything else as its string.
     */
    static JsonNode node(Object v) {
        if (v == null) {
            return NODES.nullNode();
        }
        if (v instanceof Double d) {
            return d.isNaN() || d.isInfinite() ? NODES.nullNode() : NODES.numberNode(d);
        }
        if (v instanceof Float f) {
            return f.isNaN() || f.isInfinite() ? NODES.nullNode() : NODES.numberNode(f);
        }
        if (v instanceof Integer i) {
            return NODES.numberNode(i);
        }
        if (v instanceof Long l) {
            return NODES.numberNode(l);
        }
        if (v instanceof Number n) {
            return NODES.numberNode(n.doubleValue());
        }
        if (v instanceof Boolean b) {
            return NODES.booleanNode(b);
        }
        if (v instanceof Collection<?> c) {
            ArrayNode a = NODES.arrayNode();
            c.forEach(e -> a.add(node(e)));
            return a;
        }
        return NODES.textNode(v.toString());
    }

    /** One object per row, its fields the columns. */
    static <R> ArrayNode rows(List<R> rows, List<ResultColumn<R>> columns) {
        ArrayNode a = NODES.arrayNode();
        for (R r : rows) {
            ObjectNode o = a.addObject();
            for (ResultColumn<R> c : columns) {
                put(o, c.name(), c.value().apply(r));
            }
        }
        return a;
    }

    /** The report as text, indented, ending with a new line. */
    static String write(ObjectNode root) {
        try {
            return WRITER.writeValueAsString(root) + "\n";
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String render(RunReport report) {
        Scenario sc = report.scenario();
        ObjectNode root = root();
        ObjectNode s = scenario(root, report.environment(), "queue");
        put(s, "threads", sc.threads());
        put(s, "systems", sc.systems());
        put(s, "payload_bytes", sc.base().payloadBytes());
        put(s, "batch", sc.base().batchSize());
        put(s, "shards", sc.base().shards());
        put(s, "persistent", sc.base().persistent());
        put(s, "unsafe_option", sc.base().unsafe());
        put(s, "warmup_s", sc.warmup().toMillis() / 1000.0);
        if (sc.systems().contains(ShardQSystem.ASYNC_NAME)) {
            put(s, "async_in_flight_batches", sc.asyncInFlightBatches());
        }
        put(s, "duration_s", sc.duration().toMillis() / 1000.0);
        root.set("results", rows(report.rows(), RunReport.COLUMNS));
        return write(root);
    }
}
