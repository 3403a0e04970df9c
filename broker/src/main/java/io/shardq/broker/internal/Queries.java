package io.shardq.broker.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The named runtime queries of {@code io/shardq/broker/sql/queries.sql}. A {@code /* TEMPLATE:
 * leaf *\/} slot takes only identifiers built from numeric catalog ids, always quoted.
 */
public final class Queries {
    private static final Map<String, String> QUERIES = load();

    private Queries() {}

    public static String get(String name) {
        String sql = QUERIES.get(name);
        if (sql == null) {
            throw new IllegalArgumentException("no query named " + name);
        }
        return sql;
    }

    public static Map<String, String> all() {
        return QUERIES;
    }

    /** Quoted name of the leaf table holding one slot of one shard. */
    public static String leafTable(int destinationId, int shardNo, int slot) {
        return "shardq.\"m_" + destinationId + "_" + shardNo + "_" + slot + "\"";
    }

    /** Quoted name of a destination's partitioned parent table. */
    public static String parentTable(int destinationId) {
        return "shardq.\"m_" + destinationId + "\"";
    }

    public static String withLeaf(String name, int destinationId, int shardNo, int slot) {
        return get(name).replace("/* TEMPLATE: leaf */", leafTable(destinationId, shardNo, slot));
    }

    public static String withParent(String name, int destinationId) {
        return get(name).replace("/* TEMPLATE: parent */", parentTable(destinationId));
    }

    /** Quoted name of a key/value cache's partitioned entry table. */
    public static String kvTable(int cacheId) {
        return "shardq.\"kv_" + cacheId + "\"";
    }

    public static String withKv(String name, int cacheId) {
        // cached: a get runs this for every read, and String.replace copies the whole text
        return KV.computeIfAbsent(name, n -> new java.util.concurrent.ConcurrentHashMap<>())
                .computeIfAbsent(cacheId, id -> get(name).replace("/* TEMPLATE: kv */", kvTable(id)));
    }

    private static final java.util.concurrent.ConcurrentHashMap<
                    String, java.util.concurrent.ConcurrentHashMap<Integer, String>>
            KV = new java.util.concurrent.ConcurrentHashMap<>();

    /** {@code name} for the partition of bucket {@code bucket} of cache {@code cacheId} (numbers only). */
    public static String withKvPartition(String name, int cacheId, long bucket) {
        return get(name)
                .replace(
                        "/* TEMPLATE: kv_partition */",
                        "shardq.\"kv_" + cacheId + "_" + (bucket == 0 ? "forever" : bucket) + "\"");
    }

    private static final String ROW =
            "(?::bigint, ?::bigint, ?::bigint, ?::bigint, ?::smallint, ?::bytea, ?::bytea, ?::bytea)";
    private static final java.util.concurrent.ConcurrentHashMap<String, String> RESERVING =
            new java.util.concurrent.ConcurrentHashMap<>();

    /** {@code message_insert_reserving} for one leaf and {@code rows} rows (cached). */
    public static String insertReserving(int destinationId, int shardNo, int slot, int rows) {
        return RESERVING.computeIfAbsent(destinationId + "/" + shardNo + "/" + slot + "/" + rows, k -> withLeaf(
                        "message_insert_reserving", destinationId, shardNo, slot)
                .replace("/* TEMPLATE: rows */", String.join(", ", java.util.Collections.nCopies(rows, ROW))));
    }

    /**
     * Part {@code k} of a several-shard enqueue statement: the CTEs {@code r_k} (the reservation)
     * and {@code i_k} (the rows) of {@code message_insert_reserving_part}, for that leaf and row count.
     */
    public static String insertReservingPart(int k, int destinationId, int shardNo, int slot, int rows) {
        return RESERVING_PART
                .computeIfAbsent(destinationId + "/" + shardNo + "/" + slot + "/" + rows, key -> withLeaf(
                                "message_insert_reserving_part", destinationId, shardNo, slot)
                        .replace("/* TEMPLATE: rows */", String.join(", ", java.util.Collections.nCopies(rows, ROW))))
                .replace("_N", "_" + k);
    }

    private static final java.util.concurrent.ConcurrentHashMap<String, String> RESERVING_PART =
            new java.util.concurrent.ConcurrentHashMap<>();

    private static Map<String, String> load() {
        try (InputStream in = Queries.class.getResourceAsStream("/io/shardq/broker/sql/queries.sql")) {
            if (in == null) {
                throw new IllegalStateException("queries.sql missing from the class path");
            }
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            Map<String, String> out = new LinkedHashMap<>();
            String name = null;
            StringBuilder sql = new StringBuilder();
            for (String line : text.split("\n")) {
                if (line.startsWith("-- name: ")) {
                    if (name != null) {
                        out.put(name, sql.toString().strip());
                    }
                    name = line.substring("-- name: ".length()).strip();
                    sql.setLength(0);
                } else if (name != null && !line.startsWith("--")) {
                    sql.append(line).append('\n');
                }
            }
            if (name != null) {
                out.put(name, sql.toString().strip());
            }
            return Map.copyOf(out);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read queries.sql", e);
        }
    }
}
