package io.shardq.broker.shard;

import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.internal.BackgroundService;
import io.shardq.broker.internal.Queries;
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
import java.util.function.BooleanSupplier;
import java.util.function.IntFunction;
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
 * <p>It wakes every {@code shardq.schedule.poll-ms}, or at the next due time when that is sooner,
 * and at once after this instance scheduled a message ({@link #trigger()}); a round that moved a
 * full batch runs again at once.
 */
public final class ScheduledMover extends BackgroundService {
    private static final Logger LOG = LoggerFactory.getLogger(ScheduledMover.class);
    /** Scheduled messages moved per round (per round, over all destinations). */
    static final int BATCH = 1000;

    private final DataSource dataSource;
    private final Supplier<BrokerSession> sessions;
    private final IntFunction<Optional<DestinationInfo>> destinations;
    private final BooleanSupplier leader;
    private final Clock clock;
    private final long pollMillis;

    /** A scheduled row read for moving. */
    private record Due(long id, int destinationId, BrokerMessage message) {}

    public ScheduledMover(
            DataSource dataSource,
            Supplier<BrokerSession> sessions,
            IntFunction<Optional<DestinationInfo>> destinations,
            BooleanSupplier leader,
            Clock clock,
            long pollMillis,
            String threadName) {
        super(threadName);
        this.dataSource = dataSource;
        this.sessions = sessions;
        this.destinations = destinations;
        this.leader = leader;
        this.clock = clock;
        this.pollMillis = Math.max(1, pollMillis);
    }

    @Override
    protected long runOnce() throws SQLException {
        if (!leader.getAsBoolean()) {
            return pollMillis;
        }
        int moved = round();
        if (moved >= BATCH) {
            return 0;
        }
        Long next = nextDue();
        if (next == null) {
            return pollMillis;
        }
        return Math.max(1, Math.min(pollMillis, next - clock.millis()));
    }

    /** Moves what is due now; returns how many messages were moved. Tests call it directly. */
    public int round() throws SQLException {
        long now = clock.millis();
        Map<Integer, List<Due>> byDestination = new LinkedHashMap<>();
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get("scheduled_select_due"))) {
            ps.setLong(1, now);
            ps.setInt(2, BATCH);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    BrokerMessage m = HeaderCodec.decode(
                            rs.getBytes(6), rs.getBytes(7), rs.getShort(5), rs.getLong(4), rs.getLong(3));
                    byDestination
                            .computeIfAbsent(rs.getInt(2), d -> new ArrayList<>())
                            .add(new Due(rs.getLong(1), rs.getInt(2), m));
                }
            }
        }
        int moved = 0;
        for (Map.Entry<Integer, List<Due>> e : byDestination.entrySet()) {
            try {
                moved += move(e.getKey(), e.getValue());
            } catch (RuntimeException ex) {
                // one destination (enqueue stopped, dropped meanwhile) must not hold back the others
                LOG.warn(
                        "{} - could not move {} due scheduled messages of destination {} (retried): {}",
                        threadName(),
                        e.getValue().size(),
                        e.getKey(),
                        ex.getMessage());
            }
        }
        return moved;
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
                try (PreparedStatement ps = c.prepareStatement(Queries.get("scheduled_delete"))) {
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

    private Long nextDue() throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get("scheduled_next_due"));
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            long v = rs.getLong(1);
            return rs.wasNull() ? null : v;
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
