package io.shardq.broker.shard;

import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.Query;
import io.shardq.broker.internal.SqlErrors;
import io.shardq.broker.message.BrokerMessage;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One subscription of a destination, as this instance serves it: the owner of its per-shard
 * cursors ({@link ShardState}: position, ranges handed to sessions, lease), the consumers waiting
 * for it, and the non-persistent messages it holds. A queue is the one-subscription case; a topic
 * will have one per subscription, all reading the same stored messages through the destination's
 * shared {@link ShardHead}s.
 *
 * <p>The lease protocol: a (shard, subscription) cursor is leased by one instance at a time
 * ({@code shardq.cursor.lease_instance}, renewed by the heartbeat, lost after the TTL). Within the
 * instance, sessions take ranges of a leased shard ({@link ShardState#take}): several consumers
 * deliver from one shard at once, each in sequence order, and the cursor moves forward in the
 * consumers' own transactions. Consumers prefer shards whose next message is already in the cache.
 * An instance takes free or expired leases up to its fair share, more only for shards with backlog
 * nobody serves, and gives back shards it does not use, or has beyond its fair share while another
 * instance's consumers are hungry.
 *
 * <p>Threading: no lock of the subscription sits on the receive or commit path. Each {@link
 * ShardState} guards itself; waiting consumers are parked in {@link Waiters} and woken as many as
 * there is work for; the lease and poll schedule (touched only by consumers that found nothing)
 * is guarded by {@link #schedule}. SQL never runs under a monitor. Producer flow control, which
 * waits on consumers' progress, is {@link FlowControl}.
 */
public final class Subscription {
    private static final Logger LOG = LoggerFactory.getLogger(Subscription.class);

    /** A non-persistent message held in memory, with its failed delivery attempts. */
    static final class NpEntry {
        final BrokerMessage message;
        final int attempts;

        NpEntry(BrokerMessage message, int attempts) {
            this.message = message;
            this.attempts = attempts;
        }
    }

    final Engine engine;
    final DestinationRuntime destination;
    /** {@code shardq.subscription.id}. */
    final long id;
    /** A topic subscription's bit in the subscriber bitmaps; -1 for a queue (every message is its). */
    final int bit;

    private volatile ShardState[] shards;
    final Waiters waiters = new Waiters();
    final ConcurrentLinkedDeque<NpEntry> nonPersistent = new ConcurrentLinkedDeque<>();
    private final AtomicInteger pickCounter = new AtomicInteger();
    private final Object schedule = new Object();
    private long nextLeaseAttemptNanos;
    private long nextPollNanos;
    private long pollIntervalMillis = 20;
    private volatile boolean pollRequested;
    private long waiterRegisteredNanos;
    private volatile long lastConsumerNanos = System.nanoTime() - TimeUnit.DAYS.toNanos(1);
    /** Producer flow control for this subscription's consumers here. */
    private final FlowControl flowControl = new FlowControl(this);
    /** Open consumers of this subscription in the instance (flow control's bound grows with them). */
    final AtomicInteger openConsumers = new AtomicInteger();

    Subscription(Engine engine, DestinationRuntime destination, long id, int bit, ShardHead[] heads) {
        this.engine = engine;
        this.destination = destination;
        this.id = id;
        this.bit = bit;
        this.shards = cursors(heads, null);
    }

    public long id() {
        return id;
    }

    /** The name of the destination this subscription belongs to. */
    public String destinationName() {
        return destination.info().name();
    }

    /** Open consumers of this subscription in this instance now (the console's consumer counts). */
    public int openConsumers() {
        return openConsumers.get();
    }

    /** The subscription was deleted: this instance no longer serves it. */
    public void dropped() {
        destination.dropTopicSubscription(id);
    }

    /** True when stored message {@code m} is for this subscription (a queue's always are). */
    boolean wants(BrokerMessage m) {
        return bit < 0 || m.hasSubscriber(bit);
    }

    ShardState[] shards() {
        return shards;
    }

    /** The destination gained shards: one cursor state per head, the existing ones kept. */
    void resize(ShardHead[] heads) {
        shards = cursors(heads, shards);
    }

    private static ShardState[] cursors(ShardHead[] heads, ShardState[] old) {
        ShardState[] s = new ShardState[heads.length];
        for (int i = 0; i < heads.length; i++) {
            s[i] = old != null && i < old.length ? old[i] : new ShardState(i, heads[i]);
        }
        return s;
    }

    /** New messages up to a shard's head became visible: wake as many consumers as can use them. */
    void messagesArrived(long added) {
        waiters.wake(
                (added + engine.settings().prefetch() - 1) / engine.settings().prefetch());
    }

    /**
     * A shard this session may take a range of now, or null. In order of preference: a shard
     * nobody holds whose next message is cached, one nobody holds, then one already held by other
     * sessions (so consumers spread over the shards before they share one, and a commit mostly
     * moves a cursor instead of logging). The scan starts at a rotating offset so that no shard
     * waits behind lower-numbered ones (that showed as a latency tail).
     */
    /** A shard to take a range from for {@code session} (null: any): never one whose groups another session owns. */
    ShardState pickForRange(Object session) {
        ShardState[] all = shards;
        ShardState byPriority = byPriority(all, session);
        if (byPriority != null) {
            return byPriority;
        }
        ShardState unheld = null;
        ShardState shared = null;
        int start = Math.floorMod(pickCounter.getAndIncrement(), all.length);
        for (int i = 0; i < all.length; i++) {
            ShardState s = all[(start + i) % all.length];
            if (!s.mayHaveAvailable(session)) {
                continue;
            }
            if (s.held()) {
                if (shared == null) {
                    shared = s;
                }
            } else if (engine.cache().contains(destination.info().id(), s.shardNo, s.nextHint())) {
                return s;
            } else if (unheld == null) {
                unheld = s;
            }
        }
        return unheld != null ? unheld : shared;
    }

    /**
     * When messages of other than the default priority are known to wait in some shards: the shard
     * whose best waiting priority is highest, if the shards differ in it; else null (choose as usual).
     */
    private static ShardState byPriority(ShardState[] all, Object session) {
        boolean any = false;
        for (ShardState s : all) {
            if (s.prioritiesNoted()) {
                any = true;
                break;
            }
        }
        if (!any) {
            return null;
        }
        ShardState best = null;
        int bestHint = -1;
        boolean differ = false;
        for (ShardState s : all) {
            if (!s.mayHaveAvailable(session)) {
                continue;
            }
            int hint = s.priorityHint();
            if (best != null && hint != bestHint) {
                differ = true;
            }
            if (hint > bestHint) {
                best = s;
                bestHint = hint;
            }
        }
        return differ ? best : null;
    }

    /**
     * Before a session takes a range: looks at the priorities of the messages within {@code window}
     * of each leased shard's next ones that were not looked at yet (in the message cache, else in
     * PostgreSQL: only the rows of other than the default priority), so that {@link ShardState#take}
     * can hand out the highest first. One session learns a shard at a time; the others take without
     * waiting for it. A failed read fails the receive, before anything was taken.
     */
    void learnPriorities(int window) {
        if (window <= 0) {
            return;
        }
        for (ShardState s : shards) {
            if (s.learnFrom(window) < 0 || !s.leaseLive() || !s.startLearning()) {
                continue;
            }
            try {
                int epoch = s.leaseEpoch;
                long from = s.learnFrom(window);
                if (from < 0) {
                    continue;
                }
                long to = s.learnTo(window);
                s.learned(from, to, MessageReader.priorities(engine, destination, s.shardNo, from, to), epoch);
            } finally {
                s.endLearning();
            }
        }
    }

    /** A consumer took a range: flow control's producers may go on (see {@link FlowControl}). */
    void rangeTaken() {
        flowControl.rangeTaken();
    }

    long untaken() {
        long n = 0;
        for (ShardState s : shards) {
            n += s.untakenHint();
        }
        return n;
    }

    /** Producer flow control after a producer's commit: see {@link FlowControl#throttle}. */
    void throttle() {
        flowControl.throttle();
    }

    /** A session gave back or released part of a shard: someone else may take it. */
    void released(boolean available) {
        // one plain waiter when there is something to take; selective waiters in any case, since
        // they may now take the shard alone
        waiters.wake(available ? 1 : 0);
    }

    /** A non-persistent message is available in memory. */
    void offerNonPersistent(NpEntry e, boolean first) {
        if (first) {
            nonPersistent.addFirst(e);
        } else {
            nonPersistent.addLast(e);
        }
        waiters.wake(1);
    }

    /** A NOTIFY arrived for a shard: poll the heads soon. */
    public void onWake() {
        synchronized (schedule) {
            pollRequested = true;
            waiterRegisteredNanos = 0;
        }
        waiters.wakeAll();
        engine.stats().recordWakeup();
    }

    private boolean hasAnyAvailable(boolean selective) {
        return hasAnyAvailable(selective, null);
    }

    private boolean hasAnyAvailable(boolean selective, Object session) {
        if (!nonPersistent.isEmpty()) {
            return true;
        }
        for (ShardState s : shards) {
            if (selective ? s.mayBeScanned() : s.mayHaveAvailable(session)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Nothing to deliver for {@code session} (null: any): take leases, poll heads or wait; shards
     * whose groups another session owns do not count. Returns false when the deadline passed. A
     * {@code selective} consumer has just scanned everything available without a match, so it
     * waits for the next change instead of returning at once.
     */
    boolean awaitMessages(long deadlineNanos, boolean selective, Object session) throws InterruptedException {
        long now = System.nanoTime();
        boolean poll;
        boolean acquire;
        lastConsumerNanos = now;
        synchronized (schedule) {
            acquire = now >= nextLeaseAttemptNanos && leasedCount() < shards.length;
            poll = pollRequested || now >= nextPollNanos;
            if (acquire) {
                nextLeaseAttemptNanos = now + TimeUnit.MILLISECONDS.toNanos(250);
            }
            if (poll) {
                pollRequested = false;
            }
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
        boolean available = found || hasAnyAvailable(false, session);
        if (poll) {
            // the schedule moves whenever a poll ran, also for a receive whose deadline has passed
            // (receiveNoWait): before, those polled the heads on every call and never backed off
            synchronized (schedule) {
                pollIntervalMillis =
                        available ? 20 : Math.min(engine.settings().pollMaxMillis(), pollIntervalMillis * 2);
                nextPollNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(pollIntervalMillis);
            }
        }
        if (!selective && available) {
            return true;
        }
        long remaining = deadlineNanos - System.nanoTime();
        if (remaining <= 0) {
            return false;
        }
        long untilPoll;
        synchronized (schedule) {
            untilPoll = nextPollNanos - System.nanoTime();
        }
        Waiters.Waiter w = waiters.register(selective);
        try {
            if (!selective && hasAnyAvailable(false, session)) {
                return true; // arrived between the check and the registration
            }
            long untilRedelivery = Long.MAX_VALUE;
            for (ShardState s : shards) {
                long at = s.nextDelayedNanos();
                if (at != Long.MAX_VALUE) {
                    untilRedelivery = Math.min(untilRedelivery, at - System.nanoTime());
                }
            }
            Waiters.park(w, Math.max(1_000_000L, Math.min(Math.min(remaining, untilPoll), untilRedelivery)));
        } finally {
            waiters.unregister(w);
        }
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        return true;
    }

    /**
     * Moves cursors over logged runs that start right at them ({@link ShardState#planCatchUp}),
     * each in a small transaction of its own. Called by a consumer that found nothing to deliver,
     * so the commits on the busy path never pay for it; until then the log stands for the cursor
     * (backlog, browse and a new lease holder read it). A failure is left to the next mover.
     */
    void catchUp() {
        for (ShardState s : shards) {
            ShardState.Move move = s.planCatchUp();
            if (move == null) {
                continue;
            }
            boolean done;
            try (Connection c = engine.borrowConnection()) {
                done = CommitPlan.moveCursor(
                        c,
                        this,
                        s.shardNo,
                        move.start(),
                        move.end(),
                        List.of(),
                        true,
                        false,
                        engine.instanceId(),
                        move.leaseSeq());
            } catch (SQLException | RuntimeException e) {
                done = false;
            }
            if (done) {
                s.committed(move.end(), List.of(), false, move.epoch());
                engine.cursorCommitted(destination.info(), s.shardNo, move.start(), move.end());
            } else {
                s.moveAborted(move.epoch());
            }
        }
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
        DestinationInfo d = destination.info();
        long me = engine.instanceId();
        try (Connection c = engine.dataSource().getConnection()) {
            List<long[]> candidates = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.CURSOR_SELECT_CANDIDATES))) {
                ps.setLong(1, id);
                ps.setLong(2, me);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        candidates.add(new long[] {rs.getInt(1), rs.getLong(2), rs.getLong(3)});
                    }
                }
            }
            engine.stats().dequeueSqlReads.increment();
            int fair = fairShare();
            List<Integer> wanted = new ArrayList<>();
            ShardState[] all = shards;
            int held = leasedCount();
            boolean idleHere = leasedBacklog() == 0;
            long recent = recentNanos();
            // backlog first, then free ones up to the fair share; beyond the fair share only while
            // nothing leased here has a backlog (the balancer moves the rest: LeaseBalancer)
            candidates.sort((a, b) -> Long.compare(b[2] - 1 - b[1], a[2] - 1 - a[1]));
            for (long[] cand : candidates) {
                int shard = (int) cand[0];
                if (shard >= all.length || all[shard].leased || all[shard].releasedWithin(recent)) {
                    continue;
                }
                boolean backlog = cand[2] - 1 > cand[1];
                if (held < fair || (backlog && idleHere)) {
                    wanted.add(shard);
                    held++;
                }
            }
            return takeLeases(c, wanted);
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "acquiring dequeue leases on " + d.name());
        }
    }

    /**
     * Takes the leases of {@code wanted} shards (those still free, expired or ours), on {@code c},
     * and starts dispatching from their cursors. Returns true when one of them has something to
     * deliver.
     */
    boolean takeLeases(Connection c, List<Integer> wanted) throws SQLException {
        if (wanted.isEmpty()) {
            return false;
        }
        acquiring.incrementAndGet();
        // one acquisition of this subscription at a time, and none of a shard leased here already:
        // taking our own row again would number the lease anew (lease_seq) and fail the guard of
        // every commit planned under the old number, though nothing here was re-read
        acquireLock.lock();
        try {
            List<Integer> free = new ArrayList<>(wanted.size());
            ShardState[] all = shards;
            for (int shard : wanted) {
                if (shard >= all.length || !all[shard].leased) {
                    free.add(shard);
                }
            }
            return !free.isEmpty() && takeLeasesCounted(c, free);
        } finally {
            acquireLock.unlock();
            acquiring.decrementAndGet();
        }
    }

    /**
     * Acquisitions of this subscription's leases in flight (between the statement and the local
     * {@link ShardState#leased}): the heartbeat does not give back a row held in the database but not
     * yet here while one runs ({@link Heartbeat}, orphaned leases).
     */
    final AtomicInteger acquiring = new AtomicInteger();

    private final java.util.concurrent.locks.ReentrantLock acquireLock = new java.util.concurrent.locks.ReentrantLock();

    /** Under {@code acquireLock}, for shards not leased here: the statement, then each shard taken. */
    private boolean takeLeasesCounted(Connection c, List<Integer> wanted) throws SQLException {
        DestinationInfo d = destination.info();
        long me = engine.instanceId();
        ShardState[] all = shards;
        boolean found = false;
        // the lease runs until at least acquireStart + ttl by the database's clock
        long acquireStart = System.nanoTime();
        long ttlNanos = TimeUnit.MILLISECONDS.toNanos(engine.settings().leaseTtlMillis());
        List<long[]> acquired;
        try {
            acquired = acquire(c, wanted, me, Query.CURSOR_LEASE_ACQUIRE, true);
        } catch (SQLException e) {
            if (!"55P03".equals(e.getSQLState())) {
                throw e;
            }
            // held beyond the lock timeout: a prepared (XA) transaction's row, taken once decided
            LOG.debug("{} - a cursor row of {} is locked by a prepared transaction: skipped", me, d.name());
            acquired = acquire(c, wanted, me, Query.CURSOR_LEASE_ACQUIRE_SKIP_LOCKED, false);
        }
        for (long[] row : acquired) {
            int shard = (int) row[0];
            long position = row[1];
            long head = row[2] - 1;
            found |= head > position;
            List<Long> ahead = loadAttempts(c, shard, position);
            all[shard].leased(position, head, ahead, acquireStart + ttlNanos, row[3]);
            LOG.debug("{} - leased {} of {} at position {}", me, shard, d.name(), position);
        }
        if (found) {
            waiters.wakeAll();
        }
        return found;
    }

    /** The balancer's fair share of shards for this subscription, else the instance-wide one. */
    int fairShare() {
        int f = balancedFair;
        return f > 0 ? f : engine.fairShare(shards.length);
    }

    /** Set by the {@link LeaseBalancer}: shards per instance among those consuming here (0: unknown). */
    volatile int balancedFair;
    /** Set by the {@link LeaseBalancer}: this instance's consumers want more shards (advertised by the heartbeat). */
    volatile boolean wantsMore;

    /** A shard given up here is not taken back by this instance within two heartbeats (others first). */
    long recentNanos() {
        return TimeUnit.MILLISECONDS.toNanos(2 * engine.settings().heartbeatMillis());
    }

    /** Leased shards here with messages waiting (this instance's view). */
    int leasedBacklog() {
        int n = 0;
        for (ShardState s : shards) {
            if (s.leased && s.backlog() > 0) {
                n++;
            }
        }
        return n;
    }

    /**
     * True while a consumer of this subscription is open here, or one received or waited within
     * {@code idleNanos} (a session's receive from a queue has no consumer object).
     */
    boolean consumersActive(long idleNanos) {
        long now = System.nanoTime();
        return openConsumers.get() > 0
                || now - lastConsumerNanos < idleNanos
                || now - flowControl.lastTakeNanos() < idleNanos
                || waiters.size() > 0;
    }

    /** Lock wait of a lease acquisition before it skips what a prepared transaction holds. */
    static final long ACQUIRE_LOCK_TIMEOUT_MS = 1_000;

    /**
     * Runs {@code query} ({@code cursor_lease_acquire} or its skip-locked variant) in a transaction
     * of its own, under {@link #ACQUIRE_LOCK_TIMEOUT_MS} when {@code bounded}; returns (shard,
     * position, next_seq, lease_seq) of each row taken.
     */
    private List<long[]> acquire(Connection c, List<Integer> wanted, long me, Query query, boolean bounded)
            throws SQLException {
        List<long[]> rows = new ArrayList<>();
        c.setAutoCommit(false);
        try {
            if (bounded) {
                Queries.setLocalLockTimeout(c, ACQUIRE_LOCK_TIMEOUT_MS);
            }
            try (PreparedStatement ps = c.prepareStatement(Queries.get(query, engine.onCitus()))) {
                ps.setLong(1, id);
                ps.setArray(2, c.createArrayOf("integer", wanted.toArray()));
                ps.setLong(3, me);
                ps.setLong(4, me);
                ps.setDouble(5, engine.settings().leaseTtlMillis() / 1000.0);
                ps.setLong(6, me);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        rows.add(new long[] {rs.getInt(1), rs.getLong(2), rs.getLong(3), rs.getLong(4)});
                    }
                }
            }
            c.commit();
        } catch (SQLException | RuntimeException e) {
            try {
                c.rollback();
            } catch (SQLException ignored) {
                // broken connection: the pool discards it
            }
            throw e;
        } finally {
            c.setAutoCommit(true);
        }
        return rows;
    }

    /** Loads the delivery attempts of a newly leased shard; returns what was consumed out of order. */
    private List<Long> loadAttempts(Connection c, int shard, long position) throws SQLException {
        ShardState s = shards[shard];
        List<Long> ahead = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.DEQUEUE_RANGE_SELECT))) {
            ps.setLong(1, id);
            ps.setInt(2, shard);
            ps.setLong(3, position);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    for (long seq = Math.max(rs.getLong(1), position + 1); seq <= rs.getLong(2); seq++) {
                        ahead.add(seq);
                    }
                }
            }
        }
        s.attempts.clear();
        try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.DELIVERY_ATTEMPT_SELECT))) {
            ps.setLong(1, id);
            ps.setInt(2, shard);
            ps.setLong(3, position);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    s.attempts.put(rs.getLong(1), rs.getInt(2));
                }
            }
        }
        return ahead;
    }

    /** Reads every shard's head; returns true if a leased shard has something to deliver. */
    boolean pollHeads() {
        if (!destination.headPollDue()) {
            return hasAnyAvailable(false); // another subscription of the destination just read the heads
        }
        try (Connection c = engine.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.SHARD_SELECT_HEADS))) {
            ps.setInt(1, destination.info().id());
            engine.stats().dequeueSqlReads.increment();
            boolean found = false;
            try (ResultSet rs = ps.executeQuery()) {
                ShardState[] all = shards;
                while (rs.next()) {
                    int shard = rs.getInt(1);
                    if (shard < all.length) {
                        long added = all[shard].raiseHead(rs.getLong(2) - 1);
                        found |= added > 0 && all[shard].mayHaveAvailable();
                    }
                }
            }
            if (found) {
                waiters.wakeAll();
            }
            return found || hasAnyAvailable(false);
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "polling " + destination.info().name());
        }
    }

    /** Asks the next enqueue on our leased shards to NOTIFY us. */
    private boolean registerWaiter() {
        List<Integer> leased = new ArrayList<>();
        synchronized (schedule) {
            long now = System.nanoTime();
            if (waiterRegisteredNanos != 0 && now - waiterRegisteredNanos < TimeUnit.SECONDS.toNanos(5)) {
                return false;
            }
            waiterRegisteredNanos = now;
        }
        for (ShardState s : shards) {
            if (s.leased) {
                leased.add(s.shardNo);
            }
        }
        if (leased.isEmpty()) {
            return false;
        }
        long me = engine.instanceId();
        try (Connection c = engine.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.SHARD_SET_WAITER))) {
            ps.setLong(1, me);
            ps.setInt(2, destination.info().id());
            ps.setArray(3, c.createArrayOf("integer", leased.toArray()));
            ps.setLong(4, me);
            boolean found = false;
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ShardState s = shards[rs.getInt(1)];
                    s.raiseHead(rs.getLong(2) - 1);
                    found |= s.mayHaveAvailable();
                }
            }
            return found;
        } catch (SQLException e) {
            throw SqlErrors.translate(
                    e, "registering for wake-ups on " + destination.info().name());
        }
    }

    // ---------------------------------------------------------------- heartbeat

    /**
     * Shards whose lease this instance gives back because nobody consumes here any more: no
     * consumer open or active for {@code idleNanos}, and no session holds anything of the shard.
     */
    List<Integer> releaseIdle(long idleNanos) {
        List<Integer> out = new ArrayList<>();
        if (consumersActive(idleNanos)) {
            return out;
        }
        for (ShardState s : shards) {
            if (s.releaseIfIdle(idleNanos, false)) {
                out.add(s.shardNo);
            }
        }
        return out;
    }

    /** The heartbeat extended these leases in the database until at least {@code untilNanos}. */
    void leasesExtended(java.util.Set<Integer> shardNos, long untilNanos) {
        ShardState[] all = shards;
        boolean revived = false;
        for (int n : shardNos) {
            if (n < all.length) {
                revived |= all[n].extendLease(untilNanos);
            }
        }
        if (revived) {
            waiters.wakeAll(); // the lease clock had run out: consumers may deliver from these again
        }
    }

    /**
     * Forgets leases the database no longer says are ours, as read by a query that started at
     * {@code readNanos}; a lease taken since (by a consumer thread, concurrently) is not in that
     * read and is kept.
     */
    void keepOnlyLeases(java.util.Set<Integer> renewed, long readNanos) {
        for (ShardState s : shards) {
            if (s.leased && !renewed.contains(s.shardNo) && s.leasedNanos - readNanos < 0) {
                LOG.warn(
                        "{} - lost the dequeue lease of {} of {}",
                        engine.instanceId(),
                        s,
                        destination.info().name());
                s.lost();
            }
        }
    }

    /** Per-shard backlog known to this instance (head minus position for leased shards; -1 if not leased). */
    public long[] knownBacklog() {
        ShardState[] all = shards;
        long[] out = new long[all.length];
        for (ShardState s : all) {
            out[s.shardNo] = s.leased ? s.backlog() : -1;
        }
        return out;
    }

    /** Non-persistent messages held in memory for this destination, oldest first (a snapshot). */
    public List<BrokerMessage> nonPersistentSnapshot() {
        List<BrokerMessage> out = new ArrayList<>();
        for (Iterator<NpEntry> it = nonPersistent.iterator(); it.hasNext(); ) {
            out.add(it.next().message);
        }
        return out;
    }
}
