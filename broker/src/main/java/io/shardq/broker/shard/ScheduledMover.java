package io.shardq.broker.shard;

import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.internal.BackgroundService;
import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.Query;
import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.store.HeaderCodec;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves messages sent with a delivery delay from {@code shardq.scheduled_message} into a shard of
 * their destination when they are due, on the maintenance leader only. Per destination, one
 * transaction of a TRANSACTED session: the messages are sent as any producer sends them (pinned
 * shard, topic bitmaps, group commit), and the same transaction deletes their scheduled rows,
 * checking that it deleted all of them (another instance that briefly believed it led may have
 * moved some: then this transaction rolls back, and nothing is moved twice).
 *
 * <p><b>Keyset.</b> It moves in {@code (deliver_at, id)} order and deletes what it moved, so the
 * low end of the index {@code scheduled_message_due} fills with dead entries faster than vacuum
 * removes them, and a query starting there reads them all. So it remembers a position and reads
 * only past it: the key of the last row read when a round read a full batch, else the round's
 * clock reading (it read every due row it could see). A row behind the position that is not moved yet
 * can only be one that committed after a round had passed its due time (a sending transaction that
 * took longer than its own delay; a destination that refused the move): a <b>full scan</b> from
 * the start finds those. It runs every {@code shardq.schedule.poll-ms}, on gaining the lead, and at
 * once when a commit on this instance wrote a message that was already due ({@link
 * #scheduled(long)}). Why that suffices: a round reads the clock, then takes its snapshot; a row
 * not in that snapshot committed later, so if it was not due when it committed it is due after
 * that reading, hence after the position the round leaves.
 *
 * <p><b>Waking.</b> It wakes at the next due time after its position, at most {@code poll-ms}
 * later; a round that read a full batch runs again at once, one that moved messages after a
 * millisecond (without asking for the next due time: at a high rate the next ones are due
 * already). A commit on this instance wakes it only when its earliest due time is before the
 * planned wake-up ({@link #scheduled(long)}). Threading: the rounds and the position belong to
 * the service's thread; {@link #scheduled(long)} is called by committing threads and touches only
 * the volatile wake-up time, the committed due time and the rescan flag.
 */
public final class ScheduledMover extends BackgroundService {
    private static final Logger LOG = LoggerFactory.getLogger(ScheduledMover.class);
    /** Scheduled messages moved per round (per round, over all destinations). */
    static final int BATCH = 1000;
    /** A position before every row (ids start at 1). */
    private static final long BEFORE_ALL = Long.MIN_VALUE;

    private final DataSource dataSource;
    private final Supplier<BrokerSession> sessions;
    private final IntFunction<Optional<DestinationInfo>> destinations;
    private final BooleanSupplier leader;
    private final Clock clock;
    private final LongSupplier nanoClock;
    private final long pollMillis;

    /** A full scan is needed before the next keyset round (a commit wrote an already due message). */
    private final AtomicBoolean rescan = new AtomicBoolean(true);
    /**
     * When the next round is planned (clock millis); MIN_VALUE while a round runs and when not
     * leading: a commit then wakes nothing (every commit during a long round waking the next one
     * made the rounds run back to back while producers scheduled), and leaves its due time in
     * {@link #committedDue} instead, which the round reads after planning its wake-up.
     */
    private volatile long wakeAt = Long.MAX_VALUE;
    /** The earliest due time committed on this instance since the current round began. */
    private final AtomicLong committedDue = new AtomicLong(Long.MAX_VALUE);

    // the service's thread only
    private long positionDeliverAt = BEFORE_ALL;
    private long positionId;
    private long lastFullScanNanos;

    /** A scheduled row read for moving. */
    private record Due(long id, int destinationId, BrokerMessage message) {}

    /** What a round did: rows read (a full batch: more are due), and messages moved. */
    public record Round(int read, int moved, boolean fullScan) {}

    public ScheduledMover(
            DataSource dataSource,
            Supplier<BrokerSession> sessions,
            IntFunction<Optional<DestinationInfo>> destinations,
            BooleanSupplier leader,
            Clock clock,
            LongSupplier nanoClock,
            long pollMillis,
            String threadName) {
        super(threadName);
        this.dataSource = dataSource;
        this.sessions = sessions;
        this.destinations = destinations;
        this.leader = leader;
        this.clock = clock;
        this.nanoClock = nanoClock;
        this.pollMillis = Math.max(1, pollMillis);
        this.lastFullScanNanos = nanoClock.getAsLong();
    }

    /**
     * Told after a commit on this instance wrote scheduled messages, the earliest due at {@code
     * earliestDeliverAt}: wakes the mover if that is before its planned wake-up, and asks for a full
     * scan if it is due already (the keyset may have passed it).
     */
    public void scheduled(long earliestDeliverAt) {
        if (earliestDeliverAt <= clock.millis()) {
            rescan.set(true);
            trigger();
            return;
        }
        // published before reading wakeAt, as the round publishes wakeAt before reading this:
        // either the round sees this due time, or this sees the round's plan
        committedDue.accumulateAndGet(earliestDeliverAt, Math::min);
        if (earliestDeliverAt < wakeAt) {
            trigger();
        }
    }

    /** Told by the elector: on gaining the lead, a full scan at once (commits did not wake a follower). */
    public void leadershipChanged(boolean nowLeader) {
        if (nowLeader) {
            rescan.set(true);
            trigger();
        }
    }

    @Override
    protected long runOnce() throws SQLException {
        if (!leader.getAsBoolean()) {
            wakeAt = Long.MIN_VALUE; // commits here need not wake it
            rescan.set(true); // on gaining the lead: the position may be stale
            return pollMillis;
        }
        wakeAt = Long.MIN_VALUE;
        committedDue.set(Long.MAX_VALUE); // before the round's snapshots: a commit before this is in them
        Round r = round();
        if (r.read() >= BATCH) {
            return 0;
        }
        long untilFullScan = Math.max(1, pollMillis - (nanoClock.getAsLong() - lastFullScanNanos) / 1_000_000);
        long wait;
        long now = clock.millis();
        if (r.moved() > 0) {
            wait = 1;
        } else {
            Long next = nextDue(now + untilFullScan);
            wait = next == null ? untilFullScan : Math.max(1, Math.min(untilFullScan, next - now));
        }
        wakeAt = now + wait;
        long due = committedDue.get();
        if (due < now + wait) { // committed during the round, perhaps after its snapshots
            wait = Math.max(1, due - now);
            wakeAt = now + wait;
        }
        return wait;
    }

    /**
     * Moves what is due now, past the position, or from the start when a full scan is due. Tests
     * call it directly.
     */
    public Round round() throws SQLException {
        long nanos = nanoClock.getAsLong();
        boolean full = rescan.getAndSet(false) || nanos - lastFullScanNanos >= pollMillis * 1_000_000;
        if (full) {
            lastFullScanNanos = nanos;
        }
        long now = clock.millis(); // read before the select's snapshot (see the class comment)
        long afterDeliverAt = full ? BEFORE_ALL : positionDeliverAt;
        long afterId = full ? 0 : positionId;
        Map<Integer, List<Due>> byDestination = new LinkedHashMap<>();
        int read = 0;
        long lastDeliverAt = BEFORE_ALL;
        long lastId = 0;
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.SCHEDULED_SELECT_DUE))) {
            ps.setLong(1, now);
            ps.setLong(2, afterDeliverAt);
            ps.setLong(3, afterId);
            ps.setInt(4, BATCH);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    BrokerMessage m = HeaderCodec.decode(
                            rs.getBytes(6),
                            rs.getString(8),
                            rs.getBytes(7),
                            rs.getShort(5),
                            rs.getLong(4),
                            rs.getLong(3));
                    byDestination
                            .computeIfAbsent(rs.getInt(2), d -> new ArrayList<>())
                            .add(new Due(rs.getLong(1), rs.getInt(2), m));
                    lastDeliverAt = rs.getLong(3);
                    lastId = rs.getLong(1);
                    read++;
                }
            }
        }
        if (read < BATCH) {
            // every due row visible to the select was read: none is left at or before now
            advance(false, now, Long.MAX_VALUE);
        } else {
            advance(full, lastDeliverAt, lastId);
        }
        int moved = 0;
        for (Map.Entry<Integer, List<Due>> e : byDestination.entrySet()) {
            try {
                moved += move(e.getKey(), e.getValue());
            } catch (RuntimeException ex) {
                // one destination (enqueue stopped, dropped meanwhile) must not hold back the
                // others; its rows are behind the position now, and the next full scan retries them
                LOG.warn(
                        "{} - could not move {} due scheduled messages of destination {} (retried): {}",
                        threadName(),
                        e.getValue().size(),
                        e.getKey(),
                        ex.getMessage());
            }
        }
        return new Round(read, moved, full);
    }

    /**
     * Moves the position forward, or back when a full scan read a full batch: it may have stopped
     * before the position (rows behind it that were refused or committed late), and the rows
     * between must be read again. A round that read less than a batch saw every due row, so the
     * position goes to its clock reading: the next due time is then found without walking the
     * dead entries of the rows just moved.
     */
    private void advance(boolean mayGoBack, long deliverAt, long id) {
        boolean after = deliverAt > positionDeliverAt || (deliverAt == positionDeliverAt && id > positionId);
        if (after || mayGoBack) {
            positionDeliverAt = deliverAt;
            positionId = id;
        }
    }

    private int move(int destinationId, List<Due> due) {
        Optional<DestinationInfo> d = destinations.apply(destinationId);
        if (d.isEmpty()) {
            return 0; // dropped: its scheduled rows went with it (ON DELETE CASCADE)
        }
        long[] ids = new long[due.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = due.get(i).id();
        }
        try (BrokerSession s = sessions.get()) {
            for (Due m : due) {
                s.send(d.get().name(), m.message());
            }
            s.beforeCommit(c -> {
                try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.SCHEDULED_DELETE))) {
                    ps.setArray(1, c.createArrayOf("bigint", box(ids)));
                    int deleted = ps.executeUpdate();
                    if (deleted != ids.length) {
                        throw new ShardQException(
                                ErrorKind.ROLLED_BACK,
                                "another instance moved " + (ids.length - deleted) + " of these scheduled messages");
                    }
                }
            });
            s.commit();
        }
        return due.size();
    }

    /** The next due time past the position up to {@code bound} (rows behind it are the full scan's). */
    private Long nextDue(long bound) throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.SCHEDULED_NEXT_DUE))) {
            ps.setLong(1, positionDeliverAt);
            ps.setLong(2, positionId);
            ps.setLong(3, bound);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : null;
            }
        }
    }

    private static Long[] box(long[] ids) {
        Long[] out = new Long[ids.length];
        for (int i = 0; i < ids.length; i++) {
            out[i] = ids[i];
        }
        return out;
    }
}
