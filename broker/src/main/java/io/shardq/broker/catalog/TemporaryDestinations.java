package io.shardq.broker.catalog;

import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.Query;
import io.shardq.broker.internal.SqlErrors;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Temporary destinations in the catalog ({@code shardq.temporary_destination}, V007): created with
 * a generated name and one shard by {@code shardq.create_temporary}, owned by one connection (a
 * UUID the caller chooses) of one instance, dropped by {@code shardq.drop_temporary}. No JMS
 * types: the JMS layer decides who may consume; this class only keeps the catalog.
 */
public final class TemporaryDestinations {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(TemporaryDestinations.class);

    /** Generated names start with this; a name with it is never created on first use. */
    public static final String PREFIX = "tmp.";

    private final DataSource dataSource;
    private final long instanceId;

    public TemporaryDestinations(DataSource dataSource, long instanceId) {
        this.dataSource = dataSource;
        this.instanceId = instanceId;
    }

    /** True when {@code name} has the prefix of generated temporary names. */
    public static boolean hasTemporaryName(String name) {
        return name != null && name.startsWith(PREFIX);
    }

    /** Creates a temporary destination of {@code kind} ({@code queue} or {@code topic}); returns its name. */
    public String create(String kind, UUID connection) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.TEMPORARY_CREATE))) {
            ps.setString(1, kind);
            ps.setLong(2, instanceId);
            ps.setObject(3, connection);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "creating a temporary " + kind);
        }
    }

    /**
     * Drops a temporary destination and its messages; with {@code connection}, only when that
     * connection owns it. Waits for the table locks (a sender's open transaction) unless {@code
     * lockTimeoutMillis} is positive.
     */
    public void drop(String name, UUID connection, int lockTimeoutMillis) {
        try (Connection c = dataSource.getConnection()) {
            boolean auto = c.getAutoCommit();
            c.setAutoCommit(false);
            try {
                if (lockTimeoutMillis > 0) {
                    Queries.setLocalLockTimeout(c, lockTimeoutMillis);
                }
                try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.TEMPORARY_DROP))) {
                    ps.setString(1, name);
                    ps.setObject(2, connection);
                    ps.executeQuery().close();
                }
                c.commit();
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(auto);
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "dropping temporary destination " + name);
        }
    }

    /** The connection that owns {@code name}, or empty when it is not a temporary destination. */
    public Optional<UUID> owner(String name) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.TEMPORARY_SELECT_OWNER))) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(rs.getObject(2, UUID.class)) : Optional.empty();
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "reading the owner of " + name);
        }
    }

    /** Names of the temporary destinations whose instance is dead (no heartbeat within the TTL, or stopped). */
    public List<String> ofDeadInstances(double ttlSeconds) {
        List<String> out = new ArrayList<>();
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.TEMPORARY_SELECT_DEAD))) {
            ps.setDouble(1, ttlSeconds);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "listing the temporary destinations of dead instances");
        }
        return out;
    }

    /** Names of this instance's temporary destinations. */
    public List<String> ofThisInstance() {
        List<String> out = new ArrayList<>();
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.TEMPORARY_SELECT_BY_INSTANCE))) {
            ps.setLong(1, instanceId);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "listing the temporary destinations of instance " + instanceId);
        }
        return out;
    }

    /**
     * At an instance's close: drops the temporary destinations of its connections not closed;
     * what fails is logged and left to the maintenance leader (it drops those of dead instances).
     */
    public void dropAllOfThisInstance(int lockTimeoutMillis) {
        try {
            for (String name : ofThisInstance()) {
                try {
                    drop(name, null, lockTimeoutMillis);
                } catch (RuntimeException e) {
                    LOG.warn(
                            "{} - temporary destination {} left to the maintenance leader: {}",
                            instanceId,
                            name,
                            e.getMessage());
                }
            }
        } catch (RuntimeException e) {
            LOG.warn("{} - temporary destinations left to the maintenance leader: {}", instanceId, e.getMessage());
        }
    }

    /** The refusal for a name that looks temporary but does not exist (deleted, or never created). */
    public static ShardQException gone(String name) {
        return new ShardQException(
                ErrorKind.UNKNOWN_DESTINATION,
                "temporary destination \"" + name + "\" does not exist: it was deleted, or its connection"
                        + " closed (names beginning with " + PREFIX + " are never created on first use)");
    }
}
