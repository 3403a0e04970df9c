package io.shardq.broker.shard;

import io.shardq.broker.catalog.DestinationInfo;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * One destination as this instance serves it: the heads of its shards (shared by every
 * subscription's cursors), the group-commit writer of each shard, the slices it knows, enqueue
 * affinity (which shards its producers write to), and its subscriptions ({@link Subscription}: a
 * queue has one). No lock of the destination sits on the send, receive or commit path.
 */
public final class DestinationRuntime {

    final Engine engine;
    volatile DestinationInfo info;
    private volatile ShardHead[] heads;
    private volatile SendCommitter[] writers;
    final SliceMap slices;
    /** The queue's one subscription; null for a topic. */
    private volatile Subscription queue;
    /** A topic's subscriptions that this instance serves (a consumer opened one here), by id. */
    private final java.util.concurrent.ConcurrentHashMap<Long, Subscription> topicSubs =
            new java.util.concurrent.ConcurrentHashMap<>();
    /** A topic's subscriptions as its publishers see them (null until first needed, or stale). */
    private volatile TopicView view;

    private final EnqueueOwnership ownership;
    /** This instance's counts for the destination ({@link #counters()}); one add per event, no allocation. */
    final java.util.concurrent.atomic.LongAdder enqueued = new java.util.concurrent.atomic.LongAdder();

    final java.util.concurrent.atomic.LongAdder dequeued = new java.util.concurrent.atomic.LongAdder();
    final java.util.concurrent.atomic.LongAdder redelivered = new java.util.concurrent.atomic.LongAdder();
    final java.util.concurrent.atomic.LongAdder deadLettered = new java.util.concurrent.atomic.LongAdder();
    final java.util.concurrent.atomic.LongAdder expired = new java.util.concurrent.atomic.LongAdder();

    public DestinationRuntime(Engine engine, DestinationInfo info) {
        this.engine = engine;
        this.info = info;
        this.slices = new SliceMap(info.id());
        this.heads = newHeads(info.shardCount(), null);
        this.writers = newWriters(heads.length, null);
        this.cursorWriter = new CursorWriter(engine);
        this.ownership = new EnqueueOwnership(this, engine);
        this.queue = info.isQueue() ? new Subscription(engine, this, info.queueSubscription(), -1, heads) : null;
    }

    public DestinationInfo info() {
        return info;
    }

    /** What this instance counted for the destination since its runtime was made. */
    public io.shardq.broker.DestinationCounters counters() {
        DestinationInfo d = info;
        return new io.shardq.broker.DestinationCounters(
                d.name(),
                d.kind(),
                enqueued.sum(),
                dequeued.sum(),
                redelivered.sum(),
                deadLettered.sum(),
                expired.sum());
    }

    /** The queue's subscription: the owner of its per-shard cursors. */
    public Subscription queue() {
        Subscription q = queue;
        if (q == null) {
            throw new io.shardq.broker.ShardQException(
                    io.shardq.broker.ErrorKind.ILLEGAL_STATE,
                    info.name() + " is a topic: receive from it through a subscription");
        }
        return q;
    }

    /** Every subscription this instance serves: a queue's one, or a topic's with local consumers. */
    public java.util.Collection<Subscription> subscriptions() {
        Subscription q = queue;
        return q != null ? List.of(q) : topicSubs.values();
    }

    /** A topic's subscription as this instance serves it, made on first use. */
    public Subscription topicSubscription(long id, int bit) {
        return topicSubs.computeIfAbsent(id, k -> new Subscription(engine, this, id, bit, heads));
    }

    /** At most this many sequence numbers below a shard's new floor are dropped at once. */
    private static final long TRIM_SPAN = 4096;

    /**
     * Drops from the message cache the topic messages of {@code shard} that every local
     * subscription with a consumer has consumed (their committed cursors all passed them), after a
     * subscription's commit there. A topic's message cannot leave the cache when one subscription
     * takes it, as a queue's does; without this, consumed messages would stay until evicted, and
     * Caffeine's admission policy (TinyLFU) then prefers them, read once per subscription, to the
     * new messages not read yet, so the subscriptions would read those from the database, each on
     * its own. Subscriptions served by another instance (their lease is not here) and those
     * without a local consumer read from the database when they come back.
     */
    void trimCache(int shard) {
        ShardHead[] hs = heads;
        if (shard >= hs.length) {
            return;
        }
        long floor = Long.MAX_VALUE;
        for (Subscription sub : topicSubs.values()) {
            if (sub.openConsumers.get() == 0) {
                continue;
            }
            ShardState[] ss = sub.shards();
            if (shard < ss.length && ss[shard].leased) {
                floor = Math.min(floor, ss[shard].position);
            }
        }
        java.util.concurrent.atomic.AtomicLong cachedFrom = hs[shard].cachedFrom;
        long prev = cachedFrom.get();
        if (floor == Long.MAX_VALUE || floor <= prev || !cachedFrom.compareAndSet(prev, floor)) {
            return;
        }
        int dest = info.id();
        for (long seq = Math.max(prev, floor - TRIM_SPAN) + 1; seq <= floor; seq++) {
            engine.cache().remove(dest, shard, seq);
        }
    }

    /** A topic subscription this instance no longer serves (deleted, or its last local consumer closed). */
    void dropTopicSubscription(long id) {
        Subscription s = topicSubs.remove(id);
        if (s != null) {
            s.waiters.wakeAll();
        }
    }

    /**
     * The subscriptions publishers stamp against: a queue's is empty; a topic's is read on first
     * use and again once the catalog says the version moved (read on {@code c}, which may be a
     * write's own connection).
     */
    TopicView topicView(Connection c) throws SQLException {
        if (info.isQueue()) {
            return TopicView.QUEUE;
        }
        TopicView v = currentTopicView();
        return v != null ? v : reloadTopicView(c);
    }

    /** The topic's view when it is known and current, else null (then {@link #topicView(Connection)} reads it). */
    TopicView currentTopicView() {
        TopicView v = view;
        return v != null && v.version >= info.subVersion() ? v : null;
    }

    /** Reads the topic's subscriptions again, on {@code c} (inside a write's transaction if it is in one). */
    TopicView reloadTopicView(Connection c) throws SQLException {
        TopicView fresh = TopicView.load(c, info.id(), view);
        synchronized (this) {
            if (view == null || fresh.version >= view.version) {
                view = fresh;
                // subscriptions deleted elsewhere (unsubscribed, removed, expired with their instance)
                topicSubs.keySet().removeIf(id -> fresh.entry(id) == null);
            }
        }
        return fresh;
    }

    /** nanoTime of the last read of the shard heads by any subscription (they share the heads). */
    private final java.util.concurrent.atomic.AtomicLong lastHeadPollNanos =
            new java.util.concurrent.atomic.AtomicLong(System.nanoTime() - HEAD_POLL_SPACING_NANOS);

    /** One read of the heads serves every subscription of the destination for this long. */
    private static final long HEAD_POLL_SPACING_NANOS = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(10);

    /**
     * True for the one caller that may read the shard heads now: at most one read per 10 ms for
     * all the destination's subscriptions (a topic's 1,000 idle consumers read them once, not 1,000
     * times).
     */
    boolean headPollDue() {
        long now = System.nanoTime();
        long last = lastHeadPollNanos.get();
        return now - last >= HEAD_POLL_SPACING_NANOS && lastHeadPollNanos.compareAndSet(last, now);
    }

    /** The head of a shard as this instance knows it. */
    long head(int shardNo) {
        return heads[shardNo].get();
    }

    /**
     * Where a batch of sends to {@code shardNo} is committed: the instance's shared committer, or
     * the shard's own with {@code shardq.commit.shared-sends=false} ({@link SendCommitter}).
     */
    SendCommitter writer(int shardNo) {
        return engine.settings().sharedSends() ? engine.sendCommitter() : writers[shardNo];
    }

    /** Group commit of this topic's plain consumer commits (see {@link CursorWriter}). */
    private final CursorWriter cursorWriter;

    CursorWriter cursorWriter() {
        return cursorWriter;
    }

    /**
     * Takes a fresh catalog snapshot (flags, max attempts, more shards, fewer once drained shards
     * are retired). A shrink's fences are set on the heads before the snapshot is published, since
     * producers read the active shard count from it: no local producer leaves a draining shard
     * before the local consumers respect the fences.
     */
    public synchronized void refresh(DestinationInfo fresh) {
        if (fresh.shardCount() != heads.length) {
            for (int retired = fresh.shardCount(); retired < heads.length; retired++) {
                // a shrink retired it: a later grow makes a shard of that number from sequence 1 again
                slices.forgetShard(retired);
                engine.cache().removeShard(info.id(), retired);
            }
            writers = newWriters(fresh.shardCount(), writers);
            heads = newHeads(fresh.shardCount(), heads);
            for (Subscription sub : subscriptions()) {
                sub.resize(heads);
            }
        }
        applyFences(fresh);
        info = fresh;
        for (Subscription sub : subscriptions()) {
            sub.waiters.wakeAll();
        }
        // more shards: producers of this instance take their share of the new ones at once
        // (EnqueueOwnership recomputes when the shard count it was computed for is not the current one)
    }

    /**
     * Sets the fences {@code fresh} names (V015); lifts those it does not name only when the
     * database has none left for the destination now (a snapshot read before the shrink began must
     * not lift a fence that an enqueue statement reported since).
     */
    private void applyFences(DestinationInfo fresh) {
        ShardHead[] hs = heads;
        boolean stale = false;
        for (int i = 0; i < hs.length; i++) {
            Long f = i < fresh.fences().size() ? fresh.fences().get(i) : null;
            if (f != null) {
                hs[i].fence(f);
            } else if (hs[i].fenced()) {
                stale = true;
            }
        }
        if (!stale || fencedInDatabase()) {
            return;
        }
        for (int i = 0; i < hs.length; i++) {
            Long f = i < fresh.fences().size() ? fresh.fences().get(i) : null;
            if (f == null && hs[i].fenced()) {
                long added = hs[i].lift();
                if (added > 0) {
                    for (Subscription sub : subscriptions()) {
                        sub.messagesArrived(added);
                    }
                }
            }
        }
    }

    /** True when a shard of the destination still has a fence (or the database cannot tell). */
    private boolean fencedInDatabase() {
        try (Connection c = engine.dataSource().getConnection();
                java.sql.PreparedStatement ps = c.prepareStatement(
                        io.shardq.broker.internal.Queries.get(io.shardq.broker.internal.Query.SHARD_SELECT_FENCED))) {
            ps.setInt(1, info.id());
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        } catch (SQLException | RuntimeException e) {
            return true; // lifted at the next refresh
        }
    }

    /** An enqueue statement on {@code shard} returned its fence: set before the commit raises the head. */
    void fence(int shard, long fence) {
        ShardHead[] hs = heads;
        if (shard < hs.length) {
            hs[shard].fence(fence);
        }
    }

    private static ShardHead[] newHeads(int n, ShardHead[] old) {
        ShardHead[] h = new ShardHead[n];
        for (int i = 0; i < n; i++) {
            h[i] = old != null && i < old.length ? old[i] : new ShardHead();
        }
        return h;
    }

    private SendCommitter[] newWriters(int n, SendCommitter[] old) {
        SendCommitter[] w = new SendCommitter[n];
        for (int i = 0; i < n; i++) {
            w[i] = old != null && i < old.length ? old[i] : new SendCommitter(engine);
        }
        return w;
    }

    /** The retirer freed the slot of this slice. */
    public void forgetSlice(int shard, long firstSeq) {
        slices.remove(shard, firstSeq);
    }

    // ---------------------------------------------------------------- enqueue affinity

    /** Which shards this instance owns for enqueue, and where its producers write ({@link EnqueueOwnership}). */
    EnqueueOwnership ownership() {
        return ownership;
    }

    /** True while this instance produces to the destination (advertised by the heartbeat). */
    boolean producing() {
        return ownership.producing();
    }

    /** The destination's shard count as this instance knows it. */
    int shardCount() {
        return heads.length;
    }

    /** The shards that take new messages (all but the draining ones of a shrink), at most {@link #shardCount}. */
    int activeShards() {
        return Math.min(info.activeShards(), heads.length);
    }

    /**
     * The shard a producing session writes its next transaction to (call it at a transaction
     * boundary only): see {@link EnqueueOwnership#producerShard}. {@code current} is the session's
     * shard so far (null: a new session); {@code spread} sessions take the next shard round robin.
     */
    int producerShard(Integer current, boolean spread) {
        return ownership.producerShard(current, spread);
    }

    // ---------------------------------------------------------------- delivery

    /**
     * The server changed (a failover, a restart; {@code BrokerCore.serverChanged}): it may lack
     * committed messages this instance saw, and hand their sequence numbers out again. Every
     * subscription's lease of every shard is dropped here (taken again, re-reading position, log,
     * attempts and head from the new server), the cached messages of each shard go, and the known
     * heads start again from nothing.
     */
    public void serverChanged() {
        ShardHead[] hs = heads;
        for (Subscription sub : subscriptions()) {
            for (ShardState s : sub.shards()) {
                s.lost();
            }
        }
        for (int shard = 0; shard < hs.length; shard++) {
            engine.cache().removeShard(info().id(), shard);
            hs[shard].reset();
        }
    }

    /** After a commit of messages up to {@code head} on a shard: wake the consumers that can use them. */
    void advanceHead(int shard, long head) {
        long added = heads[shard].raise(head);
        if (added > 0) {
            for (Subscription sub : subscriptions()) {
                sub.messagesArrived(added);
            }
        }
    }
}
