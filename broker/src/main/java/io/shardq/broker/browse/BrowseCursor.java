package io.shardq.broker.browse;

import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.Query;
import io.shardq.broker.internal.SqlErrors;
import io.shardq.broker.selector.Selector;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import javax.sql.DataSource;

/**
 * Looks at a queue's waiting messages without consuming them, lazily, one message at a time,
 * with memory bounded whatever the backlog.
 *
 * <p><b>What it shows.</b> When the cursor opens it reads each shard's head ({@code next_seq - 1}):
 * it shows messages up to those heads only, so messages sent after it opened are not shown and
 * a browse of a busy queue ends. Of those, it shows the ones still waiting when their page is
 * read: beyond the consumer cursor and not taken by a selective consumer ({@code
 * shardq.dequeue_range}), not expired, and matching the selector. A message consumed after its
 * page was read may still be shown (a browser is a view, not a lock).
 *
 * <p><b>Order.</b> Oldest first: the shards are merged by enqueue time (ties by shard, then
 * sequence number); each shard's messages come in sequence order, which is its send order.
 * Messages from the {@link MemorySource} are merged the same way.
 *
 * <p><b>Paging and memory.</b> Each shard is read in pages of sequence ranges from where its last
 * page ended ({@code message_select_browse_page}), each page on a pooled connection taken for
 * that statement only, so no transaction stays open between pages and slice retirement is never
 * held up by a browser. The selector is evaluated on each row as its page is read, before it is
 * counted as shown: a selector that matches nothing reads the whole backlog once, page after
 * page, holding one page at a time. A page is read only for a shard whose buffered matches are
 * used up, and the page budget ({@link Options#pageRows}, {@link Options#pageBytes}) is split
 * evenly over the shards, so the rows held at once never exceed {@code max(pageRows, shards)}
 * and the bytes {@code pageBytes} plus one row per shard (a row larger than its share is still
 * read). {@link #peakRowsHeld()} and {@link #peakBytesHeld()} report what was held.
 *
 * <p><b>Threads.</b> One thread iterates; {@link #close()} may come from another. Every method
 * is synchronized: a page read blocks a concurrent close until it ends.
 */
public final class BrowseCursor implements Iterator<BrowsedMessage>, AutoCloseable {
    private static final Comparator<BrowsedMessage> OLDEST_FIRST = Comparator.comparingLong(BrowsedMessage::enqueuedAt)
            .thenComparingInt(BrowsedMessage::shard)
            .thenComparingLong(BrowsedMessage::seq);

    /**
     * @param pageRows rows held at once, over all shards (each shard reads pages of {@code
     *     pageRows / shards} rows, at least 1)
     * @param pageBytes header and body bytes held at once, over all shards, split the same way
     * @param maxExamined stop after reading this many rows (matching or not); the CLI's {@code --scan}
     * @param memory messages kept in memory only, merged in
     */
    public record Options(int pageRows, long pageBytes, long maxExamined, MemorySource memory) {
        public static final Options DEFAULTS = new Options(1000, 4L << 20, Long.MAX_VALUE, MemorySource.NONE);

        public Options {
            if (pageRows < 1 || pageBytes < 1 || maxExamined < 0) {
                throw new IllegalArgumentException("browse page of " + pageRows + " rows, " + pageBytes + " bytes, "
                        + maxExamined + " rows at most is invalid: expected 1 or more");
            }
        }

        public Options withPage(int rows, long bytes) {
            return new Options(rows, bytes, maxExamined, memory);
        }

        public Options withMaxExamined(long rows) {
            return new Options(pageRows, pageBytes, rows, memory);
        }

        public Options withMemory(MemorySource source) {
            return new Options(pageRows, pageBytes, maxExamined, source);
        }
    }

    /** What the cursor reads and holds; updated by the pagers. */
    static final class Counters {
        /** Messages looked at: rows read into the JVM, or numbers a pre-filter looked at in PostgreSQL. */
        long examined;
        /** Rows read into the JVM. */
        long rowsRead;

        long pagesRead;
        private long rowsHeld;
        private long bytesHeld;
        private long peakRows;
        private long peakBytes;

        void hold(long rows, long bytes) {
            rowsHeld += rows;
            bytesHeld += bytes;
            peakRows = Math.max(peakRows, rowsHeld);
            peakBytes = Math.max(peakBytes, bytesHeld);
        }

        void release(long rows, long bytes) {
            rowsHeld -= rows;
            bytesHeld -= bytes;
        }
    }

    private final Selector selector;
    private final Options options;
    private final List<ShardPager> shards;
    private final int rowsPerPage;
    private final long bytesPerPage;
    private final Counters counters = new Counters();
    private Iterator<BrowsedMessage> memory;
    private BrowsedMessage memoryHead;
    private BrowsedMessage next;
    private boolean closed;

    private BrowseCursor(Selector selector, Options options, List<ShardPager> shards) {
        this.selector = selector;
        this.options = options;
        this.shards = shards;
        int n = Math.max(1, shards.size());
        this.rowsPerPage = Math.max(1, options.pageRows() / n);
        this.bytesPerPage = Math.max(1, options.pageBytes() / n);
    }

    /**
     * Opens a cursor on a queue: reads the shards' heads and the queue's cursors now (one
     * statement), nothing else until the first {@link #hasNext()}.
     *
     * @param selector null: every message
     */
    public static BrowseCursor open(DataSource dataSource, DestinationInfo queue, Selector selector, Options options) {
        List<ShardPager> pagers = new ArrayList<>();
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.SHARD_SELECT_HEADS_AND_POSITIONS))) {
            ps.setInt(1, queue.id());
            ps.setLong(2, queue.queueSubscription());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    pagers.add(new ShardPager(dataSource, queue, rs.getInt(1), rs.getLong(2) - 1, rs.getLong(3)));
                }
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "browsing " + queue.name());
        }
        pagers.sort(Comparator.comparingInt(ShardPager::shard));
        return new BrowseCursor(selector, options, List.copyOf(pagers));
    }

    @Override
    public synchronized boolean hasNext() {
        if (next == null && !closed) {
            next = advance();
        }
        return next != null;
    }

    @Override
    public synchronized BrowsedMessage next() {
        if (!hasNext()) {
            throw new NoSuchElementException("no more messages to browse");
        }
        BrowsedMessage m = next;
        next = null;
        return m;
    }

    /** The next message in order, or null when there is none. */
    private BrowsedMessage advance() {
        long now = System.currentTimeMillis();
        ShardPager oldest = null;
        for (ShardPager s : shards) {
            while (s.needsPage()) {
                long budget = options.maxExamined() - counters.examined;
                if (budget <= 0) {
                    s.stop();
                    break;
                }
                s.readPage((int) Math.min(rowsPerPage, budget), budget, bytesPerPage, selector, now, counters);
            }
            if (s.buffered()
                    && (oldest == null
                            || OLDEST_FIRST.compare(
                                            s.peek().message(), oldest.peek().message())
                                    < 0)) {
                oldest = s;
            }
        }
        BrowsedMessage fromMemory = memoryHead(now);
        if (fromMemory != null
                && (oldest == null
                        || OLDEST_FIRST.compare(fromMemory, oldest.peek().message()) < 0)) {
            memoryHead = null;
            return fromMemory;
        }
        if (oldest == null) {
            return null;
        }
        ShardPager.Row row = oldest.take();
        counters.release(1, row.bytes());
        return row.message();
    }

    private BrowsedMessage memoryHead(long now) {
        if (memory == null) {
            memory = options.memory().messages();
        }
        while (memoryHead == null && memory.hasNext()) {
            BrowsedMessage m = memory.next();
            long exp = m.message().expiration();
            if ((exp == 0 || exp >= now) && (selector == null || selector.matches(m.message()))) {
                memoryHead = m;
            }
        }
        return memoryHead;
    }

    /**
     * Messages looked at so far, matching or not: rows read into the JVM, and the messages a
     * selector evaluated in PostgreSQL first looked at there ({@code SelectorSql}).
     */
    public synchronized long examined() {
        return counters.examined;
    }

    /** Rows read into the JVM so far (with a selector PostgreSQL evaluates, only those it may select). */
    public synchronized long rowsRead() {
        return counters.rowsRead;
    }

    /** Pages read so far (one statement each). */
    public synchronized long pagesRead() {
        return counters.pagesRead;
    }

    /** The most rows held in memory at once: read pages, matched and not yet taken. */
    public synchronized long peakRowsHeld() {
        return counters.peakRows;
    }

    /** The most header and body bytes held in memory at once. */
    public synchronized long peakBytesHeld() {
        return counters.peakBytes;
    }

    /** True when {@link Options#maxExamined} rows were read: more may wait beyond them. */
    public synchronized boolean stoppedAtMaxExamined() {
        return counters.examined >= options.maxExamined() && options.maxExamined() != Long.MAX_VALUE;
    }

    /** Drops what is held; {@link #hasNext()} is false from now on. Safe twice. */
    @Override
    public synchronized void close() {
        closed = true;
        next = null;
        memoryHead = null;
        for (ShardPager s : shards) {
            s.stop();
        }
    }
}
