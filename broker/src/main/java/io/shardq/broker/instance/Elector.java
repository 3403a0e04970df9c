package io.shardq.broker.instance;

import io.shardq.broker.internal.BackgroundService;
import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.Query;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Elects the one instance that runs maintenance (slice retirement, spare slots), after River's
 * {@code elector}: a leader row with a lease, {@code shardq.leader}.
 *
 * <p>Protocol: every {@code interval} each instance runs {@code leader_attempt_elect}, one
 * upsert that takes the row when it is free or expired and extends it when it is already ours;
 * a returned row means "you lead until now() + ttl". Times are the database's {@code now()},
 * so instances' clocks do not matter. The leader believes it leads only until its own
 * {@code nanoTime} deadline (statement start + ttl), so a leader cut off from the database
 * steps down by itself before another can be elected. On {@link #stop()} the leader deletes
 * the row and sends NOTIFY {@code shardq_leader}, so a follower takes over at once; a leader
 * that dies without resigning is replaced after the ttl.
 *
 * <p>Leadership is an efficiency device, not a safety one: retirement locks each slice row
 * ({@code FOR UPDATE SKIP LOCKED}) and slot DDL is serialised per shard by PostgreSQL, so two
 * instances that both believe they lead for a moment do no harm.
 *
 * <p>Threading: one thread, {@code shardq-<instance>-elector-1}; {@link #isLeader()} is read
 * from any thread.
 */
public final class Elector extends BackgroundService {
    private static final Logger LOG = LoggerFactory.getLogger(Elector.class);
    public static final String CHANNEL = "shardq_leader";

    /** Told when this instance gains or loses leadership, on the elector's thread. */
    public interface Listener {
        void leadershipChanged(boolean leader);
    }

    private final DataSource dataSource;
    private final long instanceId;
    private final long intervalMillis;
    private final long ttlMillis;
    private final LongSupplier nanoClock;
    private final Listener listener;
    private final AtomicLong terms = new AtomicLong();
    private volatile long leaderUntilNanos;
    private volatile boolean leader;

    public Elector(
            DataSource dataSource,
            long instanceId,
            long intervalMillis,
            long ttlMillis,
            LongSupplier nanoClock,
            Listener listener,
            String threadName) {
        super(threadName);
        if (ttlMillis <= 2 * intervalMillis) {
            throw new IllegalArgumentException("leader ttl " + ttlMillis + " ms is invalid: expected more than twice"
                    + " the election interval (" + intervalMillis + " ms)");
        }
        this.dataSource = dataSource;
        this.instanceId = instanceId;
        this.intervalMillis = intervalMillis;
        this.ttlMillis = ttlMillis;
        this.nanoClock = nanoClock;
        this.listener = listener;
    }

    /** True while this instance holds an unexpired leadership term. */
    public boolean isLeader() {
        return leader && nanoClock.getAsLong() - leaderUntilNanos < 0;
    }

    /** How many times this instance has become leader. */
    public long terms() {
        return terms.get();
    }

    /** A NOTIFY on {@link #CHANNEL}: the leader resigned, try now. */
    public void onResigned(String payload) {
        if (!leader) {
            trigger();
        }
    }

    @Override
    protected long runOnce() {
        long started = nanoClock.getAsLong();
        boolean elected;
        try {
            elected = attemptElect();
        } catch (SQLException | RuntimeException e) {
            LOG.warn("{} - leader election failed: {}", instanceId, e.getMessage());
            elected = false;
        }
        if (elected) {
            // the term counts from before the statement: never longer than the database grants
            leaderUntilNanos = started + TimeUnit.MILLISECONDS.toNanos(ttlMillis - intervalMillis);
        }
        setLeader(elected);
        return intervalMillis;
    }

    private boolean attemptElect() throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.LEADER_ATTEMPT_ELECT))) {
            ps.setLong(1, instanceId);
            ps.setDouble(2, ttlMillis / 1000.0);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    private void setLeader(boolean now) {
        if (now == leader) {
            return;
        }
        leader = now;
        if (now) {
            terms.incrementAndGet();
            LOG.info("{} - elected maintenance leader", instanceId);
        } else {
            LOG.info("{} - no longer the maintenance leader", instanceId);
        }
        listener.leadershipChanged(now);
    }

    /** Gives the leadership back so that a follower takes over without waiting for the ttl. */
    @Override
    protected void afterStop() {
        boolean was = leader;
        leader = false;
        if (was) {
            listener.leadershipChanged(false);
        }
        // also when not leading: a term granted by a statement whose answer was lost is ours
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.LEADER_RESIGN))) {
            ps.setLong(1, instanceId);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    LOG.info("{} - resigned as maintenance leader", instanceId);
                }
            }
        } catch (SQLException | RuntimeException e) {
            LOG.warn(
                    "{} - could not resign as leader (another takes over after the ttl): {}",
                    instanceId,
                    e.getMessage());
        }
    }
}
