package io.shardq.broker.slice;

import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.internal.Queries;
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
 * Reclaims storage and prepares slots, off the hot path.
 *
 * <p>A slice whose last sequence number every cursor of its shard has passed is TRUNCATEd and
 * its slot freed for reuse: storage comes back without DELETE, dead tuples or VACUUM. TRUNCATE
 * needs an ACCESS EXCLUSIVE lock on the slot, so it runs with a short {@code lock_timeout}; when
 * a long transaction (a browser, an idle-in-transaction session) holds the slot, the attempt is
 * abandoned, the blocking backend and its age are recorded for stats, and it is retried on the
 * next round. Enqueue and dequeue never wait for it: they do not touch retired slots. Each
 * shard keeps at least {@link #SPARE_SLOTS} free slots prepared ahead, so enqueue rarely runs
 * DDL itself.
 */
public final class SliceRetirer {
    private static final Logger LOG = LoggerFactory.getLogger(SliceRetirer.class);
    static final int SPARE_SLOTS = 2;

    /** Where the retirer reports what it did. */
    public interface Listener {
        void retired(DestinationInfo destination, int shard, long firstSeq);

        void blocked(String description);
    }

    private final DataSource dataSource;
    private final Listener listener;

    public SliceRetirer(DataSource dataSource, Listener listener) {
        this.dataSource = dataSource;
        this.listener = listener;
    }

    /** One round over one destination. Returns how many slices were retired. */
    public int run(DestinationInfo d) throws SQLException {
        int retired = 0;
        try (Connection c = dataSource.getConnection()) {
            List<long[]> candidates = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(Queries.get("slice_select_retirable"))) {
                ps.setInt(1, d.id());
                ps.setInt(2, d.id());
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        candidates.add(new long[] {rs.getInt(1), rs.getInt(2), rs.getLong(3)});
                    }
                }
            }
            for (long[] cand : candidates) {
                if (retire(c, d, (int) cand[0], (int) cand[1], cand[2])) {
                    retired++;
                }
            }
            prepareSpares(c, d);
        }
        return retired;
    }

    private boolean retire(Connection c, DestinationInfo d, int shard, int slot, long first) throws SQLException {
        String leaf = Queries.leafTable(d.id(), shard, slot);
        c.setAutoCommit(false);
        try {
            try (Statement s = c.createStatement()) {
                s.execute("set local lock_timeout = '100ms'");
            }
            try (PreparedStatement ps = c.prepareStatement(Queries.get("slice_lock_for_retire"))) {
                ps.setInt(1, d.id());
                ps.setInt(2, shard);
                ps.setInt(3, slot);
                ps.setLong(4, first);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        c.rollback();
                        return false; // another instance is on it, or it changed
                    }
                }
            }
            try (Statement s = c.createStatement()) {
                s.execute("truncate " + leaf);
            }
            try (PreparedStatement ps = c.prepareStatement(Queries.get("slice_free"))) {
                ps.setInt(1, d.id());
                ps.setInt(2, shard);
                ps.setInt(3, slot);
                ps.executeUpdate();
            }
            c.commit();
            listener.retired(d, shard, first);
            LOG.debug("{} - slice from {} of shard {} retired (slot {})", d.name(), first, shard, slot);
            return true;
        } catch (SQLException e) {
            c.rollback();
            if (!"55P03".equals(e.getSQLState())) {
                throw e;
            }
            c.setAutoCommit(true);
            String who = lockHolders(c, leaf);
            listener.blocked(leaf + " held by " + who);
            LOG.warn("{} - cannot truncate {} yet: held by {}", d.name(), leaf, who);
            return false;
        } finally {
            c.setAutoCommit(true);
        }
    }

    private static String lockHolders(Connection c, String leaf) throws SQLException {
        StringBuilder sb = new StringBuilder();
        try (PreparedStatement ps = c.prepareStatement(Queries.get("slice_select_lock_holders"))) {
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

    private void prepareSpares(Connection c, DestinationInfo d) throws SQLException {
        List<int[]> shortOf = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(Queries.get("slice_count_free"))) {
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
                try (Statement st = c.createStatement();
                        PreparedStatement ps = c.prepareStatement(Queries.get("slice_add"))) {
                    st.execute("set local lock_timeout = '100ms'");
                    ps.setInt(1, d.id());
                    ps.setInt(2, s[0]);
                    ps.execute();
                    c.commit();
                } catch (SQLException e) {
                    c.rollback();
                    if (!"55P03".equals(e.getSQLState())) {
                        throw e;
                    }
                    return; // busy: next round
                } finally {
                    c.setAutoCommit(true);
                }
            }
        }
    }
}
