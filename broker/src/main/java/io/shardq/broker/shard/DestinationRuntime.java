package io.shardq.broker.shard;

import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.internal.Queries;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One destination as this instance serves it: the heads of its shards (shared by every
 * subscription's cursors), the group-commit writer of each shard, the slices it knows, enqueue
 * affinity (which shards its producers write to), and its subscriptions ({@link Subscription}: a
 * queue has one). No lock of the destination sits on the send, receive or commit path.
 */
public final class DestinationRuntime {
    private static final Logger LOG = LoggerFactory.getLogger(DestinationRuntime.class);

    final Engine engine;
    volatile DestinationInfo info;
    private volatile ShardHead[] heads;
    private volatile ShardWriter[] writers;
    final SliceMap slices;
    /** The queue's one subscription (topics will have many). */
    private volatile Subscription queue;

    private final AtomicInteger producerCounter = new AtomicInteger();
    private final ThreadLocal<Integer> threadShard = new ThreadLocal<>();

    public DestinationRuntime(Engine engine, DestinationInfo info) {
        this.engine = engine;
        this.info = info;
        this.slices = new SliceMap(info.id());
        this.heads = newHeads(info.shardCount(), null);
        this.writers = newWriters(heads.length, null);
        this.queue = new Subscription(engine, this, info.queueSubscription(), heads);
    }

    public DestinationInfo info() {
        return info;
    }

    /** The queue's subscription: the owner of its per-shard cursors. */
    public Subscription queue() {
        return queue;
    }

    /** The head of a shard as this instance knows it. */
    long head(int shardNo) {
        return heads[shardNo].get();
    }

    ShardWriter writer(int shardNo) {
        return writers[shardNo];
    }

    /** Takes a fresh catalog snapshot (flags, max attempts, more shards). */
    public synchronized void refresh(DestinationInfo fresh) {
        if (fresh.shardCount() != heads.length) {
            writers = newWriters(fresh.shardCount(), writers);
            heads = newHeads(fresh.shardCount(), heads);
            queue.resize(heads);
        }
        info = fresh;
        queue.waiters.wakeAll();
    }

    private static ShardHead[] newHeads(int n, ShardHead[] old) {
        ShardHead[] h = new ShardHead[n];
        for (int i = 0; i < n; i++) {
            h[i] = old != null && i < old.length ? old[i] : new ShardHead();
        }
        return h;
    }

    private ShardWriter[] newWriters(int n, ShardWriter[] old) {
        ShardWriter[] w = new ShardWriter[n];
        for (int i = 0; i < n; i++) {
            w[i] = old != null && i < old.length ? old[i] : new ShardWriter(engine, this, i);
        }
        return w;
    }

    /** The retirer freed the slot of this slice. */
    public void forgetSlice(int shard, long firstSeq) {
        slices.remove(shard, firstSeq);
    }

    // ---------------------------------------------------------------- enqueue affinity

    /**
     * The shard a new producing session is pinned to. Sessions used by one thread share that
     * thread's shard, so messages a thread sends one after another arrive in order even when each
     * send uses a new session or connection (Spring's JmsTemplate); different threads spread round
     * robin over the shards this instance owns for enqueue (taken on first use, up to its fair
     * share, from shards no live instance owns), else over all shards.
     */
    int assignProducerShard() {
        int[] own = ownedShards();
        Integer mine = threadShard.get();
        if (mine != null && mine < heads.length && (own.length == 0 || contains(own, mine))) {
            return mine;
        }
        int i = producerCounter.getAndIncrement();
        int shard = own.length > 0 ? own[Math.floorMod(i, own.length)] : Math.floorMod(i, heads.length);
        threadShard.set(shard);
        return shard;
    }

    private static boolean contains(int[] a, int v) {
        for (int x : a) {
            if (x == v) {
                return true;
            }
        }
        return false;
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
            ps.setInt(7, engine.fairShare(heads.length));
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

    // ---------------------------------------------------------------- delivery

    /** After a commit of messages up to {@code head} on a shard: wake the consumers that can use them. */
    void advanceHead(int shard, long head) {
        long added = heads[shard].raise(head);
        if (added > 0) {
            queue.messagesArrived(added);
        }
    }
}
