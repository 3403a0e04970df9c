package io.shardq.broker.shard;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * What this instance knows of one shard of one destination, and who is delivering from it.
 *
 * <p><b>Range claims.</b> Several sessions of the instance may deliver from one shard at once:
 * each {@link #take} hands a session the next few undelivered sequence numbers (its prefetch),
 * so consumers do not queue behind each other on a shard while one of them processes and commits.
 * Every sequence number in {@code (position, dispatched]} is exactly one of: held by a session
 * (delivered or prefetched, not committed), {@link #returned} (given back by a rollback or an
 * idle session, delivered again first), or {@link #consumedAhead} (committed out of order, logged
 * in {@code shardq.dequeue_range}). Only the session holding {@code position + 1} can move the
 * cursor; the others log what they consume, and the next cursor move passes over it.
 *
 * <p>A selective consumer (one with a message selector) needs the shard to itself: it scans from
 * the cursor and passes over what does not match, which only works when nobody else holds part of
 * the range. It takes the shard {@link #exclusive}ly when no session holds anything there.
 *
 * <p>Threading: the mutable fields are guarded by this object's monitor; the volatile ones may
 * be read without it for a cheap "anything here?" check, then re-checked under it.
 */
final class ShardState {
    final int shardNo;
    /** The shard's head, shared with the other subscriptions' cursors of the same shard. */
    private final ShardHead head;
    /** True while this instance holds the dequeue lease of the (shard, subscription) cursor. */
    volatile boolean leased;
    /**
     * The lease clock: until when (nanoTime) the lease is certainly still ours, from the start of
     * the statement that took or last extended it plus the TTL. Past it, another instance may have
     * taken the shard (this one may have been stopped, a long GC pause): nothing is handed out until
     * the heartbeat has extended it again or found it gone.
     */
    private volatile long leaseExpiresNanos;

    /** The heartbeat extended the lease in the database; true if the lease clock had run out. */
    boolean extendLease(long untilNanos) {
        boolean wasLive = leaseLive();
        if (leased && untilNanos - leaseExpiresNanos > 0) {
            leaseExpiresNanos = untilNanos;
        }
        return !wasLive && leaseLive();
    }

    /**
     * The lease balancer gives this shard to another instance ({@link LeaseBalancer}): nothing new
     * is handed out here, the sessions finish what they hold, and the lease is released once none
     * holds anything. Guarded by the monitor; volatile for the lock-free hints.
     */
    private volatile boolean draining;

    private long drainingSinceNanos;
    /** nanoTime when the lease was last given up here (0: never); not taken back for a while. */
    private volatile long releasedNanos;

    /** Held, and certainly still ours by the lease clock. */
    boolean leaseLive() {
        return leased && System.nanoTime() - leaseExpiresNanos < 0;
    }

    /** nanoTime when the lease was last taken (after its statement committed). */
    volatile long leasedNanos;
    /** Incremented each time the lease is taken: claims from an older lease are void. */
    volatile int leaseEpoch;
    /**
     * The database's number of the acquisition this lease came from ({@code shardq.cursor.lease_seq},
     * V017): what a claim logs beyond the cursor names it, so that a commit planned before this
     * instance forgot the shard and took it again logs nothing (guarded by the monitor).
     */
    private long leaseSeq;
    /** Committed cursor position (valid while leased). */
    volatile long position;
    /** Highest sequence number handed to a session by {@link #take}. */
    private volatile long dispatched;
    /** Sessions holding sequence numbers of this shard. */
    private volatile int holders;
    /** A selective session scanning the shard alone, or null. */
    private volatile Object exclusive;
    /** Handed out, then given back undelivered or rolled back: delivered again first. */
    private final TreeSet<Long> returned = new TreeSet<>();

    /** Some given-back number may be handed out now (one not waiting for its redelivery delay). */
    private volatile boolean anyReturned;
    /**
     * Given back after a failed delivery with a redelivery delay ({@code shardq.redelivery.delay-ms}):
     * not handed out again before this nanoTime. The messages behind them are not held back.
     */
    private final java.util.TreeMap<Long, Long> delayedUntil = new java.util.TreeMap<>();
    /** nanoTime when the earliest delayed number becomes deliverable; {@code Long.MAX_VALUE}: none. */
    private volatile long nextDelayedNanos = Long.MAX_VALUE;
    /**
     * A destination with message groups: the one session taking from this shard now (null: none),
     * so that a group's messages reach one consumer at a time. Set by {@link #take}, cleared when
     * its holder gives everything back.
     */
    private volatile Object groupOwner;
    /** nanoTime of the last claim, for idle lease release. */
    private volatile long lastClaimNanos;
    /** Sequence numbers above the position already consumed out of order. */
    private final TreeSet<Long> consumedAhead = new TreeSet<>();
    /** Delivery attempts already recorded for sequence numbers above the position. */
    final ConcurrentHashMap<Long, Integer> attempts = new ConcurrentHashMap<>();
    /**
     * Untaken messages whose priority is known here and not the default: {@link #take} hands them
     * out by priority (see {@link #takeByPriority}). They may lie below {@link #dispatched}: the plain
     * sequence passes over them.
     */
    private final Priorities priorities = new Priorities();
    /** Numbers above {@link #dispatched} already handed out ahead of their turn, by priority. */
    private final TreeSet<Long> takenAhead = new TreeSet<>();
    /** Every message up to here had its priority looked at ({@link #learned}). */
    private volatile long knownUpTo;
    /** The highest priority among {@link #priorities} (-1: none): a lock-free hint for choosing a shard. */
    private volatile int topNoted = -1;
    /** One session at a time learns this shard's priorities; the others do not wait for it. */
    private final java.util.concurrent.atomic.AtomicBoolean learning = new java.util.concurrent.atomic.AtomicBoolean();

    /**
     * Test hook: runs on a consumer commit's thread after the commit was planned with a claim of
     * this shard and before its statements run (null: none).
     */
    volatile Runnable afterPlan;

    ShardState(int shardNo, ShardHead head) {
        this.shardNo = shardNo;
        this.head = head;
    }

    /** Highest committed sequence number known here (from local commits, notifies, polls). */
    long knownHead() {
        return head.get();
    }

    /** A racy, lock-free hint: might {@link #take} hand out something now? */
    boolean mayHaveAvailable() {
        return mayHaveAvailable(null);
    }

    /** As {@link #mayHaveAvailable()}, for {@code session}: false while another session owns the shard's groups. */
    boolean mayHaveAvailable(Object session) {
        Object owner = groupOwner;
        if (owner != null && session != null && owner != session) {
            return false;
        }
        return leaseLive()
                && exclusive == null
                && !draining
                && (anyReturned
                        || Math.max(dispatched, position) < head.get()
                        || topNoted >= 0
                        || (nextDelayedNanos != Long.MAX_VALUE && System.nanoTime() - nextDelayedNanos >= 0));
    }

    /** A racy hint: nanoTime when a number waiting for its redelivery delay is due; MAX_VALUE: none. */
    long nextDelayedNanos() {
        return nextDelayedNanos;
    }

    /** Under the monitor: is {@code seq} waiting for its redelivery delay at {@code now}? */
    private boolean delayed(long seq, long now) {
        Long until = delayedUntil.get(seq);
        return until != null && until - now > 0;
    }

    /** Under the monitor: recomputes {@link #anyReturned} and {@link #nextDelayedNanos}. */
    private void refreshReturned(long now) {
        if (!delayedUntil.isEmpty()) {
            delayedUntil.headMap(position, true).clear(); // consumed meanwhile
        }
        boolean any = false;
        for (long seq : returned) {
            if (!delayed(seq, now)) {
                any = true;
                break;
            }
        }
        long next = Long.MAX_VALUE;
        for (long until : delayedUntil.values()) {
            if (until - now > 0 && (next == Long.MAX_VALUE || until - next < 0)) {
                next = until;
            }
        }
        anyReturned = any;
        nextDelayedNanos = next;
    }

    /** A racy count of the committed messages here that no session took yet (0 when not deliverable). */
    long untakenHint() {
        return leaseLive() ? Math.max(0, head.get() - Math.max(dispatched, position)) : 0;
    }

    /** A racy hint for selective consumers: something above the cursor and nobody holds the shard. */
    boolean mayBeScanned() {
        return leaseLive() && exclusive == null && !draining && position < head.get();
    }

    /** A racy hint: does any session hold part of this shard? */
    boolean held() {
        return holders > 0;
    }

    /** The next sequence number {@link #take} would hand out (a hint for cache affinity). */
    long nextHint() {
        return Math.max(dispatched, position) + 1;
    }

    /** Records how long the sequence numbers just taken waited since they became visible. */
    void recordWaits(List<Long> taken, StepTimes times) {
        head.recordWaits(taken, System.nanoTime(), times);
    }

    /** Raises the known head; returns how many new messages became visible. */
    long raiseHead(long newHead) {
        return head.raise(newHead);
    }

    /**
     * The lease was taken at {@code cursor}: start dispatching from the cursor. Returns false, and
     * changes nothing but the head, when the lease was already held here (a guard: a subscription's
     * acquisitions run one at a time and leave out shards leased here, and a second one must never
     * void the claims taken since).
     */
    synchronized boolean leased(
            long cursor, long dbHead, Collection<Long> loggedAhead, long expiresNanos, long leaseSeq) {
        head.raise(dbHead);
        if (leased) {
            return false;
        }
        leaseEpoch++;
        this.leaseSeq = leaseSeq;
        position = cursor;
        dispatched = cursor;
        returned.clear();
        anyReturned = false;
        delayedUntil.clear();
        nextDelayedNanos = Long.MAX_VALUE;
        groupOwner = null;
        forgetPriorities(cursor);
        consumedAhead.clear();
        consumedAhead.addAll(loggedAhead);
        holders = 0;
        exclusive = null;
        moverActive = false;
        draining = false;
        lastClaimNanos = System.nanoTime();
        leasedNanos = lastClaimNanos;
        leaseExpiresNanos = expiresNanos;
        leased = true;
        return true;
    }

    /**
     * Gives the lease up if no session holds anything here and either {@code force} or nothing
     * was taken for {@code idleNanos}; checked and done under the monitor, so a session cannot
     * take a range in between. Returns true when the lease was given up.
     */
    synchronized boolean releaseIfIdle(long idleNanos, boolean force) {
        if (!leased || holders > 0 || !(force || System.nanoTime() - lastClaimNanos > idleNanos)) {
            return false;
        }
        lost();
        return true;
    }

    /**
     * Hands a session up to {@code max} undelivered sequence numbers: given-back ones first (unless
     * waiting for their redelivery delay), then new ones, ascending or, when messages of other than
     * the default priority are known here, by priority within {@code priorityWindow} (0: ascending
     * always; see {@link #takeByPriority}). {@code firstFromSession} counts the session as a holder.
     * With {@code groupSession} (a destination with message groups) only that session may take
     * while it holds anything here.
     */
    synchronized List<Long> take(int max, boolean firstFromSession, Object groupSession, int priorityWindow) {
        if (!leaseLive() || exclusive != null || draining) {
            return List.of();
        }
        if (groupSession != null && groupOwner != null && groupOwner != groupSession) {
            return List.of();
        }
        List<Long> out = new ArrayList<>(Math.min(max, 16));
        if (!returned.isEmpty()) {
            long now = System.nanoTime();
            for (var it = returned.iterator(); it.hasNext() && out.size() < max; ) {
                long seq = it.next();
                if (!delayed(seq, now)) {
                    it.remove();
                    delayedUntil.remove(seq);
                    out.add(seq);
                }
            }
            refreshReturned(now);
        }
        if (!takenAhead.isEmpty() || (priorityWindow > 0 && priorities.size() > 0)) {
            takeByPriority(out, max, priorityWindow);
        } else {
            long next = Math.max(dispatched, position) + 1;
            long last = head.get();
            while (out.size() < max && next <= last) {
                if (!consumedAhead.contains(next)) {
                    out.add(next);
                }
                next++;
            }
            if (next - 1 > dispatched) {
                dispatched = next - 1;
            }
        }
        if (!out.isEmpty()) {
            if (firstFromSession) {
                holders++;
            }
            if (groupSession != null) {
                groupOwner = groupSession;
            }
            lastClaimNanos = System.nanoTime();
        }
        return out;
    }

    /**
     * Under the monitor: new numbers by priority. The messages considered are the untaken ones from
     * the oldest untaken ({@code start}) to {@code start + window - 1}: the highest priority among
     * them goes first, the oldest within a priority, and unknown priorities count as the default.
     * A message of low priority thus waits at most {@code window} deliveries of its shard, and the
     * cursor (which cannot pass it) stays within that distance of the shard's deliveries.
     */
    private void takeByPriority(List<Long> out, int max, int window) {
        long last = head.get();
        while (out.size() < max) {
            long next = passTaken(last);
            long lowest = priorities.lowest();
            long pick;
            if (window <= 0) {
                pick = next < 0 ? (lowest == Long.MAX_VALUE ? -1 : lowest) : Math.min(next, lowest);
            } else {
                long end = Math.min(next < 0 ? Long.MAX_VALUE : next, lowest) + window - 1;
                pick = priorities.best(9, Priorities.DEFAULT + 1, end);
                if (pick < 0 && next > 0 && next <= end) {
                    pick = next;
                }
                if (pick < 0) {
                    pick = priorities.best(Priorities.DEFAULT - 1, 0, end);
                }
            }
            if (pick < 0) {
                break;
            }
            if (pick == next) {
                dispatched = next;
            } else {
                priorities.remove(pick);
                if (pick > dispatched) {
                    takenAhead.add(pick);
                }
            }
            out.add(pick);
        }
        passTaken(last);
        topNoted = priorities.top();
    }

    /**
     * Under the monitor: moves {@link #dispatched} over what is consumed, taken ahead or noted with
     * a priority (those stay in {@link #priorities}); returns the next number of the plain sequence
     * up to {@code last}, or -1.
     */
    private long passTaken(long last) {
        long n = Math.max(dispatched, position) + 1;
        while (n <= last && (consumedAhead.contains(n) || takenAhead.contains(n) || priorities.contains(n))) {
            n++;
        }
        if (n - 1 > dispatched) {
            dispatched = n - 1;
            takenAhead.headSet(dispatched, true).clear();
        }
        return n <= last ? n : -1;
    }

    /**
     * A racy hint: the first number whose priority a session should look at before taking, with a
     * window of {@code window} (0: none), or -1 when nothing needs learning: when less than half the
     * window past the last number handed out is known, it learns up to the whole window past it (so
     * a backlog read from PostgreSQL costs one look per half window, not one per take).
     */
    long learnFrom(int window) {
        if (window <= 0 || exclusive != null || !leased) {
            return -1;
        }
        long base = Math.max(dispatched, position);
        long known = knownUpTo;
        if (window > 1 && known - base >= window / 2) {
            return -1; // enough is known ahead: learn again in batches of at least half the window
        }
        long from = Math.max(known, base) + 1;
        return from <= Math.min(head.get(), base + window) ? from : -1;
    }

    /** The last number to look at when learning from {@link #learnFrom}. */
    long learnTo(int window) {
        return Math.min(head.get(), Math.max(dispatched, position) + window);
    }

    /** Claims the learning of this shard's priorities; false if another session is at it. */
    boolean startLearning() {
        return learning.compareAndSet(false, true);
    }

    void endLearning() {
        learning.set(false);
    }

    /**
     * The priorities of messages {@code from..to} were looked at (under lease {@code epoch}): {@code
     * noted} holds those not of the default priority, each {@code seq * 16 + priority}. Those handed
     * out meanwhile (a take does not wait for learning) are left out.
     */
    synchronized void learned(long from, long to, long[] noted, int epoch) {
        if (epoch != leaseEpoch || !leased || exclusive != null || from > Math.max(knownUpTo, dispatched) + 1) {
            return; // the lease or a selective scan came between: what was learned may not fit
        }
        for (long packed : noted) {
            long seq = packed / 16;
            if (seq > dispatched
                    && seq > knownUpTo
                    && !takenAhead.contains(seq)
                    && !consumedAhead.contains(seq)
                    && !returned.contains(seq)) {
                priorities.add(seq, (int) (packed % 16));
            }
        }
        if (to > knownUpTo) {
            knownUpTo = to;
        }
        topNoted = priorities.top();
    }

    /** Under the monitor: forgets known priorities; learning starts again after {@code from}. */
    private void forgetPriorities(long from) {
        priorities.clear();
        takenAhead.clear();
        knownUpTo = from;
        topNoted = -1;
    }

    /** A racy hint for choosing a shard: the best priority waiting untaken here (-1: nothing known). */
    int priorityHint() {
        int t = topNoted;
        return Math.max(t, Math.max(dispatched, position) < head.get() ? Priorities.DEFAULT : -1);
    }

    /** A racy hint: are messages of other than the default priority known to wait here? */
    boolean prioritiesNoted() {
        return topNoted >= 0;
    }

    /** A selective session takes the shard alone: only when nobody holds anything here. */
    synchronized boolean takeExclusive(Object session) {
        if (!leaseLive() || exclusive != null || draining || holders > 0 || position >= head.get()) {
            return false;
        }
        exclusive = session;
        holders = 1;
        returned.clear(); // nobody holds anything: everything above the cursor is scanned again
        anyReturned = false;
        dispatched = position;
        forgetPriorities(position); // a scan delivers in sequence order
        lastClaimNanos = System.nanoTime();
        return true;
    }

    /** The next sequence number a selective session scans at or after {@code from}, or -1. */
    synchronized long nextUnconsumed(long from) {
        long seq = Math.max(from, position + 1);
        long last = head.get();
        long now = delayedUntil.isEmpty() ? 0 : System.nanoTime();
        while (seq <= last) {
            if (!consumedAhead.contains(seq) && (now == 0 || !delayed(seq, now))) {
                return seq;
            }
            seq++;
        }
        return -1;
    }

    /**
     * A session gives sequence numbers back undelivered or rolled back, and stops holding the
     * shard if {@code release}. Returns true when something is available to others now.
     */
    synchronized boolean giveBack(Collection<Long> seqs, boolean release, int epoch) {
        return giveBack(seqs, release, epoch, Map.of());
    }

    /**
     * As {@link #giveBack(Collection, boolean, int)}, with a redelivery delay in nanoseconds for
     * some of them (those whose delivery failed): they are not handed out, nor scanned, before it.
     */
    synchronized boolean giveBack(Collection<Long> seqs, boolean release, int epoch, Map<Long, Long> delayNanos) {
        if (epoch == leaseEpoch) {
            long now = System.nanoTime();
            for (long seq : seqs) {
                if (seq > position && !consumedAhead.contains(seq)) {
                    if (exclusive == null) {
                        returned.add(seq);
                    }
                    Long d = delayNanos.get(seq);
                    if (d != null && d > 0) {
                        delayedUntil.put(seq, now + d);
                    }
                }
            }
            refreshReturned(now);
            if (release) {
                if (exclusive != null) {
                    exclusive = null;
                    dispatched = position;
                    knownUpTo = position;
                }
                holders = Math.max(0, holders - 1);
                if (holders == 0) {
                    groupOwner = null; // its groups may move to another consumer now
                }
            }
        }
        return mayHaveAvailable();
    }

    /**
     * Where a commit moves the cursor: from {@code start} to {@code end}, read together. {@code
     * mover}: this commit is the shard's one cursor mover in flight (see {@link #plannedMove}).
     */
    record Move(long start, long end, boolean logToClear, boolean mover, int epoch, long leaseSeq) {}

    /** A commit moving the cursor is in flight (between its plan and its outcome). */
    private boolean moverActive;

    /** nanoTime of the last commit of a consumption here. */
    private long lastCommitNanos;

    /**
     * A log left at the cursor is passed by an extra transaction only once the shard had no commit
     * for this long: while consumers keep committing, the next commit passes over it for free (at
     * 16 pairs, catching up at once cost one extra transaction for every 3.5 consumer commits).
     */
    private static final long CATCH_UP_AFTER_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    /**
     * Where the cursor may move when a session commits {@code taken}: over the contiguous run of
     * messages consumed now or before. {@code outOfOrder} receives what was taken beyond it.
     *
     * <p>At most one commit per shard moves the cursor at a time: its {@code UPDATE ... WHERE
     * position = start} must find the position this plan read. While one is in flight, other
     * commits log what they took instead (one row per run, as cheap as a move), never wait for it:
     * consumers of one shard commit in parallel, and the next mover passes over the log.
     */
    synchronized Move plannedMove(Collection<Long> taken, List<Long> outOfOrder) {
        long p = position;
        if (!moverActive) {
            java.util.Set<Long> mine = new java.util.HashSet<>(taken);
            while (mine.contains(p + 1) || consumedAhead.contains(p + 1)) {
                p++;
            }
        }
        for (long seq : taken) {
            if (seq > p) {
                outOfOrder.add(seq);
            }
        }
        boolean mover = p > position;
        if (mover) {
            moverActive = true;
        }
        return new Move(
                position,
                p,
                mover && !consumedAhead.isEmpty() && consumedAhead.first() <= p,
                mover,
                leaseEpoch,
                leaseSeq);
    }

    /**
     * When what was logged starts right at the cursor and no mover is in flight (the last commits
     * on the shard all logged, or a log landed just after a mover), the cursor can pass over it
     * without consuming anything: an idle consumer does that ({@code BrokerSession#catchUp}), so
     * that the backlog and slice retirement do not wait for the next commit. Returns that move,
     * made this shard's mover, or null.
     */
    synchronized Move planCatchUp() {
        if (!leased
                || moverActive
                || consumedAhead.isEmpty()
                || consumedAhead.first() != position + 1
                || System.nanoTime() - lastCommitNanos < CATCH_UP_AFTER_NANOS) {
            return null;
        }
        long p = position;
        while (consumedAhead.contains(p + 1)) {
            p++;
        }
        moverActive = true;
        return new Move(position, p, true, true, leaseEpoch, leaseSeq);
    }

    /** A planned cursor move did not happen (the commit failed). */
    synchronized void moveAborted(int epoch) {
        if (epoch == leaseEpoch) {
            moverActive = false;
        }
    }

    /** After the commit of a consumption: the cursor moved to {@code p}, {@code ahead} logged. */
    synchronized void committed(long p, Collection<Long> ahead, boolean release, int epoch) {
        if (epoch != leaseEpoch) {
            return;
        }
        lastCommitNanos = System.nanoTime();
        if (p > position) {
            position = p;
            moverActive = false;
        }
        consumedAhead.addAll(ahead);
        consumedAhead.headSet(position, true).clear();
        if (!takenAhead.isEmpty() || priorities.size() > 0) {
            takenAhead.headSet(position, true).clear();
            priorities.removeUpTo(position);
            topNoted = priorities.top();
        }
        if (release) {
            if (exclusive != null) {
                exclusive = null;
                dispatched = position;
                knownUpTo = position;
            }
            holders = Math.max(0, holders - 1);
            if (holders == 0) {
                groupOwner = null; // its groups may move to another consumer now
            }
        }
    }

    /**
     * What this instance holds of the shard may be wrong (a commit's outcome is unknown, or a
     * guard found the cursor elsewhere): drop it, unless a newer lease was taken since. The
     * database lease stays this instance's; the next acquisition re-reads everything.
     */
    synchronized void forget(int epoch) {
        if (epoch == leaseEpoch && leased) {
            lost();
        }
    }

    /** The lease is gone: nothing may be delivered from here until it is taken again. */
    synchronized void lost() {
        draining = false;
        leased = false;
        moverActive = false;
        leaseEpoch++;
        holders = 0;
        exclusive = null;
        returned.clear();
        anyReturned = false;
        delayedUntil.clear();
        nextDelayedNanos = Long.MAX_VALUE;
        groupOwner = null;
        forgetPriorities(position);
    }

    /** Starts giving the lease away (see {@link #draining}); false if not leased or draining already. */
    synchronized boolean startDraining() {
        if (!leased || draining) {
            return false;
        }
        draining = true;
        drainingSinceNanos = System.nanoTime();
        return true;
    }

    boolean draining() {
        return draining;
    }

    /**
     * A draining lease: gives it up when no session holds anything here (true: release the row
     * now); draining longer than {@code maxNanos} (a session sits on what it prefetched) is called
     * off, so that the shard is served again.
     */
    synchronized boolean releaseIfDrained(long maxNanos) {
        if (!leased || !draining) {
            return false;
        }
        if (holders == 0) {
            lost();
            // given away on purpose (another instance asked): not taken back here for a while, so
            // the asker gets it. A lease lost otherwise (a guard found it moved, the database says
            // it is not ours) may be taken again at once when it is free.
            releasedNanos = System.nanoTime();
            return true;
        }
        if (System.nanoTime() - drainingSinceNanos > maxNanos) {
            draining = false;
        }
        return false;
    }

    /** True when this instance gave the lease away within {@code nanos}: others may take it first. */
    boolean releasedWithin(long nanos) {
        long r = releasedNanos;
        return r != 0 && System.nanoTime() - r < nanos;
    }

    /** Sessions holding sequence numbers here (a racy hint). */
    int holders() {
        return holders;
    }

    /** Committed cursor position plus what was consumed ahead of it (for stats). */
    synchronized long backlog() {
        return Math.max(0, head.get() - position - consumedAhead.size());
    }

    @Override
    public String toString() {
        return "shard " + shardNo + " (head " + head.get() + ", position " + position + (leased ? ", leased" : "")
                + ")";
    }
}
