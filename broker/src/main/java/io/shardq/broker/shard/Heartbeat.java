package io.shardq.broker.shard;

import io.shardq.broker.internal.BackgroundService;
import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.SqlErrors;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The instance's heartbeat service: marks the instance alive, counts the live instances,
 * renews this instance's dequeue leases and gives back those it should. Nothing else runs on
 * its thread ({@code shardq-<instance>-heartbeat-1}): slice retirement and slot DDL, which can
 * wait on locks, run on the maintenance leader's own thread, and catalog changes arrive by
 * NOTIFY, so a lease is never lost because some other duty was slow. Each round is
 * independent, so a failed round (the database briefly gone) is logged and the next one tries
 * again.
 */
public final class Heartbeat extends BackgroundService {
    private static final Logger LOG = LoggerFactory.getLogger(Heartbeat.class);

    private final Engine engine;
    private final Collection<DestinationRuntime> runtimes;
    private volatile int alive = 1;
    private long failures;

    public Heartbeat(Engine engine, Collection<DestinationRuntime> runtimes, String threadName) {
        super(threadName);
        this.engine = engine;
        this.runtimes = runtimes;
    }

    @Override
    protected long runOnce() {
        beat();
        return engine.settings().heartbeatMillis();
    }

    /** Live instances seen at the last heartbeat, this one included. */
    public int aliveInstances() {
        return alive;
    }

    public void beat() {
        try {
            renew();
            failures = 0;
        } catch (SQLException | RuntimeException e) {
            if (failures++ % 30 == 0) {
                LOG.warn("{} - heartbeat failed: {}", engine.instanceId(), e.getMessage());
            }
        }
    }

    private void renew() throws SQLException {
        long me = engine.instanceId();
        double ttl = engine.settings().leaseTtlMillis() / 1000.0;
        try (Connection c = engine.dataSource().getConnection()) {
            Object[] hungry = runtimes.stream()
                    .filter(rt -> rt.subscriptions().stream().anyMatch(Subscription::hungry))
                    .map(rt -> rt.info().id())
                    .toArray();
            try (PreparedStatement ps = c.prepareStatement(Queries.get("instance_heartbeat"))) {
                ps.setArray(1, c.createArrayOf("integer", hungry));
                ps.setLong(2, me);
                ps.executeUpdate();
            }
            try (PreparedStatement ps = c.prepareStatement(Queries.get("instance_count_alive"))) {
                ps.setDouble(1, ttl);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    alive = Math.max(1, rs.getInt(1));
                }
            }
            Map<Long, Set<Integer>> renewed = new HashMap<>();
            // the database extends the leases to at least renewStart + ttl: so may the local lease clock
            long renewStart = System.nanoTime();
            Map<Long, Set<Integer>> extended = new HashMap<>();
            try (PreparedStatement ps = c.prepareStatement(Queries.get("cursor_lease_renew"))) {
                ps.setDouble(1, ttl);
                ps.setLong(2, me);
                // renewed once less than this is left: half the TTL, but never less than two beats
                ps.setDouble(3, Math.max(ttl / 2, 2 * engine.settings().heartbeatMillis() / 1000.0));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        extended.computeIfAbsent(rs.getLong(1), k -> new HashSet<>())
                                .add(rs.getInt(2));
                    }
                }
            }
            long ttlNanos = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(
                    engine.settings().leaseTtlMillis());
            for (DestinationRuntime rt : runtimes) {
                for (Subscription sub : rt.subscriptions()) {
                    sub.leasesExtended(extended.getOrDefault(sub.id, Set.of()), renewStart + ttlNanos);
                }
            }
            long heldReadNanos = System.nanoTime(); // leases taken after this are not in the read
            try (PreparedStatement ps = c.prepareStatement(Queries.get("cursor_select_held"))) {
                ps.setLong(1, me);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        renewed.computeIfAbsent(rs.getLong(1), k -> new HashSet<>())
                                .add(rs.getInt(2));
                    }
                }
            }
            Map<Integer, Integer> hungryOthers = new HashMap<>();
            try (PreparedStatement ps = c.prepareStatement(Queries.get("instance_select_hungry"))) {
                ps.setLong(1, me);
                ps.setDouble(2, ttl);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        hungryOthers.put(rs.getInt(1), rs.getInt(2));
                    }
                }
            }
            for (DestinationRuntime rt : runtimes) {
                for (Subscription subscription : rt.subscriptions()) {
                    long sub = subscription.id;
                    subscription.keepOnlyLeases(renewed.getOrDefault(sub, Set.of()), heldReadNanos);
                    List<Integer> release = subscription.leasesToRelease(
                            hungryOthers.getOrDefault(rt.info().id(), 0));
                    if (!release.isEmpty()) {
                        try (PreparedStatement ps = c.prepareStatement(Queries.get("cursor_lease_release"))) {
                            ps.setLong(1, sub);
                            ps.setArray(2, c.createArrayOf("integer", release.toArray()));
                            ps.setLong(3, me);
                            ps.executeUpdate();
                        }
                        LOG.debug(
                                "{} - released leases {} of {} subscription {}",
                                me,
                                release,
                                rt.info().name(),
                                sub);
                    }
                }
            }
        }
    }

    /** Gives back every lease and marks the instance stopped. */
    public void deregister() {
        long me = engine.instanceId();
        try (Connection c = engine.dataSource().getConnection()) {
            try (PreparedStatement ps = c.prepareStatement(Queries.get("cursor_lease_release_all"))) {
                ps.setLong(1, me);
                ps.executeUpdate();
            }
            try (PreparedStatement ps = c.prepareStatement(Queries.get("shard_release_owner"))) {
                ps.setLong(1, me);
                ps.executeUpdate();
            }
            try (PreparedStatement ps = c.prepareStatement(Queries.get("instance_stop"))) {
                ps.setLong(1, me);
                ps.executeUpdate();
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "deregistering instance " + me);
        }
    }
}
