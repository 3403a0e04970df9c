package io.shardq.broker.slice;

import io.shardq.broker.catalog.Catalog;
import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.internal.BackgroundService;
import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.Query;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs slice retirement and spare-slot preparation ({@link SliceRetirer}) on the one instance
 * that leads ({@code Elector}), when there is something to do rather than every second for
 * every destination.
 *
 * <p>Triggers: a slice can be retired only after the cursors of its shard passed its last
 * sequence number, so the consumer commit path calls {@link #sliceCrossed} when a committed
 * cursor moves into a new slice (a division, no I/O). On the leader that marks the destination
 * for the next round. On a follower it is recorded too, and the follower's maintenance thread
 * sends the recorded crossings to the leader as NOTIFY {@code shardq_maintenance}, several in
 * one statement, at most one per (destination, shard) per round, never on the commit path.
 * A round over a destination that could not take a lock in time (a long transaction holds a
 * slot) is repeated every {@code intervalMillis} until it succeeds. As the fallback for missed
 * notifications and for spare slots used up by producers while consumers lag, the leader also
 * scans every destination when it is elected and every {@code scanMillis} after that.
 *
 * <p>Threading: one thread, {@code shardq-<instance>-maintenance-1}, on every instance (it
 * sends the notifications of a follower); only the leader's does retirement and DDL. The
 * commit path and the Waker only add to concurrent sets and {@link #trigger()}.
 */
public final class SliceMaintainer extends BackgroundService {
    private static final Logger LOG = LoggerFactory.getLogger(SliceMaintainer.class);
    public static final String CHANNEL = "shardq_maintenance";

    private final DataSource dataSource;
    private final Catalog catalog;
    private final SliceRetirer retirer;
    private final BooleanSupplier leader;
    private final long intervalMillis;
    private final long scanNanos;
    private final LongSupplier nanoClock;
    private final Set<Integer> dirty = ConcurrentHashMap.newKeySet();
    private final Set<String> crossings = ConcurrentHashMap.newKeySet();
    private volatile boolean scanAll;
    private long nextScanNanos;
    /** Topics' subscription upkeep (dead instances' leftovers, the expiry policy): how often, next when. */
    private final long upkeepNanos;

    private long nextUpkeepNanos;
    /** A shrink was under way at the last step: step again after the interval, not the upkeep's. */
    private boolean shrinking = true;
    /** Instances without a heartbeat for this long are dead (the lease TTL, whole seconds). */
    private volatile int aliveSeconds = 30;

    public SliceMaintainer(
            DataSource dataSource,
            Catalog catalog,
            SliceRetirer retirer,
            BooleanSupplier leader,
            long intervalMillis,
            long scanMillis,
            LongSupplier nanoClock,
            String threadName) {
        super(threadName);
        this.dataSource = dataSource;
        this.catalog = catalog;
        this.retirer = retirer;
        this.leader = leader;
        this.intervalMillis = intervalMillis;
        this.scanNanos = TimeUnit.MILLISECONDS.toNanos(scanMillis);
        this.nanoClock = nanoClock;
        this.upkeepNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(1000, 5 * intervalMillis));
    }

    /** How long an instance without a heartbeat still counts as alive (the lease TTL). */
    public SliceMaintainer aliveSeconds(int seconds) {
        this.aliveSeconds = Math.max(1, seconds);
        return this;
    }

    /**
     * A committed cursor of {@code shard} moved from {@code from} to {@code to}: if that passed
     * the end of a slice, retirement has work. Cheap: no I/O, callable from the commit path.
     * Slices are aligned to multiples of the slice size unless the size was altered; a crossing
     * missed after such an alter is caught by the leader's fallback scan.
     */
    public void cursorCommitted(DestinationInfo d, int shard, long from, long to) {
        int size = d.sliceSize();
        if (to > from && to / size != from / size) {
            sliceCrossed(d.id(), shard);
        }
    }

    /** A cursor of {@code shard} passed the last message of a slice. */
    public void sliceCrossed(int destinationId, int shard) {
        if (leader.getAsBoolean()) {
            dirty.add(destinationId);
        } else {
            crossings.add(destinationId + "/" + shard);
        }
        trigger();
    }

    /** A follower's NOTIFY on {@link #CHANNEL}: {@code <destination>/<shard>}. */
    public void onNotify(String payload) {
        if (!leader.getAsBoolean()) {
            return; // the leader's business; a new leader scans everything anyway
        }
        int slash = payload.indexOf('/');
        try {
            dirty.add(Integer.parseInt(slash < 0 ? payload : payload.substring(0, slash)));
            trigger();
        } catch (NumberFormatException e) {
            LOG.debug("ignoring malformed maintenance notification {}", payload);
        }
    }

    /** From the elector: a new leader scans every destination once. */
    public void leadershipChanged(boolean nowLeader) {
        if (nowLeader) {
            scanAll = true;
            trigger();
        }
    }

    @Override
    protected long runOnce() throws SQLException {
        if (!leader.getAsBoolean()) {
            dirty.clear();
            sendCrossings();
            return TimeUnit.NANOSECONDS.toMillis(scanNanos); // a crossing or an election triggers us
        }
        crossings.clear(); // ours: the scan or the dirty set covers them
        long now = nanoClock.getAsLong();
        if (now - nextUpkeepNanos >= 0) {
            nextUpkeepNanos = now + upkeepNanos;
            topicUpkeep();
            shrinking = true; // a shrink begun since is found at the upkeep's pace
        }
        if (shrinking) {
            shrinking = shrinkSteps();
        }
        List<Integer> ids = new ArrayList<>();
        boolean scan = scanAll || now - nextScanNanos >= 0;
        if (scan) {
            scanAll = false;
            nextScanNanos = now + scanNanos;
            dirty.clear();
            catalog.all().forEach(d -> ids.add(d.id()));
        } else {
            for (Integer id : List.copyOf(dirty)) {
                dirty.remove(id);
                ids.add(id);
            }
        }
        for (int id : ids) {
            if (isStopping() || !leader.getAsBoolean()) {
                break;
            }
            maintain(id);
        }
        if (!dirty.isEmpty()) {
            return intervalMillis;
        }
        if (shrinking) {
            return intervalMillis;
        }
        long next = Math.min(nextScanNanos, nextUpkeepNanos);
        return Math.max(1, TimeUnit.NANOSECONDS.toMillis(next - nanoClock.getAsLong()));
    }

    /**
     * On the leader, every few heartbeats: what dead instances left of topics (their consumer
     * counts and non-durable subscriptions, {@code shardq.reap_subscriptions}), and the expiry
     * policy of topics that have one ({@code shardq.expire_subscriptions}): a cursor it moves is
     * logged, counted on its subscription, and its slices go to retirement.
     */
    private void topicUpkeep() throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.SUBSCRIPTION_REAP))) {
                ps.setInt(1, aliveSeconds);
                try (java.sql.ResultSet rs = ps.executeQuery()) {
                    if (rs.next() && rs.getInt(1) > 0) {
                        LOG.info("deleted {} non-durable subscription(s) left by dead instances", rs.getInt(1));
                    }
                }
            }
            try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.SUBSCRIPTION_EXPIRE_ALL));
                    java.sql.ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    int topic = rs.getInt(1);
                    LOG.warn(
                            "the expiry policy of topic {} passed subscription \"{}\"{} over sequence numbers {} to {} of"
                                    + " shard {}",
                            rs.getString(2),
                            rs.getString(3),
                            rs.getString(4) == null ? "" : " (client id " + rs.getString(4) + ")",
                            rs.getLong(6) + 1,
                            rs.getLong(7),
                            rs.getInt(5));
                    dirty.add(topic);
                }
            }
        }
    }

    /**
     * On the leader, while a destination shrinks (V015): {@code shardq.shrink_step} lifts its
     * fences once its draining shards are empty and retires the drained ones (their storage
     * dropped, under the maintenance lock timeout: a shard whose lock was not granted is tried
     * again at the next step). Returns true while some shrink is still under way.
     */
    private boolean shrinkSteps() throws SQLException {
        boolean any = false;
        try (Connection c = dataSource.getConnection()) {
            List<Integer> ids = new ArrayList<>();
            List<String> names = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.SHRINK_SELECT_DRAINING));
                    java.sql.ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getInt(1));
                    names.add(rs.getString(2));
                }
            }
            for (int i = 0; i < ids.size() && !isStopping() && leader.getAsBoolean(); i++) {
                any = true;
                try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.SHRINK_STEP))) {
                    ps.setInt(1, ids.get(i));
                    ps.setInt(2, (int) Math.min(Integer.MAX_VALUE, retirer.lockTimeoutMillis()));
                    try (java.sql.ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            String event = rs.getString(1);
                            if (event.equals("lifted")) {
                                LOG.info(
                                        "{}: the draining shards are empty, the fences of its active shards are lifted",
                                        names.get(i));
                            } else if (event.equals("retired")) {
                                LOG.info(
                                        "{}: drained shard {} retired (its storage dropped)",
                                        names.get(i),
                                        rs.getInt(2));
                            } else {
                                LOG.debug("{}: retiring shard {} waits for its lock", names.get(i), rs.getInt(2));
                            }
                        }
                    }
                }
            }
        }
        return any;
    }

    private void maintain(int destinationId) throws SQLException {
        Optional<DestinationInfo> d = catalog.reloadById(destinationId);
        if (d.isEmpty()) {
            return; // dropped meanwhile
        }
        try {
            SliceRetirer.Round round = retirer.run(d.get());
            if (round.busy()) {
                dirty.add(destinationId); // a lock was held: again next interval
            }
        } catch (SQLException | RuntimeException e) {
            dirty.add(destinationId);
            throw e;
        }
    }

    private void sendCrossings() throws SQLException {
        if (crossings.isEmpty()) {
            return;
        }
        List<String> batch = new ArrayList<>();
        for (String c : List.copyOf(crossings)) {
            crossings.remove(c);
            batch.add(c);
        }
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.MAINTENANCE_NOTIFY_MANY))) {
            ps.setArray(1, c.createArrayOf("text", batch.toArray()));
            ps.execute();
        } catch (SQLException | RuntimeException e) {
            crossings.addAll(batch);
            throw e;
        }
        LOG.debug("sent {} slice crossing(s) to the maintenance leader", batch.size());
    }
}
