package io.shardq.broker.slice;

import io.shardq.broker.internal.BackgroundService;
import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.Query;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reclaims the rows that rolled-back sends leave in message tables. Leaves have autovacuum off
 * (they are append-only and emptied by TRUNCATE when their slice retires), but an enqueue
 * transaction that wrote rows and then rolled back (an application's rollback after a batch was
 * written ahead, a commit that failed) leaves dead rows that nothing else would reclaim while the
 * slice lives: a queue holding one message could grow by megabytes per rolled-back batch.
 *
 * <p>The session that rolled back reports the (destination, shard) ({@link #sendsRolledBack});
 * this service, on its own thread ({@code shardq-<instance>-reclaimer-1}), runs {@code VACUUM} on
 * that shard's leaves, at most once per shard per round, with a short {@code lock_timeout} so that
 * it never queues behind a retirement's TRUNCATE (a leaf being retired is emptied anyway). A
 * VACUUM that could not take its lock is retried next round. Not on the commit path: reporting is
 * adding to a set.
 */
public final class DeadRowReclaimer extends BackgroundService {
    private static final Logger LOG = LoggerFactory.getLogger(DeadRowReclaimer.class);
    private static final long ROUND_MILLIS = 1000;

    private record ShardKey(int destination, int shard) {}

    private final DataSource dataSource;
    private final long lockTimeoutMillis;
    private final Set<ShardKey> dirty = ConcurrentHashMap.newKeySet();
    private final LongAdder vacuums = new LongAdder();

    public DeadRowReclaimer(DataSource dataSource, long lockTimeoutMillis, String threadName) {
        super(threadName);
        this.dataSource = dataSource;
        this.lockTimeoutMillis = lockTimeoutMillis;
    }

    /** A transaction that had written rows to this shard rolled back. Cheap; any thread. */
    public void sendsRolledBack(int destination, int shard) {
        if (dirty.add(new ShardKey(destination, shard))) {
            trigger();
        }
    }

    /** Leaves vacuumed so far. */
    public long vacuums() {
        return vacuums.sum();
    }

    @Override
    protected long runOnce() throws SQLException {
        List<ShardKey> round = new ArrayList<>(dirty);
        for (ShardKey k : round) {
            if (isStopping()) {
                break;
            }
            dirty.remove(k);
            if (!vacuumShard(k)) {
                dirty.add(k); // a lock was busy: next round
            }
        }
        return ROUND_MILLIS;
    }

    private boolean vacuumShard(ShardKey k) throws SQLException {
        List<Integer> slots = new ArrayList<>();
        try (Connection c = dataSource.getConnection()) {
            try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.SLICE_SELECT_SLOTS))) {
                ps.setInt(1, k.destination());
                ps.setInt(2, k.shard());
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        slots.add(rs.getInt(1));
                    }
                }
            }
            boolean all = true;
            try (Statement s = c.createStatement()) {
                Queries.setSessionLockTimeout(c, Math.max(1, lockTimeoutMillis));
                for (int slot : slots) {
                    try {
                        s.execute(Queries.withLeaf(Query.SLICE_VACUUM_LEAF, k.destination(), k.shard(), slot));
                        vacuums.increment();
                    } catch (SQLException e) {
                        String state = e.getSQLState();
                        if ("55P03".equals(state)) {
                            all = false; // lock_timeout: a retirement or another VACUUM holds it
                        } else if (!"42P01".equals(state)) { // a leaf dropped meanwhile needs nothing
                            throw e;
                        }
                    }
                }
            } finally {
                try (Statement s = c.createStatement()) {
                    s.execute(Queries.get(Query.SESSION_RESET_LOCK_TIMEOUT));
                }
            }
            LOG.debug("vacuumed {} leaves of destination {} shard {}", slots.size(), k.destination(), k.shard());
            return all;
        }
    }
}
