package io.shardq.broker;

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
 * The cluster part of {@link Admin}: the instances alive, the temporary destinations and who owns
 * them, and the dequeue leases of a destination, each read from one {@code shardq.*} SQL function
 * as one snapshot (read only: it changes nothing). The records it returns are {@link Admin}'s
 * ({@link Admin.Instance}, {@link Admin.Temporary}, {@link Admin.Lease}), the API callers know.
 */
public final class ClusterView {
    private final AdminSql sql;

    ClusterView(AdminSql sql) {
        this.sql = sql;
    }

    /** Instances not stopped whose heartbeat is at most {@code aliveWithinSeconds} old, by id. */
    public List<Admin.Instance> instances(int aliveWithinSeconds) {
        List<Admin.Instance> out = new ArrayList<>();
        try (Connection c = sql.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.ADMIN_SELECT_INSTANCES))) {
            ps.setInt(1, aliveWithinSeconds);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Admin.Instance(
                            rs.getLong(1),
                            rs.getString(2),
                            rs.getTimestamp(3).getTime(),
                            rs.getLong(4),
                            rs.getLong(5),
                            rs.getLong(6)));
                }
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "reading the instances");
        }
        return out;
    }

    /**
     * Whether instance {@code instanceId}'s row is visible on {@code c}, a connection of another
     * pool (an application's DataSource): true when it reaches the database ShardQ uses.
     */
    public boolean instanceVisibleOn(Connection c, long instanceId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.INSTANCE_SELECT_EXISTS))) {
            ps.setLong(1, instanceId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    /** Every temporary destination with its owner, by name. */
    public List<Admin.Temporary> temporaryDestinations() {
        List<Admin.Temporary> out = new ArrayList<>();
        try (Connection c = sql.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.ADMIN_SELECT_TEMPORARY_DESTINATIONS))) {
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Admin.Temporary(
                            rs.getString(1),
                            rs.getString(2),
                            rs.getLong(3),
                            rs.getString(4),
                            rs.getObject(5, java.util.UUID.class),
                            rs.getTimestamp(6).getTime(),
                            rs.getBoolean(7)));
                }
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "reading the temporary destinations");
        }
        return out;
    }

    /** The leased cursors of a destination, by subscription and shard. */
    public List<Admin.Lease> leases(String name) {
        Names.checkDestination(name);
        List<Admin.Lease> out = new ArrayList<>();
        try (Connection c = sql.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.ADMIN_SELECT_LEASES))) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Admin.Lease(
                            rs.getInt(1),
                            rs.getString(2),
                            rs.getLong(3),
                            rs.getString(4),
                            rs.getTimestamp(5).getTime(),
                            rs.getBoolean(6)));
                }
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "reading the leases of " + name);
        }
        return out;
    }

    /** Every open consumer count on instances alive within {@code aliveWithinSeconds}. */
    public List<Admin.Consumers> consumers(int aliveWithinSeconds) {
        return consumers(null, aliveWithinSeconds);
    }

    /**
     * The open consumer counts of one destination (for a queue one row per live instance with a
     * consumer of it; none when it has no consumer), on instances alive within {@code
     * aliveWithinSeconds}, by subscription and instance id.
     */
    public List<Admin.Consumers> consumersOf(String destination, int aliveWithinSeconds) {
        Names.checkDestination(destination);
        return consumers(destination, aliveWithinSeconds);
    }

    /** @param destination null for every destination */
    private List<Admin.Consumers> consumers(String destination, int aliveWithinSeconds) {
        List<Admin.Consumers> out = new ArrayList<>();
        try (Connection c = sql.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.ADMIN_SELECT_CONSUMERS))) {
            ps.setInt(1, aliveWithinSeconds);
            ps.setString(2, destination);
            ps.setString(3, destination);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Admin.Consumers(
                            rs.getString(1),
                            rs.getString(2),
                            rs.getString(3),
                            rs.getString(4),
                            rs.getLong(5),
                            rs.getString(6),
                            rs.getLong(7)));
                }
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "reading the consumers");
        }
        return out;
    }
}
