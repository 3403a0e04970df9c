package io.shardq.cli;

import io.shardq.broker.Broker;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.catalog.DestinationInfo;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;

/**
 * Messages a selective consumer took out of order ({@code shardq.dequeue_log}: beyond the
 * cursor, yet consumed). The engine's {@code Admin.backlog}, {@code Admin.stats} and {@code
 * Broker.browse} still count and show them as waiting (they look at the cursor only), so the
 * CLI subtracts and filters them here until the engine does.
 */
final class DequeueLog {
    private final Map<Integer, Set<Long>> taken;

    private DequeueLog(Map<Integer, Set<Long>> taken) {
        this.taken = taken;
    }

    static DequeueLog of(Broker broker, DestinationInfo queue) {
        return of(broker.dataSource(), queue.queueSubscription());
    }

    static DequeueLog of(DataSource ds, long subscription) {
        Map<Integer, Set<Long>> taken = new HashMap<>();
        try (Connection c = ds.getConnection();
                PreparedStatement ps =
                        c.prepareStatement("select l.shard_no, l.seq from shardq.dequeue_log l join shardq.cursor c"
                                + " on c.subscription_id = l.subscription_id and c.shard_no = l.shard_no"
                                + " where l.subscription_id = ? and l.seq > c.position")) {
            ps.setLong(1, subscription);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    taken.computeIfAbsent(rs.getInt(1), k -> new HashSet<>()).add(rs.getLong(2));
                }
            }
        } catch (SQLException e) {
            throw new ShardQException(ErrorKind.DATABASE, "reading the dequeue log failed: " + e.getMessage(), e);
        }
        return new DequeueLog(taken);
    }

    /** How many messages beyond the cursors are consumed already. */
    long size() {
        return taken.values().stream().mapToLong(Set::size).sum();
    }

    long size(int shard) {
        return taken.getOrDefault(shard, Set.of()).size();
    }

    boolean contains(int shard, long seq) {
        return taken.getOrDefault(shard, Set.of()).contains(seq);
    }

    /** Messages really waiting: the engine's backlog already leaves out those taken out of order. */
    static long waiting(Broker broker, DestinationInfo queue) {
        return broker.admin().backlog(queue.name());
    }

    /** The first {@code limit} waiting messages, without those already taken out of order. */
    static List<Broker.BrowsedMessage> browse(Broker broker, DestinationInfo queue, int limit) {
        DequeueLog log = of(broker, queue);
        List<Broker.BrowsedMessage> out = new ArrayList<>();
        for (Broker.BrowsedMessage b :
                broker.browse(queue.name(), (int) Math.min(Integer.MAX_VALUE, limit + log.size()))) {
            if (!log.contains(b.shard(), b.seq()) && out.size() < limit) {
                out.add(b);
            }
        }
        return out;
    }
}
