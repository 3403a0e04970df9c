package io.shardq.broker.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The broker's named SQL statements: the {@code .sql} files under {@code io/shardq/broker/sql/},
 * one per table or concern, each statement named by a {@link Query} constant (generated from the
 * files at build time). A {@code /* TEMPLATE: leaf *\/} slot takes only identifiers built from
 * numeric catalog ids, always quoted (one exception: {@link #withCondition}).
 */
public final class Queries {
    private static final Map<Query, String> QUERIES = load();
    /** Each statement that has a Citus form ({@code citus.sql}: its name with {@code _citus}), to that form. */
    private static final Map<Query, Query> CITUS = citusForms();

    private Queries() {}

    public static String get(Query query) {
        return QUERIES.get(query);
    }

    /**
     * {@code query}, or on a Citus coordinator its Citus form when it has one (the same parameters;
     * a function call whose result is a count where {@code query} is an UPDATE: run it with {@link
     * #executeCount}).
     */
    public static String get(Query query, boolean citus) {
        return get(citus ? CITUS.getOrDefault(query, query) : query);
    }

    /** Runs an UPDATE, or its Citus form returning the count as one value; returns the rows changed. */
    public static int executeCount(java.sql.PreparedStatement ps) throws java.sql.SQLException {
        if (!ps.execute()) {
            return ps.getUpdateCount();
        }
        try (java.sql.ResultSet rs = ps.getResultSet()) {
            return rs.next() ? rs.getInt(1) : 0;
        }
    }

    private static Map<Query, Query> citusForms() {
        Map<Query, Query> forms = new java.util.EnumMap<>(Query.class);
        for (Query q : Query.values()) {
            if (q.name().endsWith("_CITUS")) {
                forms.put(Query.valueOf(q.name().substring(0, q.name().length() - "_CITUS".length())), q);
            }
        }
        return forms;
    }

    public static Map<Query, String> all() {
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

    public static String withLeaf(Query name, int destinationId, int shardNo, int slot) {
        return get(name).replace("/* TEMPLATE: leaf */", leafTable(destinationId, shardNo, slot));
    }

    public static String withParent(Query name, int destinationId) {
        return get(name).replace("/* TEMPLATE: parent */", parentTable(destinationId));
    }

    /**
     * {@code name} for destination {@code destinationId} with its condition slot: a selector's SQL
     * condition as {@code shardq.selector_sql} made it (function calls and references to bound
     * literals, never the selector's text; {@code SelectorSql}). A condition holding a JDBC
     * parameter mark or a statement separator is refused.
     */
    public static String withCondition(Query name, int destinationId, String condition) {
        if (condition.indexOf('?') >= 0 || condition.indexOf(';') >= 0) {
            throw new IllegalArgumentException("not a translated selector condition");
        }
        return withParent(name, destinationId).replace("/* TEMPLATE: condition */", condition);
    }

    /** {@code name} with its channel slot: one of the engine's LISTEN channels ({@code [a-z_]+}), quoted. */
    public static String withChannel(Query name, String channel) {
        if (!channel.matches("[a-z_]+")) {
            throw new IllegalArgumentException("not a channel name: " + channel);
        }
        return get(name).replace("/* TEMPLATE: channel */", "\"" + channel + "\"");
    }

    /**
     * {@code name} with its gid slot: a global transaction id already checked by {@code
     * PreparedTransactions.validate} (no quote can be in it), as a literal.
     */
    public static String withGid(Query name, String gid) {
        if (!gid.matches("[A-Za-z0-9+/=:._-]{1,199}")) {
            throw new IllegalArgumentException("not a checked global transaction id");
        }
        return get(name).replace("/* TEMPLATE: gid */", "'" + gid + "'");
    }

    /** {@code SET LOCAL lock_timeout}: for the rest of {@code c}'s transaction. */
    public static void setLocalLockTimeout(java.sql.Connection c, long millis) throws java.sql.SQLException {
        setLockTimeout(c, Query.TRANSACTION_SET_LOCK_TIMEOUT, millis);
    }

    /** {@code SET lock_timeout} for {@code c}'s session (until {@link Query#SESSION_RESET_LOCK_TIMEOUT}). */
    public static void setSessionLockTimeout(java.sql.Connection c, long millis) throws java.sql.SQLException {
        setLockTimeout(c, Query.SESSION_SET_LOCK_TIMEOUT, millis);
    }

    private static void setLockTimeout(java.sql.Connection c, Query q, long millis) throws java.sql.SQLException {
        try (java.sql.PreparedStatement ps = c.prepareStatement(get(q))) {
            ps.setString(1, millis + "ms");
            ps.executeQuery().close();
        }
    }

    /** Quoted name of a key/value cache's partitioned entry table. */
    public static String kvTable(int cacheId) {
        return "shardq.\"kv_" + cacheId + "\"";
    }

    public static String withKv(Query name, int cacheId) {
        // cached: a get runs this for every read, and String.replace copies the whole text
        return KV.computeIfAbsent(name, n -> new java.util.concurrent.ConcurrentHashMap<>())
                .computeIfAbsent(cacheId, id -> get(name).replace("/* TEMPLATE: kv */", kvTable(id)));
    }

    private static final java.util.concurrent.ConcurrentHashMap<
                    Query, java.util.concurrent.ConcurrentHashMap<Integer, String>>
            KV = new java.util.concurrent.ConcurrentHashMap<>();

    /** {@code name} for the partition of bucket {@code bucket} of cache {@code cacheId} (numbers only). */
    public static String withKvPartition(Query name, int cacheId, long bucket) {
        return get(name)
                .replace(
                        "/* TEMPLATE: kv_partition */",
                        "shardq.\"kv_" + cacheId + "_" + (bucket == 0 ? "forever" : bucket) + "\"");
    }

    private static final String ROW =
            "(?::bigint, ?::bigint, ?::bigint, ?::bigint, ?::smallint, ?::bytea, ?::bytea, ?::bytea, ?::jsonb)";
    /** One row of {@code message_insert_rows}: every column of a message row. */
    public static final String FULL_ROW = "(?::integer, ?::integer, ?::bigint, ?::bigint, ?::bigint, ?::bigint,"
            + " ?::smallint, ?::bytea, ?::bytea, ?::bytea, ?::jsonb)";

    private static final java.util.concurrent.ConcurrentHashMap<String, String> INSERT_ROWS =
            new java.util.concurrent.ConcurrentHashMap<>();

    /** {@code message_insert_rows} for one leaf and {@code rows} rows (cached). */
    public static String insertRows(int destinationId, int shardNo, int slot, int rows) {
        return INSERT_ROWS.computeIfAbsent(destinationId + "/" + shardNo + "/" + slot + "/" + rows, k -> withLeaf(
                        Query.MESSAGE_INSERT_ROWS, destinationId, shardNo, slot)
                .replace(
                        "/* TEMPLATE: full_rows */", String.join(", ", java.util.Collections.nCopies(rows, FULL_ROW))));
    }

    private static final java.util.concurrent.ConcurrentHashMap<String, String> RESERVING =
            new java.util.concurrent.ConcurrentHashMap<>();

    /** {@code message_insert_reserving} for one leaf and {@code rows} rows (cached). */
    public static String insertReserving(int destinationId, int shardNo, int slot, int rows) {
        return RESERVING.computeIfAbsent(destinationId + "/" + shardNo + "/" + slot + "/" + rows, k -> withLeaf(
                        Query.MESSAGE_INSERT_RESERVING, destinationId, shardNo, slot)
                .replace("/* TEMPLATE: rows */", String.join(", ", java.util.Collections.nCopies(rows, ROW))));
    }

    /**
     * Part {@code k} of a several-shard enqueue statement: the CTEs {@code r_k} (the reservation)
     * and {@code i_k} (the rows) of {@code message_insert_reserving_part}, for that leaf and row count.
     */
    public static String insertReservingPart(int k, int destinationId, int shardNo, int slot, int rows) {
        return RESERVING_PART
                .computeIfAbsent(destinationId + "/" + shardNo + "/" + slot + "/" + rows, key -> withLeaf(
                                Query.MESSAGE_INSERT_RESERVING_PART, destinationId, shardNo, slot)
                        .replace("/* TEMPLATE: rows */", String.join(", ", java.util.Collections.nCopies(rows, ROW))))
                .replace("_N", "_" + k);
    }

    /**
     * {@code message_insert_reserving_together}: the parts' CTEs ({@link #insertReservingPart}, in
     * order from 0) and one result row per part.
     */
    public static String insertReservingTogether(java.util.List<String> parts) {
        StringBuilder results = new StringBuilder();
        for (int k = 0; k < parts.size(); k++) {
            if (k > 0) {
                results.append("\nUNION ALL ");
            }
            results.append(get(Query.MESSAGE_INSERT_RESERVING_TOGETHER_RESULT)
                    .replace("/* TEMPLATE: part */", Integer.toString(k))
                    .replace("_N", "_" + k));
        }
        return get(Query.MESSAGE_INSERT_RESERVING_TOGETHER)
                .replace("/* TEMPLATE: parts */", String.join(",\n", parts))
                .replace("/* TEMPLATE: results */", results);
    }

    private static final java.util.concurrent.ConcurrentHashMap<String, String> RESERVING_PART =
            new java.util.concurrent.ConcurrentHashMap<>();

    private static Map<Query, String> load() {
        Map<String, Map<String, String>> byFile = new java.util.HashMap<>();
        Map<Query, String> out = new java.util.EnumMap<>(Query.class);
        for (Query q : Query.values()) {
            String sql = byFile.computeIfAbsent(q.file(), Queries::read).get(q.sqlName());
            if (sql == null) {
                throw new IllegalStateException(q.file() + " has no statement named " + q.sqlName());
            }
            out.put(q, sql);
        }
        return java.util.Collections.unmodifiableMap(out);
    }

    /** The statements of one file by name: each "-- name:" line to the next, comment lines left out. */
    private static Map<String, String> read(String file) {
        try (InputStream in = Queries.class.getResourceAsStream("/io/shardq/broker/sql/" + file)) {
            if (in == null) {
                throw new IllegalStateException(file + " missing from the class path");
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
            return out;
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + file, e);
        }
    }
}
