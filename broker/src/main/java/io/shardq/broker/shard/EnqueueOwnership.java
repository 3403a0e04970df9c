package io.shardq.broker.shard;

import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.Query;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Enqueue affinity of one destination in this instance: which shards it owns for enqueue
 * ({@code shardq.shard.owner_instance}) and which shard a producing session writes to.
 *
 * <p><b>Ownership follows the fleet.</b> The share is {@code ceil(shards / producers)}, counted
 * over the live instances that produce to the destination ({@code shardq.instance.produces},
 * written by the heartbeat; consumer-only instances do not count). It is recomputed on first use,
 * when the shard count changes, when the set of live instances changes ({@link
 * Heartbeat#fleetVersion}), when this instance owns other than its share, and every {@link
 * #RECHECK_BEATS} heartbeats. A recomputation first gives back the shards beyond the share (the
 * highest numbers), then keeps its own and takes free ones (never owned, given back, or owned by
 * an instance that is not live: {@code shardq.live_instances}) up to the share. So a second
 * instance gets its share within about two heartbeats (the first gives back at its next beat, the
 * second takes at its next), and a dead owner's shards are taken at the next heartbeat after it
 * is seen dead (about a second after a kill, through its session lock; the TTL for a stall).
 * Ownership is affinity, not exclusion: any instance may write any shard (the visibility rule
 * serialises writers), an instance that owns nothing writes round robin over all shards.
 *
 * <p><b>Order.</b> A session keeps its shard for the whole of a transaction, and the sessions a
 * thread creates share the thread's shard. A session or thread leaves a shard its instance no
 * longer owns only at a transaction boundary and only once every subscription's cursor of that
 * shard has passed the shard's head as this instance knows it ({@link #mayLeave}: everything it
 * sent there was consumed), so a consumer can never receive its later messages, written to the
 * new shard, before its earlier ones. It waits for that at most {@link #LEAVE_WAIT_MS}; if the
 * consumers are further behind it stays on the old shard and tries again ten heartbeats later.
 *
 * <p><b>Shrink.</b> Only the active shards ({@link DestinationRuntime#activeShards}) are owned and
 * written: a session on a draining shard moves at its next transaction boundary without waiting
 * for the consumers (the draining shard takes no more messages). Its order is kept by the fences
 * instead: what it writes on an active shard lies at or beyond that shard's fence, which
 * consumers do not see until every draining shard is empty (see
 * docs/design/resharding.md). A transaction that buffered for a shard that began to drain before it
 * committed fails at its commit (the shard_draining_frozen CHECK) and is rolled back.
 *
 * <p>Threading: {@link #owned} is an immutable array behind a volatile reference; recomputation
 * (SQL) is serialised by the object's monitor and runs on the heartbeat thread, or on the first
 * producer's thread when nothing was computed yet.
 */
final class EnqueueOwnership {
    private static final Logger LOG = LoggerFactory.getLogger(EnqueueOwnership.class);
    /** Also recomputed every this many heartbeats (the fair-share timer). */
    static final int RECHECK_BEATS = 5;
    /** How long a producer waits at a transaction boundary for consumers to pass its old shard. */
    static final long LEAVE_WAIT_MS = 500;

    private final DestinationRuntime rt;
    private final Engine engine;
    private volatile int[] owned;
    private volatile int ownedFor = -1; // shard count it was computed for
    private long fleetVersion = -1;
    private int beats;
    private volatile long lastUseNanos = System.nanoTime() - TimeUnit.DAYS.toNanos(1);
    private final AtomicInteger counter = new AtomicInteger();
    private final ThreadLocal<Integer> threadShard = new ThreadLocal<>();
    /** By shard: nanoTime before which producers do not wait to leave it again (a wait timed out). */
    private volatile AtomicLongArray leaveRetry = new AtomicLongArray(0);

    EnqueueOwnership(DestinationRuntime rt, Engine engine) {
        this.rt = rt;
        this.engine = engine;
    }

    /** True while this instance produced to the destination within two lease TTLs. */
    boolean producing() {
        return System.nanoTime() - lastUseNanos
                < TimeUnit.MILLISECONDS.toNanos(2 * engine.settings().leaseTtlMillis());
    }

    /** The shards this instance owns for enqueue, ascending (computed on first use). */
    int[] owned() {
        int[] o = owned;
        if (o == null || ownedFor != rt.activeShards()) {
            recompute();
            o = owned;
        }
        return o;
    }

    /** After each heartbeat: recompute when the fleet or the shard count changed, the share is off, or on the timer. */
    void heartbeat() {
        int[] o = owned;
        if (o == null) {
            return; // never produced here
        }
        if (!producing()) {
            if (o.length > 0) {
                giveBackAll();
            }
            return;
        }
        boolean due;
        synchronized (this) {
            due = ++beats >= RECHECK_BEATS
                    || fleetVersion != engine.fleetVersion()
                    || ownedFor != rt.activeShards()
                    || o.length != fairShare();
        }
        if (due) {
            recompute();
        }
    }

    private int fairShare() {
        int producers = 1 + engine.otherProducers(rt.info().id());
        return (int) Math.ceil((double) rt.activeShards() / producers);
    }

    synchronized void recompute() {
        long me = engine.instanceId();
        int shards = rt.activeShards();
        int fair = fairShare();
        long version = engine.fleetVersion();
        int[] before = owned == null ? new int[0] : owned;
        try (Connection c = engine.dataSource().getConnection()) {
            try {
                c.setAutoCommit(false);
                Queries.setLocalLockTimeout(c, LOCK_TIMEOUT_MS); // an enqueue holds a shard row until its commit
                if (owned == null) {
                    // first use here: say so now, the owners give back at their next heartbeat
                    try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.INSTANCE_ADD_PRODUCES))) {
                        ps.setInt(1, rt.info().id());
                        ps.setLong(2, me);
                        ps.setInt(3, rt.info().id());
                        ps.executeUpdate();
                    }
                }
                int[] mine = selectOwned(c, me);
                List<Integer> excess = new ArrayList<>();
                for (int i = fair; i < mine.length; i++) {
                    excess.add(mine[i]); // the highest numbers beyond the share
                }
                if (!excess.isEmpty()) {
                    try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.SHARD_RELEASE_OWNER_SOME))) {
                        ps.setInt(1, rt.info().id());
                        ps.setArray(2, c.createArrayOf("integer", excess.toArray()));
                        ps.setLong(3, me);
                        ps.executeQuery().close();
                    }
                }
                int need = fair - Math.min(fair, mine.length);
                if (need > 0) {
                    double ttl = engine.settings().leaseTtlMillis() / 1000.0;
                    try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.SHARD_CLAIM_OWNER))) {
                        ps.setLong(1, me);
                        ps.setInt(2, rt.info().id());
                        ps.setInt(3, rt.info().id());
                        ps.setDouble(4, ttl);
                        ps.setInt(5, need);
                        ps.setDouble(6, ttl);
                        ps.executeQuery().close();
                    }
                }
                c.commit();
            } catch (SQLException e) {
                c.rollback(); // a lock wait timed out (a long enqueue, a prepared transaction): next round
                LOG.debug(
                        "{} - enqueue ownership of {} not changed this round: {}",
                        me,
                        rt.info().name(),
                        e.getMessage());
            } finally {
                c.setAutoCommit(true);
            }
            int[] now = selectOwned(c, me);
            owned = now;
            ownedFor = shards;
            fleetVersion = version;
            beats = 0;
            if (leaveRetry.length() != shards) {
                leaveRetry = new AtomicLongArray(shards);
            }
            if (!Arrays.equals(before, now)) {
                LOG.info(
                        "{} - owns shards {} of {} for enqueue (share {})",
                        me,
                        Arrays.toString(now),
                        rt.info().name(),
                        fair);
            }
        } catch (SQLException | RuntimeException e) {
            LOG.warn(
                    "{} - could not take enqueue ownership of {}: {}",
                    me,
                    rt.info().name(),
                    e.getMessage());
            if (owned == null) {
                owned = new int[0];
                ownedFor = shards;
            }
        }
    }

    /** Lock wait of a recomputation for a shard row an enqueue holds. */
    static final long LOCK_TIMEOUT_MS = 500;

    private int[] selectOwned(Connection c, long me) throws SQLException {
        List<Integer> mine = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.SHARD_SELECT_OWNERS))) {
            ps.setInt(1, rt.info().id());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    long owner = rs.getLong(2);
                    if (!rs.wasNull() && owner == me) {
                        mine.add(rs.getInt(1));
                    }
                }
            }
        }
        return mine.stream().mapToInt(Integer::intValue).toArray();
    }

    private synchronized void giveBackAll() {
        try (Connection c = engine.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.SHARD_RELEASE_OWNER_SOME))) {
            ps.setInt(1, rt.info().id());
            ps.setArray(
                    2, c.createArrayOf("integer", Arrays.stream(owned).boxed().toArray()));
            ps.setLong(3, engine.instanceId());
            ps.executeQuery().close();
            owned = new int[0];
            LOG.info(
                    "{} - gave back enqueue ownership of {} (no producer here)",
                    engine.instanceId(),
                    rt.info().name());
        } catch (SQLException e) {
            LOG.debug(
                    "{} - could not give back ownership of {}: {}",
                    engine.instanceId(),
                    rt.info().name(),
                    e.getMessage());
        }
        owned = null; // recomputed when a producer comes back
    }

    /**
     * The shard a producing session writes its next transaction to, at a transaction boundary:
     * {@code current} (its shard so far, null for a new session) while this instance owns it;
     * else the thread's shard; else the next owned shard round robin (all shards when it owns
     * none). A shard is left only as {@link #mayLeave} allows. With {@code spread}, the next
     * shard round robin over all shards at every transaction (order across transactions given up).
     */
    int producerShard(Integer current, boolean spread) {
        lastUseNanos = System.nanoTime();
        int shards = rt.activeShards();
        if (spread) {
            return Math.floorMod(counter.getAndIncrement(), shards);
        }
        int[] own = below(owned(), shards);
        Integer thread = threadShard.get();
        Integer mine = current != null ? current : thread;
        if (mine != null && mine < shards) {
            boolean stay = own.length == 0 ? true : contains(own, mine) ? !crowded(mine, own) : false;
            if (stay || !mayLeave(mine)) {
                pinThread(thread, mine);
                return mine;
            }
        }
        synchronized (pinLock) { // the pick and the count together: concurrent new threads spread
            int shard;
            if (thread != null && !thread.equals(mine) && thread < shards && contains(own, thread)) {
                shard = thread;
            } else if (own.length > 0) {
                shard = leastPinned(own);
            } else {
                shard = Math.floorMod(counter.getAndIncrement(), shards);
            }
            pinThread(thread, shard);
            return shard;
        }
    }

    /** Threads pinned to each shard (a thread counts where it last sent): spreads producers over owned shards. */
    private volatile java.util.concurrent.atomic.AtomicIntegerArray pins =
            new java.util.concurrent.atomic.AtomicIntegerArray(0);

    private final Object pinLock = new Object();

    private void pinThread(Integer from, int to) {
        if (from != null && from == to) {
            return;
        }
        java.util.concurrent.atomic.AtomicIntegerArray p = pins;
        if (p.length() != rt.shardCount()) {
            synchronized (this) {
                if (pins.length() != rt.shardCount()) {
                    java.util.concurrent.atomic.AtomicIntegerArray grown =
                            new java.util.concurrent.atomic.AtomicIntegerArray(rt.shardCount());
                    for (int i = 0; i < Math.min(pins.length(), grown.length()); i++) {
                        grown.set(i, pins.get(i));
                    }
                    pins = grown;
                }
                p = pins;
            }
        }
        if (from != null && from < p.length()) {
            p.decrementAndGet(from);
        }
        p.incrementAndGet(to);
        threadShard.set(to);
    }

    /**
     * True when {@code shard} has two threads more than the least pinned owned shard (ownership
     * grew: a new or taken shard has none yet), so that running producers spread onto it.
     */
    private boolean crowded(int shard, int[] own) {
        java.util.concurrent.atomic.AtomicIntegerArray p = pins;
        if (shard >= p.length()) {
            return false;
        }
        int least = Integer.MAX_VALUE;
        for (int o : own) {
            least = Math.min(least, o < p.length() ? p.get(o) : 0);
        }
        return p.get(shard) - least >= 2 || (p.get(shard) >= 2 && least == 0);
    }

    private int leastPinned(int[] own) {
        java.util.concurrent.atomic.AtomicIntegerArray p = pins;
        int start = Math.floorMod(counter.getAndIncrement(), own.length);
        int best = own[start];
        for (int i = 0; i < own.length; i++) {
            int o = own[(start + i) % own.length];
            if ((o < p.length() ? p.get(o) : 0) < (best < p.length() ? p.get(best) : 0)) {
                best = o;
            }
        }
        return best;
    }

    /**
     * May a producer leave {@code shard} now? Only once every subscription's cursor there passed
     * the shard's head as this instance knows it (which covers everything this instance's
     * committed transactions wrote there): waits for that at most {@link #LEAVE_WAIT_MS}.
     */
    private boolean mayLeave(int shard) {
        AtomicLongArray retry = leaveRetry;
        long now = System.nanoTime();
        if (shard < retry.length() && retry.get(shard) - now > 0) {
            return false;
        }
        long fence = rt.head(shard);
        long deadline = now + TimeUnit.MILLISECONDS.toNanos(LEAVE_WAIT_MS);
        try (Connection c = engine.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.CURSOR_SELECT_MIN_POSITION))) {
            ps.setInt(1, rt.info().id());
            ps.setInt(2, shard);
            boolean first = true;
            while (true) {
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    long min = rs.getLong(1);
                    if (min >= fence) {
                        return true;
                    }
                    if (first && fence - min > engine.settings().enqueueMaxBatch()) {
                        break; // the consumers are far behind: not worth waiting for now
                    }
                    first = false;
                }
                if (System.nanoTime() - deadline > 0) {
                    break;
                }
                Thread.sleep(10);
            }
        } catch (SQLException e) {
            LOG.debug(
                    "{} - could not read the cursors of {} shard {}: {}",
                    engine.instanceId(),
                    rt.info().name(),
                    shard,
                    e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (shard < retry.length()) {
            retry.set(
                    shard,
                    System.nanoTime()
                            + TimeUnit.MILLISECONDS.toNanos(
                                    2L * RECHECK_BEATS * engine.settings().heartbeatMillis()));
        }
        return false;
    }

    /** The shards of {@code a} below {@code n} (a shrink's draining shards left out); {@code a} itself when all are. */
    private static int[] below(int[] a, int n) {
        for (int x : a) {
            if (x >= n) {
                return Arrays.stream(a).filter(v -> v < n).toArray();
            }
        }
        return a;
    }

    private static boolean contains(int[] a, int v) {
        for (int x : a) {
            if (x == v) {
                return true;
            }
        }
        return false;
    }
}
