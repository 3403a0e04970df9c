package io.shardq.broker;

import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.catalog.Names;
import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.Query;
import io.shardq.broker.internal.SqlErrors;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Queues, from {@link Admin#queues()}: create, drop, alter, start and stop, purge, backlog and
 * statistics. Each call is one of the {@code shardq.*} SQL functions (so psql users get the same
 * operations), with the name validated here first for a clear message.
 */
public final class QueueAdmin {
    private final Admin admin;

    QueueAdmin(Admin admin) {
        this.admin = admin;
    }

    public DestinationInfo create(String name, QueueOptions options) {
        return create(name, options, false);
    }

    /** Creates the queue with these options unless it exists; returns it either way. */
    public DestinationInfo createOrGet(String name, QueueOptions options) {
        return create(name, options, true);
    }

    private DestinationInfo create(String name, QueueOptions o, boolean ifNotExists) {
        return admin.create("queue", name, o, ifNotExists);
    }

    /** Drops the queue; refuses a non-empty one unless {@code force}. */
    public void drop(String name, boolean force) {
        Names.checkDestination(name);
        admin.call(Query.ADMIN_DROP_QUEUE, "dropping queue " + name, name, force);
        admin.catalog().forget(name);
        admin.changedListener().accept(name);
    }

    /** Changes what is not null: shard count (grow only), slice size, max attempts, dead-letter queue. */
    public DestinationInfo alter(
            String name, Integer shards, Integer sliceSize, Integer maxAttempts, String deadLetterQueue) {
        Names.checkDestination(name);
        if (deadLetterQueue != null) {
            Names.checkDestination(deadLetterQueue);
        }
        admin.call(
                Query.ADMIN_ALTER_QUEUE,
                "altering queue " + name,
                name,
                shards,
                sliceSize,
                maxAttempts,
                deadLetterQueue);
        return admin.changed(name);
    }

    public DestinationInfo start(String name, boolean enqueue, boolean dequeue) {
        Names.checkDestination(name);
        admin.call(Query.ADMIN_START_QUEUE, "starting " + name, name, enqueue, dequeue);
        return admin.changed(name);
    }

    public DestinationInfo stop(String name, boolean enqueue, boolean dequeue) {
        Names.checkDestination(name);
        admin.call(Query.ADMIN_STOP_QUEUE, "stopping " + name, name, enqueue, dequeue);
        return admin.changed(name);
    }

    public long purge(String name) {
        Names.checkDestination(name);
        return admin.call(Query.ADMIN_PURGE_QUEUE, "purging " + name, name);
    }

    public long backlog(String name) {
        Names.checkDestination(name);
        return admin.call(Query.ADMIN_BACKLOG, "reading the backlog of " + name, name);
    }

    public QueueStats stats(String name) {
        DestinationInfo d = admin.require(name);
        try (Connection c = admin.dataSource().getConnection()) {
            List<QueueStats.ShardStats> shards = new ArrayList<>();
            long backlog = 0;
            long enqueued = 0;
            long oldest = -1;
            for (QueueStats.ShardStats sh : shards(c, name)) {
                shards.add(sh);
                backlog += sh.backlog();
                enqueued += sh.nextSeq() - 1;
            }
            try (PreparedStatement ps =
                    c.prepareStatement(Queries.withParent(Query.ADMIN_SELECT_OLDEST_WAITING, d.id()))) {
                ps.setLong(1, d.queueSubscription());
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next() && rs.getObject(1) != null) {
                        oldest = Math.max(0, System.currentTimeMillis() - rs.getLong(1));
                    }
                }
            }
            int inUse = 0;
            int free = 0;
            try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.ADMIN_SELECT_SLICE_COUNTS))) {
                ps.setInt(1, d.id());
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    inUse = rs.getInt(1);
                    free = rs.getInt(2);
                }
            }
            long bytes = 0;
            long dead = 0;
            try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.ADMIN_SELECT_TABLE_SIZE))) {
                ps.setInt(1, d.id());
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    bytes = rs.getLong(1);
                    dead = rs.getLong(2);
                }
            }
            long scheduled;
            try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.ADMIN_COUNT_SCHEDULED))) {
                ps.setInt(1, d.id());
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    scheduled = rs.getLong(1) + admin.scheduledInMemory().applyAsLong(d.id());
                }
            }
            return new QueueStats(
                    d, backlog, enqueued, oldest, List.copyOf(shards), inUse, free, bytes, dead, scheduled);
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "reading stats of " + name);
        }
    }

    /** Per shard of a queue, from {@code shardq.shard_stats(queue)}: waiting excludes messages taken out of order. */
    public List<QueueStats.ShardStats> shards(String name) {
        Names.checkDestination(name);
        try (Connection c = admin.dataSource().getConnection()) {
            return shards(c, name);
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "reading the shards of " + name);
        }
    }

    private static List<QueueStats.ShardStats> shards(Connection c, String name) throws SQLException {
        List<QueueStats.ShardStats> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.ADMIN_SELECT_QUEUE_SHARDS))) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new QueueStats.ShardStats(
                            rs.getInt(1),
                            rs.getLong(2),
                            rs.getLong(3),
                            rs.getLong(4),
                            rs.getLong(5),
                            rs.getBoolean(6)));
                }
            }
        }
        return out;
    }

    /** The queues purged at least once, by name. */
    public List<Admin.Purges> purges() {
        return purges(null);
    }

    /** @param queue null for every purged queue */
    private List<Admin.Purges> purges(String queue) {
        List<Admin.Purges> out = new ArrayList<>();
        try (Connection c = admin.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.ADMIN_SELECT_PURGES))) {
            ps.setString(1, queue);
            ps.setString(2, queue);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Admin.Purges(
                            rs.getString(1),
                            rs.getLong(2),
                            rs.getLong(3),
                            rs.getTimestamp(4).getTime()));
                }
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(
                    e, queue == null ? "reading the purge counts" : "reading the purge count of " + queue);
        }
        return out;
    }

    /**
     * What {@code shardq.purge_queue} discarded from one queue ({@code shardq.purges()}): 0 purges
     * and {@code lastPurgeAtMillis} 0 when it was never purged.
     */
    public Admin.Purges purgesOf(String queue) {
        Names.checkDestination(queue);
        List<Admin.Purges> found = purges(queue);
        return found.isEmpty() ? new Admin.Purges(queue, 0, 0, 0) : found.get(0);
    }
}
