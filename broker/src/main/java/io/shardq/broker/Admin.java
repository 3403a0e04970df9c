package io.shardq.broker;

import io.shardq.broker.catalog.Catalog;
import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.catalog.Names;
import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.SqlErrors;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * Queue administration: create, drop, alter, start/stop, purge, list and stats. Each call is
 * one of the {@code shardq.*} SQL functions (so psql users get the same operations), with the
 * name validated here first for a clear message. Other instances learn of each change by the
 * catalog NOTIFY; this one is told at once ({@code changed}), so its own next send or receive
 * never sees the destination as it was.
 */
public final class Admin {
    private final DataSource dataSource;
    private final Catalog catalog;
    private final Consumer<String> changed;

    public Admin(DataSource dataSource, Catalog catalog) {
        this(dataSource, catalog, name -> {});
    }

    /** @param changed told the name of each destination this instance created, dropped or changed */
    public Admin(DataSource dataSource, Catalog catalog, Consumer<String> changed) {
        this.dataSource = dataSource;
        this.catalog = catalog;
        this.changed = changed;
    }

    public DestinationInfo createQueue(String name, QueueOptions options) {
        return create(name, options, false);
    }

    /** Creates the queue with these options unless it exists; returns it either way. */
    public DestinationInfo createOrGet(String name, QueueOptions options) {
        return create(name, options, true);
    }

    private DestinationInfo create(String name, QueueOptions o, boolean ifNotExists) {
        Names.checkDestination(name);
        call(
                "select shardq.create_queue(?, shards => ?, slice_size => ?, max_attempts => ?, if_not_exists => ?)",
                "creating queue " + name,
                name,
                o.shards(),
                o.sliceSize(),
                o.maxAttempts(),
                ifNotExists);
        return changed(name);
    }

    /** Drops the queue; refuses a non-empty one unless {@code force}. */
    public void dropQueue(String name, boolean force) {
        Names.checkDestination(name);
        call("select shardq.drop_queue(?, force => ?)", "dropping queue " + name, name, force);
        catalog.forget(name);
        changed.accept(name);
    }

    /** Changes what is not null: shard count (grow only), slice size, max attempts, dead-letter queue. */
    public DestinationInfo alterQueue(
            String name, Integer shards, Integer sliceSize, Integer maxAttempts, String deadLetterQueue) {
        Names.checkDestination(name);
        if (deadLetterQueue != null) {
            Names.checkDestination(deadLetterQueue);
        }
        call(
                "select shardq.alter_queue(?, shards => ?, slice_size => ?, max_attempts => ?, dead_letter_name => ?)",
                "altering queue " + name,
                name,
                shards,
                sliceSize,
                maxAttempts,
                deadLetterQueue);
        return changed(name);
    }

    public DestinationInfo start(String name, boolean enqueue, boolean dequeue) {
        Names.checkDestination(name);
        call("select shardq.start_queue(?, enqueue => ?, dequeue => ?)", "starting " + name, name, enqueue, dequeue);
        return changed(name);
    }

    public DestinationInfo stop(String name, boolean enqueue, boolean dequeue) {
        Names.checkDestination(name);
        call("select shardq.stop_queue(?, enqueue => ?, dequeue => ?)", "stopping " + name, name, enqueue, dequeue);
        return changed(name);
    }

    /** Discards every waiting message and returns how many there were. */
    public long purge(String name) {
        Names.checkDestination(name);
        return call("select shardq.purge_queue(?)", "purging " + name, name);
    }

    public long backlog(String name) {
        Names.checkDestination(name);
        return call("select shardq.backlog(?)", "reading the backlog of " + name, name);
    }

    public List<DestinationInfo> list() {
        return catalog.all();
    }

    public DestinationInfo require(String name) {
        return catalog.reload(Names.checkDestination(name))
                .orElseThrow(() -> new ShardQException(
                        ErrorKind.UNKNOWN_DESTINATION, "destination \"" + name + "\" does not exist"));
    }

    private DestinationInfo changed(String name) {
        DestinationInfo fresh = require(name);
        changed.accept(name);
        return fresh;
    }

    public QueueStats stats(String name) {
        DestinationInfo d = require(name);
        try (Connection c = dataSource.getConnection()) {
            List<QueueStats.ShardStats> shards = new ArrayList<>();
            long backlog = 0;
            long enqueued = 0;
            long oldest = -1;
            try (PreparedStatement ps = c.prepareStatement(Queries.get("cursor_select_by_destination"))) {
                ps.setLong(1, d.queueSubscription());
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        long head = rs.getLong(5) - 1;
                        long pos = rs.getLong(2);
                        shards.add(
                                new QueueStats.ShardStats(rs.getInt(1), rs.getLong(5), pos, head - pos, rs.getLong(3)));
                        backlog += head - pos;
                        enqueued += head;
                    }
                }
            }
            try (PreparedStatement ps =
                    c.prepareStatement("select min(m.enqueued_at) from " + Queries.parentTable(d.id())
                            + " m join shardq.cursor c on c.subscription_id = ? and c.shard_no = m.shard_no"
                            + " where m.seq = c.position + 1")) {
                ps.setLong(1, d.queueSubscription());
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next() && rs.getObject(1) != null) {
                        oldest = Math.max(0, System.currentTimeMillis() - rs.getLong(1));
                    }
                }
            }
            int inUse = 0;
            int free = 0;
            try (PreparedStatement ps = c.prepareStatement(
                    "select count(*) filter (where first_seq is not null), count(*) filter (where first_seq is null)"
                            + " from shardq.slice where destination_id = ?")) {
                ps.setInt(1, d.id());
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    inUse = rs.getInt(1);
                    free = rs.getInt(2);
                }
            }
            long bytes = 0;
            long dead = 0;
            try (PreparedStatement ps = c.prepareStatement(
                    "select coalesce(sum(pg_total_relation_size(t.relid)), 0), coalesce(sum(s.n_dead_tup), 0)"
                            + " from pg_partition_tree(?::regclass) t"
                            + " left join pg_stat_user_tables s on s.relid = t.relid where t.isleaf")) {
                ps.setString(1, Queries.parentTable(d.id()));
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    bytes = rs.getLong(1);
                    dead = rs.getLong(2);
                }
            }
            return new QueueStats(d, backlog, enqueued, oldest, List.copyOf(shards), inUse, free, bytes, dead);
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "reading stats of " + name);
        }
    }

    private long call(String sql, String what, Object... args) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                Object a = args[i];
                if (a == null) {
                    ps.setNull(i + 1, Types.NULL);
                } else {
                    ps.setObject(i + 1, a);
                }
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                Object v = rs.getObject(1);
                return v instanceof Number n ? n.longValue() : 0;
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(e, what);
        }
    }
}
