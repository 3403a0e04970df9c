package io.shardq.broker.shard;

import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.Query;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * Which slot (leaf table) holds which sequence numbers, per shard of one destination: a local
 * copy of {@code shardq.slice}.
 *
 * <p>The slice ring: a shard's sequence numbers are cut into contiguous slices of the
 * destination's slice size; each slice lives in one slot. When an enqueue runs past the last
 * slice it assigns the next slice, starting exactly where the previous one ended, to a free
 * slot (or a new one) while it holds the shard row lock, so slices never overlap or leave holes.
 * The retirer truncates a slot once every cursor has passed its slice and frees it for reuse.
 * A stale local entry is harmless: it only describes sequence numbers already consumed, which
 * nobody reads or writes again; a miss reloads the shard from the catalog.
 */
public final class SliceMap {
    /** One slice: the slot holding sequence numbers first..last. */
    public record Slice(int slot, long first, long last) {}

    private final int destinationId;
    private final Map<Integer, ConcurrentSkipListMap<Long, Slice>> byShard = new ConcurrentHashMap<>();

    public SliceMap(int destinationId) {
        this.destinationId = destinationId;
    }

    /** The slice holding {@code seq} as known locally, or null. */
    public Slice find(int shard, long seq) {
        var slices = byShard.get(shard);
        if (slices == null) {
            return null;
        }
        var e = slices.floorEntry(seq);
        return e != null && e.getValue().last() >= seq ? e.getValue() : null;
    }

    /** The slice holding {@code seq}, reloading the shard's slices from the catalog on a miss. */
    public Slice findOrReload(Connection c, int shard, long seq) throws SQLException {
        Slice s = find(shard, seq);
        if (s == null) {
            reload(c);
            s = find(shard, seq);
        }
        return s;
    }

    /**
     * The slice for {@code seq} when enqueueing, inside the enqueuing transaction (which holds
     * the shard row lock): an existing one, else a newly assigned one. Nothing is cached here:
     * the assignment rolls back with the transaction, so the caller publishes it with {@link
     * #put} only after the commit.
     */
    public Slice forEnqueue(Connection c, int shard, long seq, int sliceSize) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.SLICE_SELECT_CONTAINING))) {
            ps.setInt(1, destinationId);
            ps.setInt(2, shard);
            ps.setLong(3, seq);
            ps.setLong(4, seq);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    return new Slice(rs.getInt(1), rs.getLong(2), rs.getLong(3));
                }
            }
        }
        try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.SLICE_ASSIGN))) {
            ps.setInt(1, destinationId);
            ps.setInt(2, shard);
            ps.setLong(3, seq);
            ps.setInt(4, sliceSize);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new Slice(rs.getInt(1), seq, seq + sliceSize - 1);
            }
        }
    }

    public void put(int shard, Slice s) {
        var slices = byShard.computeIfAbsent(shard, k -> new ConcurrentSkipListMap<>());
        slices.values().removeIf(old -> old.slot() == s.slot() && old.first() != s.first());
        slices.put(s.first(), s);
    }

    /** Forgets a slice that was retired. */
    public void remove(int shard, long first) {
        var slices = byShard.get(shard);
        if (slices != null) {
            slices.remove(first);
        }
    }

    /** Forgets every slice of a shard that was retired (a shrink): a later grow makes it anew. */
    public void forgetShard(int shard) {
        byShard.remove(shard);
    }

    public void reload(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.SLICE_SELECT_ASSIGNED))) {
            ps.setInt(1, destinationId);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    put(rs.getInt(1), new Slice(rs.getInt(2), rs.getLong(3), rs.getLong(4)));
                }
            }
        }
    }
}
