package io.shardq.broker.browse;

import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.Query;
import io.shardq.broker.internal.SqlErrors;
import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.selector.Selector;
import io.shardq.broker.selector.SelectorSql;
import io.shardq.broker.store.HeaderCodec;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayDeque;
import javax.sql.DataSource;

/**
 * The rows of one shard for a {@link BrowseCursor}: reads pages of waiting messages in sequence
 * order, from where the previous page ended up to the head the cursor was opened at, and keeps
 * the ones that match the selector until the cursor takes them. With a selector PostgreSQL can
 * evaluate ({@link SelectorSql}), only the rows it may select are read. Not thread-safe: the
 * cursor serialises calls.
 */
final class ShardPager {
    private final DataSource dataSource;
    private final DestinationInfo destination;
    private final int shard;
    private final long head;
    private final ArrayDeque<Row> buffer = new ArrayDeque<>();
    private long after;
    private boolean exhausted;
    /** With a selector PostgreSQL evaluates ({@link SelectorSql}): the rows it may select. */
    private final SelectorSql.Window candidates;

    /** Numbers the next pre-filter window looks at: a page's rows at first, doubled while windows come back empty. */
    private long window;

    /** A matching message and its size as read, for the cursor's byte count. */
    record Row(BrowsedMessage message, long bytes) {}

    /** @param position the queue's cursor on the shard when the browse opened: nothing at or below it waits */
    ShardPager(DataSource dataSource, DestinationInfo destination, int shard, long head, long position) {
        this.dataSource = dataSource;
        this.destination = destination;
        this.shard = shard;
        this.head = head;
        this.after = position;
        this.candidates = new SelectorSql.Window(dataSource, destination, shard, position);
        this.exhausted = head <= position;
    }

    int shard() {
        return shard;
    }

    boolean exhausted() {
        return exhausted && buffer.isEmpty();
    }

    boolean buffered() {
        return !buffer.isEmpty();
    }

    /** True when the buffer is empty and more rows may wait in PostgreSQL. */
    boolean needsPage() {
        return buffer.isEmpty() && !exhausted;
    }

    Row peek() {
        return buffer.peekFirst();
    }

    Row take() {
        return buffer.pollFirst();
    }

    /** Drops what is buffered and reads no more. */
    void stop() {
        buffer.clear();
        exhausted = true;
    }

    /**
     * Reads one page: at most {@code rows} rows and about {@code bytes} bytes (the row that
     * crosses the byte bound is still read, so every page moves on). Keeps the rows that are
     * not expired and match {@code selector} (null: all). With a selector PostgreSQL evaluates,
     * first asks which rows it may select, looking at no more than {@code budget} messages.
     */
    void readPage(int rows, long budget, long bytes, Selector selector, long now, BrowseCursor.Counters counters) {
        SelectorSql.Translation prefilter = selector == null ? null : SelectorSql.of(dataSource, selector);
        Long[] only = null;
        if (prefilter != null) {
            // the next rows PostgreSQL says the selector may select, a window at a time
            while (candidates.next(after) == null) {
                if (candidates.last() >= head) {
                    exhausted = true;
                    return;
                }
                if (budget <= 0) {
                    stop(); // the examine budget is spent
                    return;
                }
                long from = Math.max(after, candidates.last()) + 1;
                window = window == 0 ? Math.max(1, rows) : Math.min(SelectorSql.WINDOW, window * 2);
                long to = Math.min(head, from + Math.min(window, budget) - 1);
                candidates.read(from, to, prefilter);
                counters.pagesRead++;
                counters.examined += to - from + 1; // looked at in PostgreSQL
                budget -= to - from + 1;
                if (candidates.next(after) == null) {
                    after = to;
                } else {
                    window = Math.max(1, rows / 2); // doubled back to a page at the next window
                }
            }
            only = candidates.next(after, rows);
        }
        String sql = Queries.withParent(Query.MESSAGE_SELECT_BROWSE_PAGE, destination.id());
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(sql)) {
            long subscription = destination.queueSubscription();
            int k = 1;
            ps.setInt(k++, shard);
            ps.setLong(k++, after);
            ps.setLong(k++, subscription);
            ps.setInt(k++, shard);
            ps.setLong(k++, head);
            ps.setLong(k++, subscription);
            java.sql.Array candidateArray = only == null ? null : c.createArrayOf("bigint", only);
            ps.setArray(k++, candidateArray);
            ps.setArray(k++, candidateArray);
            ps.setInt(k++, rows);
            ps.setLong(k, bytes);
            int read = 0;
            int dropped = 0;
            long droppedBytes = 0;
            try (ResultSet rs = ps.executeQuery()) {
                // the driver holds the whole page until the result set closes: rows left out by
                // the selector are released only then, so the count is what is really held
                while (rs.next()) {
                    long seq = rs.getLong(1);
                    byte[] header = rs.getBytes(6);
                    byte[] body = rs.getBytes(7);
                    long size = (long) header.length + body.length;
                    counters.hold(1, size);
                    counters.rowsRead++;
                    if (only == null) {
                        counters.examined++; // (a pre-filtered row was counted with its window)
                    }
                    read++;
                    after = seq;
                    BrokerMessage m = HeaderCodec.decode(
                            header, rs.getString(8), body, rs.getShort(5), rs.getLong(4), rs.getLong(3));
                    if ((m.expiration() == 0 || m.expiration() >= now) && (selector == null || selector.matches(m))) {
                        buffer.addLast(new Row(new BrowsedMessage(shard, seq, rs.getLong(2), m), size));
                    } else {
                        dropped++;
                        droppedBytes += size;
                    }
                }
            }
            counters.release(dropped, droppedBytes);
            counters.pagesRead++;
            if (only != null) {
                if (read == 0 || after >= only[only.length - 1]) {
                    after = Math.max(after, only[only.length - 1]); // the rest of them consumed meanwhile
                }
                if (after >= head) {
                    exhausted = true;
                }
            } else if (read == 0 || after >= head) {
                exhausted = true;
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "browsing " + destination.name() + " shard " + shard);
        }
    }
}
