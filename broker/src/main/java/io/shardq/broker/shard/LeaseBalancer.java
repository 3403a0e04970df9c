package io.shardq.broker.shard;

import io.shardq.broker.internal.BackgroundService;
import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.Query;
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
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lease protocol's balancing side: which (shard, subscription) cursors this instance leases,
 * decided every heartbeat on a thread of its own ({@code shardq-<instance>-leases-1}), never on
 * a consumer's receive path and never on the heartbeat's thread (an acquisition may wait up to a
 * second for a row a prepared transaction holds; renewal must not).
 *
 * <p><b>Invariant (what it keeps true).</b> While a shard has waiting messages and some live
 * instance has an active consumer of the subscription, the shard gets a live holder within one
 * lease TTL plus one heartbeat; within about a heartbeat when its holder died (its session lock,
 * see {@code Waker}, is gone and the heartbeat expires its leases). The leases of a dead or stalled
 * instance all move, not one.
 *
 * <p><b>A round</b>, for every subscription with an active local consumer ({@link
 * Subscription#consumersActive}), from one read of its cursors ({@code cursor_select_balance}):
 *
 * <ol>
 *   <li>The instances that consume it are the live lease holders, the other instances that
 *       advertise they want more shards of the destination ({@code shardq.instance.hungry_for},
 *       written by the heartbeat from {@link Subscription#wantsMore}) and this one; the fair share is
 *       {@code ceil(shards / consumers)}.
 *   <li><b>Take</b> free (never taken, given back or expired) shards: any while below the fair
 *       share; one with a backlog also beyond it when nothing leased here has a backlog (the
 *       instance is idle), or when it was already free with a backlog at the last round (nobody
 *       below its share took it). So a backlog is never stranded while some consumer lives, and an
 *       instance below its share gets the first chance.
 *   <li><b>Ask</b> ({@code wantsMore}): below the fair share while another holds more than it; or
 *       idle while another instance holds two or more shards with a backlog (balance by backlog:
 *       with traffic, one instance must not hold every busy shard while another idles).
 *   <li><b>Give</b>, only while another instance asks: above the fair share, the shards beyond it
 *       (the empty ones first); at or below it, one of two or more shards with a backlog. A given
 *       shard is <i>drained</i> first ({@link ShardState#startDraining}): nothing new is handed out,
 *       the sessions finish what they hold, and the lease row is released when none holds anything
 *       (called off after a lease TTL if a session sits on its prefetch). A given-up shard is not
 *       taken back here within two heartbeats, so the asker gets it.
 * </ol>
 *
 * <p>Subscriptions without an active local consumer give their leases back once idle. Nothing here
 * is needed for correctness: the cursor guards ({@code lease_instance = me} in every consumer
 * statement) keep a moved lease from committing twice; the balancer only decides who serves.
 */
public final class LeaseBalancer extends BackgroundService {
    private static final Logger LOG = LoggerFactory.getLogger(LeaseBalancer.class);

    private final Engine engine;
    private final Collection<DestinationRuntime> runtimes;
    /** By destination id: the other live instances whose consumers want more of it (set by the heartbeat). */
    private volatile Map<Integer, Set<Long>> askers = Map.of();
    /** By subscription id: free shards with a backlog seen at the last round. */
    private final Map<Long, Set<Integer>> freeWithBacklog = new HashMap<>();

    public LeaseBalancer(Engine engine, Collection<DestinationRuntime> runtimes, String threadName) {
        super(threadName);
        this.engine = engine;
        this.runtimes = runtimes;
    }

    /** The heartbeat read who asks for shards of which destination; a round follows at once. */
    void askers(Map<Integer, Set<Long>> byDestination) {
        askers = byDestination;
        trigger();
    }

    @Override
    protected long runOnce() throws Exception {
        for (DestinationRuntime rt : runtimes) {
            try {
                rt.ownership().heartbeat(); // enqueue ownership follows the fleet (EnqueueOwnership)
            } catch (RuntimeException e) {
                LOG.debug(
                        "{} - enqueue ownership of {}: {}",
                        engine.instanceId(),
                        rt.info().name(),
                        e.getMessage());
            }
        }
        balance();
        return engine.settings().heartbeatMillis();
    }

    /** One round (see the class comment); public for tests that drive it. */
    public void balance() throws SQLException {
        long me = engine.instanceId();
        long idle =
                TimeUnit.MILLISECONDS.toNanos(Math.max(2000, engine.settings().leaseTtlMillis() / 2));
        List<Subscription> active = new ArrayList<>();
        try (Connection c = engine.dataSource().getConnection()) {
            for (DestinationRuntime rt : runtimes) {
                for (Subscription sub : rt.subscriptions()) {
                    if (sub.consumersActive(idle)) {
                        active.add(sub);
                    } else {
                        sub.wantsMore = false;
                        release(c, sub, sub.releaseIdle(idle), "no consumer here");
                    }
                }
            }
            if (active.isEmpty()) {
                return;
            }
            Map<Long, List<long[]>> cursors = new HashMap<>();
            try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.CURSOR_SELECT_BALANCE))) {
                ps.setArray(
                        1,
                        c.createArrayOf("bigint", active.stream().map(s -> s.id).toArray()));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        long holder = rs.getLong(5);
                        if (rs.wasNull()) {
                            holder = 0;
                        }
                        cursors.computeIfAbsent(rs.getLong(1), k -> new ArrayList<>())
                                .add(new long[] {rs.getInt(2), rs.getLong(3), rs.getLong(4) - 1, holder});
                    }
                }
            }
            for (Subscription sub : active) {
                balance(c, sub, cursors.getOrDefault(sub.id, List.of()), me);
            }
        }
    }

    private void balance(Connection c, Subscription sub, List<long[]> rows, long me) throws SQLException {
        ShardState[] all = sub.shards();
        Set<Long> asking = askers.getOrDefault(sub.destination.info().id(), Set.of());
        // holder -> shards; holder -> shards with a backlog (other instances)
        Map<Long, Integer> heldBy = new HashMap<>();
        Map<Long, Integer> backlogBy = new HashMap<>();
        List<long[]> free = new ArrayList<>();
        for (long[] r : rows) {
            int shard = (int) r[0];
            if (shard >= all.length) {
                continue;
            }
            long holder = r[3];
            boolean backlog = r[2] > r[1];
            if (holder == 0 || (holder == me && !all[shard].leased)) {
                free.add(r); // ours in the database but not here (forgotten after an unknown outcome): take it again
            } else if (holder != me) {
                heldBy.merge(holder, 1, Integer::sum);
                if (backlog) {
                    backlogBy.merge(holder, 1, Integer::sum);
                }
            }
        }
        Set<Long> consumers = new HashSet<>(heldBy.keySet());
        consumers.addAll(asking);
        consumers.add(me);
        int fair = (int) Math.ceil((double) all.length / consumers.size());
        sub.balancedFair = fair;
        int held = sub.leasedCount();
        boolean idleHere = sub.leasedBacklog() == 0;

        // take
        long recent = sub.recentNanos();
        Set<Integer> seenBefore = freeWithBacklog.getOrDefault(sub.id, Set.of());
        Set<Integer> stillFree = new HashSet<>();
        List<Integer> wanted = new ArrayList<>();
        free.sort((a, b) -> Long.compare(b[2] - b[1], a[2] - a[1])); // backlog first
        for (long[] r : free) {
            int shard = (int) r[0];
            boolean backlog = r[2] > r[1];
            if (all[shard].leased) {
                continue; // our lease clock ran out (a stall): the heartbeat renews it or finds it gone
            }
            boolean given = all[shard].releasedWithin(recent);
            if (!given && (held < fair || (backlog && (idleHere || seenBefore.contains(shard))))) {
                wanted.add(shard);
                held++;
            } else if (backlog) {
                stillFree.add(shard);
            }
        }
        freeWithBacklog.put(sub.id, stillFree);
        if (!wanted.isEmpty()) {
            try {
                sub.takeLeases(c, wanted);
                LOG.debug("{} - balancer took {} of {}", me, wanted, sub.destinationName());
            } catch (SQLException | RuntimeException e) {
                LOG.debug(
                        "{} - balancer could not take {} of {}: {}", me, wanted, sub.destinationName(), e.getMessage());
            }
            held = sub.leasedCount();
            idleHere = sub.leasedBacklog() == 0;
        }

        // ask
        boolean someoneOver = heldBy.values().stream().anyMatch(n -> n > fair);
        boolean concentrated = backlogBy.values().stream().anyMatch(n -> n >= 2);
        sub.wantsMore = (held < fair && someoneOver) || (idleHere && concentrated);

        // give
        List<Integer> release = new ArrayList<>();
        long maxDrain = TimeUnit.MILLISECONDS.toNanos(engine.settings().leaseTtlMillis());
        for (ShardState s : all) {
            if (s.draining() && s.releaseIfDrained(maxDrain)) {
                release.add(s.shardNo);
            }
        }
        asking = new HashSet<>(asking);
        asking.remove(me);
        if (!asking.isEmpty() && !anyDraining(all)) {
            int leased = sub.leasedCount();
            if (leased > fair) {
                // beyond the fair share: the empty and unused shards first
                List<ShardState> mine = new ArrayList<>();
                for (ShardState s : all) {
                    if (s.leased) {
                        mine.add(s);
                    }
                }
                mine.sort((a, b) -> a.backlog() != b.backlog()
                        ? Long.compare(a.backlog(), b.backlog())
                        : Integer.compare(a.holders(), b.holders()));
                for (int i = 0; i < leased - fair; i++) {
                    drain(mine.get(i), release, maxDrain);
                }
            } else if (sub.leasedBacklog() >= 2) {
                ShardState give = null;
                for (ShardState s : all) {
                    if (s.leased && s.backlog() > 0 && (give == null || s.holders() < give.holders())) {
                        give = s;
                    }
                }
                if (give != null) {
                    drain(give, release, maxDrain);
                }
            }
        }
        release(c, sub, release, "balancing");
    }

    private static boolean anyDraining(ShardState[] all) {
        for (ShardState s : all) {
            if (s.draining()) {
                return true;
            }
        }
        return false;
    }

    private static void drain(ShardState s, List<Integer> release, long maxDrain) {
        if (s.startDraining() && s.releaseIfDrained(maxDrain)) {
            release.add(s.shardNo);
        }
    }

    private void release(Connection c, Subscription sub, List<Integer> shards, String why) throws SQLException {
        if (shards.isEmpty()) {
            return;
        }
        long me = engine.instanceId();
        try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.CURSOR_LEASE_RELEASE, engine.onCitus()))) {
            ps.setLong(1, sub.id);
            ps.setArray(2, c.createArrayOf("integer", shards.toArray()));
            ps.setLong(3, me);
            Queries.executeCount(ps);
        }
        LOG.debug("{} - released leases {} of {} subscription {} ({})", me, shards, sub.destinationName(), sub.id, why);
    }
}
