package io.shardq.broker.kv;

import io.shardq.broker.internal.BackgroundService;
import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.Query;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The maintenance leader's work on the key/value caches, every {@code kv.maintenance-ms}:
 *
 * <ol>
 *   <li>creates the bucket partitions ahead, up to now + max TTL + 2 buckets, so writers never
 *       do DDL ({@code shardq.kv_ensure_buckets});
 *   <li>reclaims expired storage by dropping whole bucket partitions: bucket {@code b} holds only
 *       entries expiring at or before {@code b * bucket_ms}, so once the clock has passed that,
 *       nothing in it is live ({@code shardq.kv_drop_bucket}; never a row-by-row purge);
 *   <li>evicts the least recently touched live entries of a cache over its {@code max_entries}
 *       or {@code max_bytes}, set-based, skipping rows writers hold ({@code kv_evict_lru}).
 * </ol>
 *
 * DDL runs under {@code lock_timeout} ({@code maintenance.lock-timeout-ms}): a partition busy
 * with a long reader is left for the next round rather than queueing every later statement
 * behind an exclusive lock. Followers do nothing. Leadership is for efficiency only: the DDL is
 * idempotent ({@code IF NOT EXISTS}, {@code to_regclass} checks) and eviction skips locked rows.
 */
public final class KvMaintainer extends BackgroundService {
    private static final Logger LOG = LoggerFactory.getLogger(KvMaintainer.class);
    /** Rows per eviction statement; a round repeats it until the cache is within its bounds. */
    static final int EVICT_CHUNK = 10_000;

    private final KvCaches caches;
    private final DataSource dataSource;
    private final Clock clock;
    private final BooleanSupplier leader;
    private final long intervalMillis;
    private final int lockTimeoutMillis;

    /** What one round did. */
    public record Round(int created, int dropped, long expired, long evicted, int blocked, int failuresPurged) {}

    public KvMaintainer(
            KvCaches caches, BooleanSupplier leader, long intervalMillis, int lockTimeoutMillis, String threadName) {
        super(threadName);
        this.caches = caches;
        this.dataSource = caches.dataSource();
        this.clock = caches.clock();
        this.leader = leader;
        this.intervalMillis = intervalMillis;
        this.lockTimeoutMillis = lockTimeoutMillis;
    }

    @Override
    protected long runOnce() throws Exception {
        if (!leader.getAsBoolean()) {
            return intervalMillis;
        }
        Round r = round();
        // a DDL that could not get its lock is retried soon, not a whole interval later
        return r.blocked() > 0 ? Math.min(intervalMillis, 1000) : intervalMillis;
    }

    /** One round over every cache, whoever leads (tests call it directly). */
    public Round round() throws SQLException {
        int created = 0;
        int dropped = 0;
        long expired = 0;
        long evicted = 0;
        int blocked = 0;
        long now = clock.millis();
        for (KvDefinition d : caches.all()) {
            try {
                created += ensureBuckets(d, now);
                for (long bucket : expiredBuckets(d, now)) {
                    long rows = dropBucket(d, bucket);
                    if (rows < 0) {
                        blocked++;
                    } else {
                        dropped++;
                        expired += rows;
                    }
                }
                if (d.bounded()) {
                    evicted += evict(d, now);
                }
            } catch (SQLException e) {
                if ("55P03".equals(e.getSQLState())) {
                    blocked++;
                } else if (!"42P01".equals(e.getSQLState()) && !"42704".equals(e.getSQLState())) {
                    throw e; // 42P01/42704: dropped meanwhile
                }
            }
        }
        int purged = purgeLoadFailures();
        if (dropped + evicted > 0) {
            LOG.debug(
                    "{} - kv round: {} partitions created, {} dropped ({} expired entries), {} evicted",
                    threadName(),
                    created,
                    dropped,
                    expired,
                    evicted);
        }
        return new Round(created, dropped, expired, evicted, blocked, purged);
    }

    /**
     * Deletes recorded load failures no waiter can still ask for: a waiter reads only a failure
     * recorded after it began waiting, and waits at most the load timeout, so a row older than
     * twice that (and at least a minute, by the database's clock, which wrote it) is dead; so are
     * the rows of dropped caches.
     */
    private int purgeLoadFailures() throws SQLException {
        try (Connection c = caches.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.KV_LOAD_FAILURE_PURGE))) {
            ps.setLong(1, Math.max(60_000, 2 * caches.loadTimeoutMs()));
            return ps.executeUpdate();
        }
    }

    /**
     * The partitions entries put now with the default TTL fall in, and two buckets beyond: no
     * default-TTL write waits for DDL. Other buckets are made when a write first needs one
     * ({@code kv_need_bucket}), so a cache has partitions only where entries may be.
     */
    private int ensureBuckets(KvDefinition d, long now) throws SQLException {
        if (d.defaultTtlMs() == null) {
            return 0;
        }
        long from = now + d.defaultTtlMs();
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try {
                lockTimeout(c);
                int n;
                try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.KV_ENSURE_BUCKETS))) {
                    ps.setInt(1, d.id());
                    ps.setLong(2, from);
                    ps.setLong(3, from + d.aheadMs());
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        n = rs.getInt(1);
                    }
                }
                c.commit();
                return n;
            } catch (SQLException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(true);
            }
        }
    }

    private List<Long> expiredBuckets(KvDefinition d, long now) throws SQLException {
        List<Long> out = new ArrayList<>();
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.KV_SELECT_BUCKETS))) {
            ps.setString(1, d.table());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    long b = rs.getLong(1);
                    if (b > 0 && b <= Long.MAX_VALUE / d.bucketMs() && b * d.bucketMs() <= now) {
                        out.add(b);
                    }
                }
            }
        }
        return out;
    }

    /** Drops one expired bucket; returns its row count, or -1 when its lock was not free in time. */
    private long dropBucket(KvDefinition d, long bucket) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try {
                lockTimeout(c);
                long rows;
                try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.KV_DROP_BUCKET))) {
                    ps.setInt(1, d.id());
                    ps.setLong(2, bucket);
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        rows = rs.getLong(1);
                    }
                }
                c.commit();
                return rows;
            } catch (SQLException e) {
                c.rollback();
                if ("55P03".equals(e.getSQLState())) {
                    LOG.debug("{} - cache {} bucket {} busy, retried next round", threadName(), d.name(), bucket);
                    return -1;
                }
                throw e;
            } finally {
                c.setAutoCommit(true);
            }
        }
    }

    /** Evicts the least recently touched live entries beyond the bounds; returns how many. */
    private long evict(KvDefinition d, long now) throws SQLException {
        long total = 0;
        try (Connection c = dataSource.getConnection()) {
            for (int i = 0; i < 100; i++) {
                long count;
                long bytes;
                try (PreparedStatement ps = c.prepareStatement(Queries.withKv(Query.KV_COUNT_LIVE, d.id()))) {
                    ps.setLong(1, now);
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        count = rs.getLong(1);
                        bytes = rs.getLong(2);
                    }
                }
                long over = 0;
                if (d.maxEntries() != null) {
                    over = Math.max(over, count - d.maxEntries());
                }
                if (d.maxBytes() != null && bytes > d.maxBytes() && count > 0) {
                    long average = Math.max(1, bytes / count);
                    over = Math.max(over, (bytes - d.maxBytes() + average - 1) / average);
                }
                if (over <= 0) {
                    break;
                }
                long n;
                try (PreparedStatement ps = c.prepareStatement(Queries.withKv(Query.KV_EVICT_LRU, d.id()))) {
                    ps.setLong(1, now);
                    ps.setLong(2, Math.min(over, EVICT_CHUNK));
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        n = rs.getLong(1);
                    }
                }
                try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.KV_CACHE_COUNT_EVICTIONS))) {
                    ps.setLong(1, n);
                    ps.setInt(2, d.id());
                    ps.executeUpdate();
                }
                total += n;
                if (n == 0) {
                    break; // everything left is held by writers: next round
                }
            }
        }
        return total;
    }

    private void lockTimeout(Connection c) throws SQLException {
        Queries.setLocalLockTimeout(c, lockTimeoutMillis);
    }
}
