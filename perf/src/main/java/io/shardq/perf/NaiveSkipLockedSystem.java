package io.shardq.perf;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;

/**
 * The common PostgreSQL queue, the unsharded baseline: one table, INSERT to enqueue, and to
 * dequeue one statement in its own transaction:
 *
 * <pre>{@code
 * delete from q where id in (select id from q order by id limit ? for update skip locked)
 * returning id, payload
 * }</pre>
 *
 * Consumers poll: an empty result is retried after 1 ms, doubling up to 16 ms, until the wait
 * ends. Every DELETE is counted as one SQL read, empty polls included.
 */
final class NaiveSkipLockedSystem implements QueueSystem {
    static final String NAME = "naive";
    private static final long MAX_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(16);

    private final LongAdder reads = new LongAdder();
    private DataSource dataSource;
    private ReferenceTable table;
    private String dequeueSql;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void setUp(DataSource dataSource, Settings settings) throws Exception {
        this.dataSource = dataSource;
        table = new ReferenceTable(dataSource, "naive_queue");
        table.recreate(settings.persistent());
        String q = table.qualifiedName();
        dequeueSql = "delete from " + q + " where id in (select id from " + q
                + " order by id limit ? for update skip locked) returning id, payload";
    }

    @Override
    public Producer producer() {
        ReferenceTable t = table;
        return t::insert;
    }

    @Override
    public Consumer consumer() {
        return this::receive;
    }

    private List<Delivery> receive(int max, Duration wait) throws SQLException {
        long deadline = System.nanoTime() + wait.toNanos();
        long pause = TimeUnit.MILLISECONDS.toNanos(1);
        while (true) {
            List<Delivery> got = dequeue(max);
            long left = deadline - System.nanoTime();
            if (!got.isEmpty() || left <= 0 || Thread.currentThread().isInterrupted()) {
                return got;
            }
            LockSupport.parkNanos(Math.min(pause, left));
            pause = Math.min(pause * 2, MAX_PAUSE_NANOS);
        }
    }

    private List<Delivery> dequeue(int max) throws SQLException {
        List<Delivery> got = new ArrayList<>(max);
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(dequeueSql)) {
            ps.setInt(1, max);
            reads.increment();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    got.add(new Delivery(Long.toString(rs.getLong(1)), Payloads.sentMicros(rs.getBytes(2))));
                }
            }
        }
        return got;
    }

    @Override
    public long backlog() throws Exception {
        return table.count();
    }

    @Override
    public List<String> tables() {
        return List.of(table.qualifiedName());
    }

    @Override
    public OptionalLong sqlReads() {
        return OptionalLong.of(reads.sum());
    }

    @Override
    public void tearDown() throws Exception {
        if (table != null) {
            table.drop();
        }
    }
}
