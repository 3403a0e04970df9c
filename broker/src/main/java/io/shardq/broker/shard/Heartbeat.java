package io.shardq.broker.shard;

import io.shardq.broker.internal.BackgroundService;
import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.Query;
import io.shardq.broker.internal.SqlErrors;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The instance's heartbeat service: marks the instance alive, reads the live instances (those
 * whose heartbeat is recent and whose session lock is held: {@code shardq.live_instances}),
 * expires the leases of instances that died with their connections, renews this instance's
 * dequeue leases, then hands the fleet's requests to the {@link LeaseBalancer}, whose thread also lets each
 * destination's {@link EnqueueOwnership} follow the fleet (both may wait for row locks; renewal
 * must not). Nothing else runs on
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
    private volatile LeaseBalancer balancer;
    private volatile int alive = 1;
    /** The live instances' ids at the last heartbeat, ascending. */
    private volatile long[] liveIds = new long[0];
    /** Moves whenever the set of live instances changes (enqueue ownership is recomputed then). */
    private volatile long fleetVersion;
    /** By destination id: how many other live instances produce to it. */
    private volatile Map<Integer, Integer> otherProducers = Map.of();

    private long failures;

    public Heartbeat(Engine engine, Collection<DestinationRuntime> runtimes, String threadName) {
        super(threadName);
        this.engine = engine;
        this.runtimes = runtimes;
    }

    /** The balancer told after every beat who asks for shards (set before start). */
    public Heartbeat balancer(LeaseBalancer balancer) {
        this.balancer = balancer;
        return this;
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

    /** A number that changes whenever the set of live instances does (0 before the first beat). */
    public long fleetVersion() {
        return fleetVersion;
    }

    /** Other live instances that produce to destination {@code id}, at the last heartbeat. */
    public int otherProducers(int id) {
        return otherProducers.getOrDefault(id, 0);
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
        Map<Integer, Set<Long>> askers = new HashMap<>();
        try (Connection c = engine.dataSource().getConnection()) {
            Object[] hungry = runtimes.stream()
                    .filter(rt -> rt.subscriptions().stream().anyMatch(sub -> sub.wantsMore))
                    .map(rt -> rt.info().id())
                    .toArray();
            Object[] produces = runtimes.stream()
                    .filter(DestinationRuntime::producing)
                    .map(rt -> rt.info().id())
                    .toArray();
            try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.INSTANCE_HEARTBEAT))) {
                ps.setArray(1, c.createArrayOf("integer", hungry));
                ps.setArray(2, c.createArrayOf("integer", produces));
                ps.setLong(3, me);
                ps.executeUpdate();
            }
            List<Long> ids = new ArrayList<>();
            Map<Integer, Integer> producers = new HashMap<>();
            try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.INSTANCE_SELECT_LIVE))) {
                ps.setDouble(1, ttl);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        long id = rs.getLong(1);
                        ids.add(id);
                        if (id == me) {
                            continue;
                        }
                        for (Integer d : (Integer[]) rs.getArray(2).getArray()) {
                            askers.computeIfAbsent(d, k -> new HashSet<>()).add(id);
                        }
                        for (Integer d : (Integer[]) rs.getArray(3).getArray()) {
                            producers.merge(d, 1, Integer::sum);
                        }
                    }
                }
            }
            if (!ids.contains(me)) {
                ids.add(me); // our own row may look dead for a moment (the LISTEN connection reconnecting)
            }
            long[] live = ids.stream().mapToLong(Long::longValue).sorted().toArray();
            if (!java.util.Arrays.equals(live, liveIds)) {
                liveIds = live;
                fleetVersion++;
            }
            alive = live.length;
            otherProducers = producers;
            // the leases of instances whose connections closed (killed) expire now, not a TTL later
            try (PreparedStatement ps =
                    c.prepareStatement(Queries.get(Query.CURSOR_LEASE_EXPIRE_DEAD, engine.onCitus()))) {
                ps.setLong(1, me);
                ps.setDouble(2, ttl);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        LOG.info(
                                "{} - instance {} is gone (its session lock was released): its lease of shard {} of"
                                        + " subscription {} expired",
                                me,
                                rs.getLong(1),
                                rs.getInt(3),
                                rs.getLong(2));
                    }
                }
            }
            Map<Long, Set<Integer>> renewed = new HashMap<>();
            // the database extends the leases to at least renewStart + ttl: so may the local lease clock
            long renewStart = System.nanoTime();
            Map<Long, Set<Integer>> extended = new HashMap<>();
            try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.CURSOR_LEASE_RENEW, engine.onCitus()))) {
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
            List<long[]> held = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.CURSOR_SELECT_HELD))) {
                ps.setLong(1, me);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        renewed.computeIfAbsent(rs.getLong(1), k -> new HashSet<>())
                                .add(rs.getInt(2));
                        held.add(new long[] {rs.getLong(1), rs.getInt(2), rs.getLong(3)});
                    }
                }
            }
            Map<Long, Subscription> byId = new HashMap<>();
            for (DestinationRuntime rt : runtimes) {
                for (Subscription subscription : rt.subscriptions()) {
                    subscription.keepOnlyLeases(renewed.getOrDefault(subscription.id, Set.of()), heldReadNanos);
                    byId.put(subscription.id, subscription);
                }
            }
            releaseOrphans(c, held, byId);
        }
        LeaseBalancer b = balancer;
        if (b != null) {
            b.askers(askers);
        }
    }

    /** Rows held in the database but not here at the last beat: (subscription, shard, lease_seq). */
    private Set<List<Long>> orphansSeen = Set.of();

    /**
     * Gives back the leases the database says are ours and this instance does not hold: seen so at
     * two beats in a row with the same {@code lease_seq}, and no acquisition of the subscription in
     * flight (one that committed but has not recorded the lease here yet). Without this the renewal
     * above would keep such a row, and the backlog behind it, for ever (see docs/design/dequeue.md,
     * "Dequeue affinity and leases").
     */
    private void releaseOrphans(Connection c, List<long[]> held, Map<Long, Subscription> byId) throws SQLException {
        Set<List<Long>> seen = new HashSet<>();
        for (long[] row : held) {
            Subscription sub = byId.get(row[0]);
            int shard = (int) row[1];
            if (sub != null) {
                ShardState[] all = sub.shards();
                if ((shard < all.length && all[shard].leased) || sub.acquiring.get() > 0) {
                    continue;
                }
            }
            seen.add(List.of(row[0], row[1], row[2]));
        }
        for (List<Long> orphan : seen) {
            if (!orphansSeen.contains(orphan)) {
                continue; // the first sighting: an acquisition may not have recorded it here yet
            }
            try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.CURSOR_LEASE_RELEASE_ORPHAN))) {
                ps.setLong(1, orphan.get(0));
                ps.setInt(2, orphan.get(1).intValue());
                ps.setLong(3, engine.instanceId());
                ps.setLong(4, orphan.get(2));
                if (ps.executeUpdate() > 0) {
                    LOG.info(
                            "{} - gave back the lease of shard {} of subscription {}: held in the database but not"
                                    + " here (a release that was skipped or failed)",
                            engine.instanceId(),
                            orphan.get(1),
                            orphan.get(0));
                }
            }
        }
        orphansSeen = seen;
    }

    /** Gives back every lease and marks the instance stopped. */
    public void deregister() {
        long me = engine.instanceId();
        try (Connection c = engine.dataSource().getConnection()) {
            try (PreparedStatement ps =
                    c.prepareStatement(Queries.get(Query.CURSOR_LEASE_RELEASE_ALL, engine.onCitus()))) {
                ps.setLong(1, me);
                Queries.executeCount(ps);
            }
            try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.SHARD_RELEASE_OWNER, engine.onCitus()))) {
                ps.setLong(1, me);
                Queries.executeCount(ps);
            }
            try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.INSTANCE_STOP))) {
                ps.setLong(1, me);
                ps.executeUpdate();
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "deregistering instance " + me);
        }
    }
}
