package io.shardq.broker.slice;

import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.Query;
import io.shardq.broker.store.LargeBodies;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reclaims storage and prepares slots, off the hot path. Run by the maintenance leader only
 * ({@link SliceMaintainer}), one destination at a time.
 *
 * <p>A slice whose last sequence number every cursor of its shard has passed is TRUNCATEd and
 * its slot freed for reuse: storage comes back without DELETE, dead tuples or VACUUM. TRUNCATE
 * needs an ACCESS EXCLUSIVE lock on the slot, so it runs with a short {@code lock_timeout}; when
 * a long transaction (a browser, an idle-in-transaction session) holds the slot, the attempt is
 * abandoned, the blocking backend and its age are recorded for stats, and it is retried on the
 * next round. Enqueue and dequeue never wait for it: they do not touch retired slots. Each
 * shard keeps at least {@link #SPARE_SLOTS} free slots prepared ahead, so enqueue rarely runs
 * DDL itself. The streamed bodies of the slice's messages (V012) are deleted in the same
 * transaction: the one storage here that is deleted, not truncated, and left to VACUUM.
 */
public final class SliceRetirer {
    private static final Logger LOG = LoggerFactory.getLogger(SliceRetirer.class);
    static final int SPARE_SLOTS = 2;

    /** Where the retirer reports what it did. */
    public interface Listener {
        void retired(DestinationInfo destination, int shard, long firstSeq);

        /** Truncating {@code leaf} timed out on a lock; {@code description} names the holders. */
        void blocked(String leaf, String description);

        /** {@code leaf} was retired, or another instance had it or it changed: no longer blocked here. */
        default void settled(String leaf) {}

        /** A round over one destination started. */
        default void round(DestinationInfo destination) {}
    }

    /**
     * What one round did; {@code busy} when a lock could not be had in time (a slice not
     * truncated or a spare slot not added), so the round should be repeated soon.
     */
    public record Round(int retired, boolean busy) {}

    private final DataSource dataSource;
    private final Listener listener;
    private final long lockTimeoutMillis;

    public SliceRetirer(DataSource dataSource, Listener listener) {
        this(dataSource, listener, 100);
    }

    /**
     * @param lockTimeoutMillis how long TRUNCATE and slot DDL wait for their lock before the
     *     attempt is abandoned until the next round
     */
    public SliceRetirer(DataSource dataSource, Listener listener, long lockTimeoutMillis) {
        this.dataSource = dataSource;
        this.listener = listener;
        this.lockTimeoutMillis = lockTimeoutMillis;
    }

    /** How long TRUNCATE, slot DDL and a shrink's DROP wait for their lock. */
    public long lockTimeoutMillis() {
        return lockTimeoutMillis;
    }

    /** One round over one destination. */
    public Round run(DestinationInfo d) throws SQLException {
        listener.round(d);
        int retired = 0;
        boolean busy = false;
        try (Connection c = dataSource.getConnection()) {
            List<long[]> candidates = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.SLICE_SELECT_RETIRABLE))) {
                ps.setInt(1, d.id());
                ps.setInt(2, d.id());
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        candidates.add(new long[] {rs.getInt(1), rs.getInt(2), rs.getLong(3), rs.getLong(4)});
                    }
                }
            }
            for (long[] cand : candidates) {
                Boolean done = retire(c, d, (int) cand[0], (int) cand[1], cand[2], cand[3]);
                if (done == null) {
                    busy = true;
                } else if (done) {
                    retired++;
                }
            }
            busy |= !prepareSpares(c, d);
        }
        return new Round(retired, busy);
    }

    private void setLockTimeout(Connection c) throws SQLException {
        Queries.setLocalLockTimeout(c, lockTimeoutMillis);
    }

    /** True when retired, false when another instance has it or it changed, null when blocked. */
    private Boolean retire(Connection c, DestinationInfo d, int shard, int slot, long first, long last)
            throws SQLException {
        String leaf = Queries.leafTable(d.id(), shard, slot);
        c.setAutoCommit(false);
        try {
            setLockTimeout(c);
            try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.SLICE_LOCK_FOR_RETIRE))) {
                ps.setInt(1, d.id());
                ps.setInt(2, shard);
                ps.setInt(3, slot);
                ps.setLong(4, first);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        c.rollback();
                        listener.settled(leaf);
                        return false; // another instance is on it, or it changed
                    }
                }
            }
            try (Statement s = c.createStatement()) {
                s.execute(Queries.withLeaf(Query.SLICE_TRUNCATE_LEAF, d.id(), shard, slot));
            }
            // the streamed bodies of its messages (V012): deleted rows, which VACUUM reclaims
            int bodies = LargeBodies.deleteSlice(c, d.id(), shard, first, last);
            if (bodies > 0) {
                LOG.debug(
                        "{} - {} streamed bodies of the slice from {} of shard {} deleted",
                        d.name(),
                        bodies,
                        first,
                        shard);
            }
            try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.SLICE_FREE))) {
                ps.setInt(1, d.id());
                ps.setInt(2, shard);
                ps.setInt(3, slot);
                ps.executeUpdate();
            }
            c.commit();
            listener.retired(d, shard, first);
            listener.settled(leaf);
            LOG.debug("{} - slice from {} of shard {} retired (slot {})", d.name(), first, shard, slot);
            return true;
        } catch (SQLException e) {
            c.rollback();
            if (!"55P03".equals(e.getSQLState())) {
                throw e;
            }
            c.setAutoCommit(true);
            String who = lockHolders(c, leaf);
            listener.blocked(leaf, leaf + " held by " + who);
            LOG.warn("{} - cannot truncate {} yet: held by {}", d.name(), leaf, who);
            return null;
        } finally {
            c.setAutoCommit(true);
        }
    }

    private static String lockHolders(Connection c, String leaf) throws SQLException {
        StringBuilder sb = new StringBuilder();
        try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.SLICE_SELECT_LOCK_HOLDERS))) {
            ps.setString(1, leaf);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    if (!sb.isEmpty()) {
                        sb.append("; ");
                    }
                    sb.append("backend pid ")
                            .append(rs.getInt(1))
                            .append(" (")
                            .append(rs.getString(3))
                            .append(" for ")
                            .append(rs.getLong(2))
                            .append(" s: ")
                            .append(rs.getString(4))
                            .append(')');
                }
            }
        }
        return sb.isEmpty() ? "a backend that has since finished" : sb.toString();
    }

    /** False when a slot could not be added for want of a lock (try again next round). */
    private boolean prepareSpares(Connection c, DestinationInfo d) throws SQLException {
        List<int[]> shortOf = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.SLICE_COUNT_FREE))) {
            ps.setInt(1, d.id());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    int free = rs.getInt(2);
                    if (free < SPARE_SLOTS) {
                        shortOf.add(new int[] {rs.getInt(1), SPARE_SLOTS - free});
                    }
                }
            }
        }
        for (int[] s : shortOf) {
            for (int i = 0; i < s[1]; i++) {
                // DDL takes ACCESS EXCLUSIVE on the shard's table: never queue behind a long
                // transaction (that would stall every enqueue and dequeue queued behind us)
                c.setAutoCommit(false);
                try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.SLICE_ADD))) {
                    setLockTimeout(c);
                    ps.setInt(1, d.id());
                    ps.setInt(2, s[0]);
                    ps.execute();
                    c.commit();
                } catch (SQLException e) {
                    c.rollback();
                    if (!"55P03".equals(e.getSQLState())) {
                        throw e;
                    }
                    return false; // busy: next round
                } finally {
                    c.setAutoCommit(true);
                }
            }
        }
        return true;
    }
}
