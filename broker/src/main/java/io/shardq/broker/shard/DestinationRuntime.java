package io.shardq.broker.shard;

import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.SqlErrors;
import io.shardq.broker.message.BrokerMessage;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One destination as this instance serves it: the shards it knows, the leases it holds, the
 * non-persistent messages it keeps, and the consumers waiting on it.
 *
 * <p>Dequeue affinity and the lease protocol: a (shard, subscription) cursor is leased by one
 * instance at a time ({@code shardq.cursor.lease_instance}, renewed by the heartbeat, lost
 * after the TTL). Within the instance a shard is claimed by at most one session at a time,
 * from its first delivery until that session commits or rolls back, so a shard is consumed
 * strictly in sequence order and the cursor moves forward in the consumer's own transaction.
 * Consumers prefer shards whose next message is already in the cache. An instance takes free
 * or expired leases up to its fair share, more only for shards with backlog nobody serves, and
 * gives back shards it does not use, or has beyond its fair share while another instance's
 * consumers are hungry.
 *
 * <p>Threading: all fields of the {@link ShardState}s are guarded by {@link #lock}; SQL runs
 * outside it.
 */
public final class DestinationRuntime {
    private static final Logger LOG = LoggerFactory.getLogger(DestinationRuntime.class);

    final Engine engine;
    volatile DestinationInfo info;
    volatile ShardState[] shards;
    final SliceMap slices;
    final ReentrantLock lock = new ReentrantLock();
    final Condition changed = lock.newCondition();
    final Deque<BrokerMessage> nonPersistent = new ArrayDeque<>();
    private final AtomicInteger producerCounter;
    private int pickCounter;
    private long nextLeaseAttemptNanos;
    private long nextPollNanos;
    private long pollIntervalMillis = 20;
    private boolean pollRequested;
    private long waiterRegisteredNanos;
    int waitingConsumers;
    /** Waiting consumers with a selector: they may not take what they are woken for. */
    private int selectiveWaiters;

    private long lastConsumerNanos;

    public DestinationRuntime(Engine engine, DestinationInfo info) {
        this.engine = engine;
        this.info = info;
        this.slices = new SliceMap(info.id());
        this.shards = newShards(info.shardCount(), null);
        this.producerCounter = new AtomicInteger();
    }

    public DestinationInfo info() {
        return info;
    }

    /** Takes a fresh catalog snapshot (flags, max attempts, more shards). */
    public void refresh(DestinationInfo fresh) {
        lock.lock();
        try {
            if (fresh.shardCount() != shards.length) {
                shards = newShards(fresh.shardCount(), shards);
            }
            info = fresh;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private static ShardState[] newShards(int n, ShardState[] old) {
        ShardState[] s = new ShardState[n];
        for (int i = 0; i < n; i++) {
            s[i] = old != null && i < old.length ? old[i] : new ShardState(i);
        }
        return s;
    }

    /** The retirer freed the slot of this slice. */
    public void forgetSlice(int shard, long firstSeq) {
        slices.remove(shard, firstSeq);
    }

    /**
     * The shard a new producing session is pinned to: round robin over the shards this instance
     * owns for enqueue (taken on first use, up to its fair share, from shards no live instance
     * owns), else over all shards.
     */
    int assignProducerShard() {
        int[] own = ownedShards();
        int i = producerCounter.getAndIncrement();
        return own.length > 0 ? own[Math.floorMod(i, own.length)] : Math.floorMod(i, shards.length);
    }

    private volatile int[] owned;

    private int[] ownedShards() {
        int[] o = owned;
        if (o != null) {
            return o;
        }
        synchronized (this) {
            if (owned == null) {
                owned = claimOwnership();
            }
            return owned;
        }
    }

    private int[] claimOwnership() {
        long me = engine.instanceId();
        try (Connection c = engine.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get("shard_claim_owner"))) {
            ps.setLong(1, me);
            ps.setInt(2, info.id());
            ps.setInt(3, info.id());
            ps.setLong(4, me);
            ps.setDouble(5, engine.settings().leaseTtlMillis() / 1000.0);
            ps.setLong(6, me);
            ps.setInt(7, engine.fairShare(shards.length));
            List<Integer> got = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    got.add(rs.getInt(1));
                }
            }
            return got.stream().mapToInt(Integer::intValue).sorted().toArray();
        } catch (SQLException e) {
            LOG.warn("{} - could not take enqueue ownership of {}: {}", me, info.name(), e.getMessage());
            return new int[0];
        }
    }

    // ---- called by sessions, under the lock ----

    /**
     * A shard this session may deliver from now: its own claim first, then one whose next
     * message is cached, then any with backlog. The scan starts at a rotating offset so that no
     * shard waits behind lower-numbered ones (that showed as a latency tail).
     */
    ShardState pick(Object session) {
        ShardState[] all = shards;
        for (ShardState s : all) {
            if (s.claimedBy == session && s.leased && s.nextSeq - 1 < s.knownHead) {
                return s;
            }
        }
        ShardState fallback = null;
        int start = Math.floorMod(pickCounter++, all.length);
        for (int i = 0; i < all.length; i++) {
            ShardState s = all[(start + i) % all.length];
            if (s.claimedBy == null && s.hasAvailable()) {
                if (engine.cache().contains(info.id(), s.shardNo, s.position + 1)) {
                    return s;
                }
                if (fallback == null) {
                    fallback = s;
                }
            }
        }
        return fallback;
    }

    /** After a local commit of messages up to {@code head} on a shard. */
    void advanceHead(int shard, long head) {
        ShardState s = shards[shard];
        if (head > s.knownHead) {
            s.knownHead = head;
            // an unclaimed shard: any one waiting consumer can take it; a claimed one: only its claimer
            if (s.claimedBy == null && selectiveWaiters == 0) {
                changed.signal();
            } else {
                changed.signalAll();
            }
        }
    }

    /** A NOTIFY arrived for a shard: poll the heads soon. */
    public void onWake() {
        lock.lock();
        try {
            pollRequested = true;
            waiterRegisteredNanos = 0;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        engine.stats().recordWakeup();
    }

    /**
     * Nothing to deliver: take leases, poll heads or wait. Returns false when the deadline passed.
     * Called without the lock.
     */
    boolean awaitMessages(long deadlineNanos) throws InterruptedException {
        return awaitMessages(deadlineNanos, false);
    }

    /**
     * As above; a {@code selective} consumer has just scanned everything available without a
     * match, so it waits for the next change instead of returning at once.
     */
    boolean awaitMessages(long deadlineNanos, boolean selective) throws InterruptedException {
        long now = System.nanoTime();
        boolean poll;
        boolean acquire;
        lock.lock();
        try {
            lastConsumerNanos = now;
            acquire = now >= nextLeaseAttemptNanos && leasedCount() < shards.length;
            poll = pollRequested || now >= nextPollNanos;
            if (acquire) {
                nextLeaseAttemptNanos = now + TimeUnit.MILLISECONDS.toNanos(250);
            }
            if (poll) {
                pollRequested = false;
            }
        } finally {
            lock.unlock();
        }
        boolean found = false;
        if (acquire) {
            found = acquireLeases();
        }
        if (!found && poll) {
            found = pollHeads();
        }
        if (!found && engine.otherInstancesAlive()) {
            found = registerWaiter();
        }
        lock.lock();
        try {
            if (!selective && (found || hasAnyAvailable())) {
                pollIntervalMillis = 20;
                return true;
            }
            long remaining = deadlineNanos - System.nanoTime();
            if (remaining <= 0) {
                return false;
            }
            if (poll) {
                nextPollNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(pollIntervalMillis);
                pollIntervalMillis = Math.min(engine.settings().pollMaxMillis(), pollIntervalMillis * 2);
            }
            long untilPoll = nextPollNanos - System.nanoTime();
            waitingConsumers++;
            if (selective) {
                selectiveWaiters++;
            }
            try {
                changed.awaitNanos(Math.max(1_000_000L, Math.min(remaining, untilPoll)));
            } finally {
                waitingConsumers--;
                if (selective) {
                    selectiveWaiters--;
                }
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    private boolean hasAnyAvailable() {
        if (!nonPersistent.isEmpty()) {
            return true;
        }
        for (ShardState s : shards) {
            if (s.claimedBy == null && s.hasAvailable()) {
                return true;
            }
        }
        return false;
    }

    int leasedCount() {
        int n = 0;
        for (ShardState s : shards) {
            if (s.leased) {
                n++;
            }
        }
        return n;
    }

    /** Takes free or expired leases: up to the fair share, beyond it for shards with backlog. */
    boolean acquireLeases() {
        DestinationInfo d = info;
        long me = engine.instanceId();
        try (Connection c = engine.dataSource().getConnection()) {
            List<long[]> candidates = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(Queries.get("cursor_select_candidates"))) {
                ps.setLong(1, d.queueSubscription());
                ps.setLong(2, me);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        candidates.add(new long[] {rs.getInt(1), rs.getLong(2), rs.getLong(3)});
                    }
                }
            }
            engine.stats().dequeueSqlReads.increment();
            int fair = engine.fairShare(d.shardCount());
            List<Integer> wanted = new ArrayList<>();
            lock.lock();
            try {
                int held = leasedCount();
                // backlog first, then free ones up to the fair share
                candidates.sort((a, b) -> Long.compare(b[2] - 1 - b[1], a[2] - 1 - a[1]));
                for (long[] cand : candidates) {
                    int shard = (int) cand[0];
                    if (shard >= shards.length || shards[shard].leased) {
                        continue;
                    }
                    boolean backlog = cand[2] - 1 > cand[1];
                    if (backlog || held < fair) {
                        wanted.add(shard);
                        held++;
                    }
                }
            } finally {
                lock.unlock();
            }
            if (wanted.isEmpty()) {
                return false;
            }
            boolean found = false;
            try (PreparedStatement ps = c.prepareStatement(Queries.get("cursor_lease_acquire"))) {
                Array arr = c.createArrayOf("integer", wanted.toArray());
                ps.setLong(1, me);
                ps.setDouble(2, engine.settings().leaseTtlMillis() / 1000.0);
                ps.setLong(3, d.queueSubscription());
                ps.setArray(4, arr);
                ps.setLong(5, me);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        int shard = rs.getInt(1);
                        long position = rs.getLong(2);
                        long head = rs.getLong(3) - 1;
                        found |= head > position;
                        loadAttempts(c, shard, position);
                        lock.lock();
                        try {
                            ShardState s = shards[shard];
                            s.leased = true;
                            s.position = position;
                            s.knownHead = Math.max(s.knownHead, head);
                            s.lastClaimNanos = System.nanoTime();
                            changed.signalAll();
                        } finally {
                            lock.unlock();
                        }
                        LOG.debug("{} - leased {} of {} at position {}", me, shard, d.name(), position);
                    }
                }
            }
            return found;
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "acquiring dequeue leases on " + d.name());
        }
    }

    private void loadAttempts(Connection c, int shard, long position) throws SQLException {
        ShardState s = shards[shard];
        java.util.TreeSet<Long> ahead = new java.util.TreeSet<>();
        try (PreparedStatement ps = c.prepareStatement(Queries.get("dequeue_log_select"))) {
            ps.setLong(1, info.queueSubscription());
            ps.setInt(2, shard);
            ps.setLong(3, position);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ahead.add(rs.getLong(1));
                }
            }
        }
        lock.lock();
        try {
            s.consumedAhead.clear();
            s.consumedAhead.addAll(ahead);
        } finally {
            lock.unlock();
        }
        s.attempts.clear();
        try (PreparedStatement ps = c.prepareStatement(Queries.get("delivery_attempt_select"))) {
            ps.setLong(1, info.queueSubscription());
            ps.setInt(2, shard);
            ps.setLong(3, position);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    s.attempts.put(rs.getLong(1), rs.getInt(2));
                }
            }
        }
    }

    /** Reads every shard's head; returns true if a leased shard has something to deliver. */
    boolean pollHeads() {
        try (Connection c = engine.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get("shard_select_heads"))) {
            ps.setInt(1, info.id());
            engine.stats().dequeueSqlReads.increment();
            try (ResultSet rs = ps.executeQuery()) {
                lock.lock();
                try {
                    boolean found = false;
                    ShardState[] all = shards;
                    while (rs.next()) {
                        int shard = rs.getInt(1);
                        if (shard < all.length) {
                            all[shard].knownHead = Math.max(all[shard].knownHead, rs.getLong(2) - 1);
                            found |= all[shard].claimedBy == null && all[shard].hasAvailable();
                        }
                    }
                    return found;
                } finally {
                    lock.unlock();
                }
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "polling " + info.name());
        }
    }

    /** Asks the next enqueue on our leased shards to NOTIFY us. */
    private boolean registerWaiter() {
        List<Integer> leased = new ArrayList<>();
        lock.lock();
        try {
            long now = System.nanoTime();
            if (waiterRegisteredNanos != 0 && now - waiterRegisteredNanos < TimeUnit.SECONDS.toNanos(5)) {
                return false;
            }
            waiterRegisteredNanos = now;
            for (ShardState s : shards) {
                if (s.leased) {
                    leased.add(s.shardNo);
                }
            }
        } finally {
            lock.unlock();
        }
        if (leased.isEmpty()) {
            return false;
        }
        long me = engine.instanceId();
        try (Connection c = engine.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get("shard_set_waiter"))) {
            ps.setLong(1, me);
            ps.setInt(2, info.id());
            ps.setArray(3, c.createArrayOf("integer", leased.toArray()));
            ps.setLong(4, me);
            boolean found = false;
            try (ResultSet rs = ps.executeQuery()) {
                lock.lock();
                try {
                    while (rs.next()) {
                        ShardState s = shards[rs.getInt(1)];
                        s.knownHead = Math.max(s.knownHead, rs.getLong(2) - 1);
                        found |= s.claimedBy == null && s.hasAvailable();
                    }
                } finally {
                    lock.unlock();
                }
            }
            return found;
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "registering for wake-ups on " + info.name());
        }
    }

    // ---- heartbeat ----

    /** Shards whose lease this instance should give back now. */
    List<Integer> leasesToRelease(int hungryOthers) {
        lock.lock();
        try {
            List<Integer> out = new ArrayList<>();
            long now = System.nanoTime();
            long idle = TimeUnit.MILLISECONDS.toNanos(
                    Math.max(2000, engine.settings().leaseTtlMillis() / 2));
            boolean consumersIdle = waitingConsumers == 0 && now - lastConsumerNanos > idle;
            int fair = hungryOthers == 0
                    ? Integer.MAX_VALUE
                    : (int) Math.ceil((double) shards.length / (hungryOthers + 1));
            int held = leasedCount();
            for (ShardState s : shards) {
                if (!s.leased || s.claimedBy != null) {
                    continue;
                }
                boolean idleShard = consumersIdle && now - s.lastClaimNanos > idle;
                if (idleShard || held > fair) {
                    s.leased = false;
                    out.add(s.shardNo);
                    held--;
                }
            }
            return out;
        } finally {
            lock.unlock();
        }
    }

    /** Forgets leases the database no longer says are ours. */
    void keepOnlyLeases(java.util.Set<Integer> renewed) {
        lock.lock();
        try {
            for (ShardState s : shards) {
                if (s.leased && !renewed.contains(s.shardNo)) {
                    LOG.warn("{} - lost the dequeue lease of {} of {}", engine.instanceId(), s, info.name());
                    s.leased = false;
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** True when this instance's consumers wait here with nothing leased to serve them. */
    boolean hungry() {
        lock.lock();
        try {
            return waitingConsumers > 0 && leasedCount() < engine.fairShare(shards.length) && !hasAnyAvailable();
        } finally {
            lock.unlock();
        }
    }

    int[] leasedShards() {
        lock.lock();
        try {
            return java.util.Arrays.stream(shards)
                    .filter(s -> s.leased)
                    .mapToInt(s -> s.shardNo)
                    .toArray();
        } finally {
            lock.unlock();
        }
    }

    /** Per-shard backlog known to this instance (head minus position for leased shards). */
    public long[] knownBacklog() {
        lock.lock();
        try {
            long[] out = new long[shards.length];
            for (ShardState s : shards) {
                out[s.shardNo] = s.leased ? Math.max(0, s.knownHead - s.position) : -1;
            }
            return out;
        } finally {
            lock.unlock();
        }
    }
}
