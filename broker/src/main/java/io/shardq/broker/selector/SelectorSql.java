package io.shardq.broker.selector;

import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.Query;
import io.shardq.broker.internal.SqlErrors;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.NavigableSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A selector evaluated in PostgreSQL first (issue 28): a selective queue consumer scanning a
 * shard's backlog, and a browser with a selector, ask, one window of sequence numbers at a time,
 * which rows the selector may select, and read only those into the JVM, where artemis-selector
 * decides as before. The
 * condition is {@code shardq.selector_sql}'s translation (docs/design/sql-api.md, "Selectors in
 * PostgreSQL"), proven equal to artemis-selector's results by SelectorSqlEquivalenceTest.
 *
 * <p><b>Invariants.</b> A pre-filter never hides a message the JVM would select where PostgreSQL
 * cannot judge it: rows written before the properties column ({@code shard.properties_from}) and
 * rows marked {@code JMS_ShardQ_Unrepresentable} always come through. Where the two evaluators are
 * known to differ (sql-api.md: 64-bit against 32-bit int arithmetic, floats against longs beyond
 * 2^24, characters beyond U+FFFF), a message PostgreSQL leaves out stays in the queue for other
 * consumers: never lost, never delivered twice. A selector PostgreSQL cannot evaluate (the
 * translation refuses it) is evaluated in the JVM over every row, as before.
 *
 * <p>The condition is the translator's output (function calls and references to the bound literal
 * array, never the selector's text), so it is the one piece of dynamic SQL here besides the table
 * name built from a numeric id; the selector's literals are a bind parameter.
 *
 * <p><b>Threading.</b> Any thread: the translations are cached in a concurrent map.
 */
public final class SelectorSql {
    private static final Logger LOG = LoggerFactory.getLogger(SelectorSql.class);
    /** Sequence numbers one pre-filter query looks at. */
    public static final int WINDOW = 20_000;

    private static final int MAX_CACHED = 1_000;
    /** A selector's translation: condition and literals; {@link #NONE} when PostgreSQL cannot evaluate it. */
    public record Translation(String condition, String[] literals) {}

    private static final Translation NONE = new Translation(null, null);
    private static final Map<String, Translation> CACHE = new ConcurrentHashMap<>();

    private SelectorSql() {}

    /** The translation of {@code selector}, or null when PostgreSQL cannot evaluate it. */
    public static Translation of(DataSource dataSource, Selector selector) {
        Translation t = CACHE.get(selector.text());
        if (t == null) {
            t = translate(dataSource, selector.text());
            if (CACHE.size() >= MAX_CACHED) {
                CACHE.clear();
            }
            CACHE.put(selector.text(), t);
        }
        return t == NONE ? null : t;
    }

    private static Translation translate(DataSource dataSource, String text) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.MESSAGE_SELECTOR_TRANSLATE))) {
            ps.setString(1, text);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                String condition = rs.getString(1);
                if (condition.indexOf('?') >= 0 || condition.indexOf(';') >= 0) {
                    return NONE; // never: JDBC would take it for a parameter (Queries#withCondition)
                }
                return new Translation(condition, (String[]) rs.getArray(2).getArray());
            }
        } catch (SQLException e) {
            // 0A000 (JMSMessageID compared in a way PostgreSQL cannot) and the like: the JVM evaluates it
            LOG.debug("selector {} is evaluated in the JVM only: {}", text, e.getMessage());
            return NONE;
        }
    }

    /**
     * The sequence numbers {@code from..to} of {@code shard} that the selector may select (or that
     * PostgreSQL cannot judge), ascending.
     */
    static NavigableSet<Long> candidates(
            DataSource dataSource, DestinationInfo destination, int shard, long from, long to, Translation t) {
        String sql = Queries.withCondition(Query.MESSAGE_SELECT_CANDIDATES, destination.id(), t.condition());
        NavigableSet<Long> out = new TreeSet<>();
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(sql)) {
            Array literals = c.createArrayOf("text", t.literals());
            ps.setArray(1, literals);
            ps.setInt(2, shard);
            ps.setLong(3, from);
            ps.setLong(4, to);
            ps.setInt(5, destination.id());
            ps.setInt(6, shard);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getLong(1));
                }
            }
            return out;
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "selecting messages of " + destination.name() + " in PostgreSQL");
        }
    }

    /**
     * One shard's rows a selector may select, a window of sequence numbers at a time: what a
     * selective consumer's claim and a browser's pager keep between reads. Not thread-safe: its
     * owner's thread only.
     */
    public static final class Window {
        private final DataSource dataSource;
        private final DestinationInfo destination;
        private final int shard;
        private Translation translation;
        private NavigableSet<Long> candidates = new TreeSet<>();
        private long from;
        private long to;

        /** A window of nothing yet, for rows after {@code after}. */
        public Window(DataSource dataSource, DestinationInfo destination, int shard, long after) {
            this.dataSource = dataSource;
            this.destination = destination;
            this.shard = shard;
            this.from = after + 1;
            this.to = after;
        }

        /** Whether row {@code seq} was judged in the current window, by {@code t}. */
        public boolean covers(long seq, Translation t) {
            return t == translation && seq >= from && seq <= to;
        }

        /** Asks which of the rows {@code first..last} {@code t} may select, in place of the window before. */
        public void read(long first, long last, Translation t) {
            candidates = candidates(dataSource, destination, shard, first, last, t);
            translation = t;
            from = first;
            to = last;
        }

        /** The first row after {@code after} the selector may select in this window, or null. */
        public Long next(long after) {
            return candidates.higher(after);
        }

        /** Up to {@code n} rows after {@code after} the selector may select in this window, ascending. */
        public Long[] next(long after, int n) {
            return candidates.tailSet(after, false).stream().limit(n).toArray(Long[]::new);
        }

        /** The last row the window judged. */
        public long last() {
            return to;
        }
    }
}
