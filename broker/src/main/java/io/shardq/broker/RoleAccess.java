package io.shardq.broker;

import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.Query;
import io.shardq.broker.internal.SqlErrors;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import javax.sql.DataSource;

/**
 * What one PostgreSQL role may do with destinations, as PostgreSQL says. A JMS connection of a
 * user other than the factory's own role holds one: the instance works through its pool (logged
 * in as the factory's role) after PostgreSQL has checked the user's password, and before each
 * producer, consumer, browser, send, receive and listener delivery it asks this whether the user
 * holds the privilege on that destination. The answer is PostgreSQL's ({@code destination_select_privileges}, table privileges
 * on {@code shardq.m_<id>}), cached per destination for {@link BrokerProperty#GRANT_CACHE_MS}, so
 * the hot path runs no query per message and a revoke reaches an open connection within that
 * time. Thread-safe. {@link #full()} is the factory's own role: every check passes.
 */
public final class RoleAccess {
    private static final RoleAccess FULL = new RoleAccess(null, null, 0, () -> 0);

    private final String role;
    private final DataSource dataSource;
    private final long ttlNanos;
    private final LongSupplier nanoTime;
    private final ConcurrentHashMap<String, Known> known = new ConcurrentHashMap<>();
    private final AtomicLong queries = new AtomicLong();

    private record Known(Set<Privilege> held, long askedNanos) {}

    RoleAccess(String role, DataSource dataSource, long ttlNanos, LongSupplier nanoTime) {
        this.role = role;
        this.dataSource = dataSource;
        this.ttlNanos = ttlNanos;
        this.nanoTime = nanoTime;
    }

    /** The factory's own role, which keeps full rights (it owns the tables). */
    public static RoleAccess full() {
        return FULL;
    }

    /** The PostgreSQL role checked, or null for {@link #full()}. */
    public String role() {
        return role;
    }

    /**
     * Returns when the role holds {@code privilege} on {@code destination}; otherwise throws {@link
     * ErrorKind#SECURITY} naming the user, the destination and the privilege (or {@link
     * ErrorKind#UNKNOWN_DESTINATION}: such a user's first use never creates a destination).
     */
    public void require(String destination, Privilege privilege) {
        if (role == null) {
            return;
        }
        if (!held(destination).contains(privilege)) {
            throw new ShardQException(
                    ErrorKind.SECURITY,
                    "user \"" + role + "\" may not " + verb(privilege) + " destination \"" + destination
                            + "\": the PostgreSQL role \"" + role + "\" lacks the " + privilege.sqlName()
                            + " privilege on it (granted by an administrator: shardq grant " + destination + " "
                            + role + " " + privilege.sqlName() + ")");
        }
    }

    /** Queries run so far (what the cache saves is visible in tests). */
    public long queries() {
        return queries.get();
    }

    private Set<Privilege> held(String destination) {
        long now = nanoTime.getAsLong();
        Known k = known.get(destination);
        if (k != null && now - k.askedNanos() < ttlNanos) {
            return k.held();
        }
        Set<Privilege> held = ask(destination);
        known.put(destination, new Known(held, now));
        return held;
    }

    private Set<Privilege> ask(String destination) {
        queries.incrementAndGet();
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.DESTINATION_SELECT_PRIVILEGES))) {
            ps.setString(1, role);
            ps.setString(2, destination);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new ShardQException(
                            ErrorKind.UNKNOWN_DESTINATION,
                            "destination \"" + destination + "\" does not exist (only the connection factory's own"
                                    + " role creates destinations on first use, not user \"" + role + "\")");
                }
                Set<Privilege> held = EnumSet.noneOf(Privilege.class);
                Privilege[] order = {Privilege.SEND, Privilege.RECEIVE, Privilege.BROWSE, Privilege.ADMINISTER};
                for (int i = 0; i < order.length; i++) {
                    if (rs.getBoolean(i + 1)) {
                        held.add(order[i]);
                    }
                }
                return Set.copyOf(held);
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "checking the privileges of user \"" + role + "\" on " + destination);
        }
    }

    private static String verb(Privilege p) {
        return switch (p) {
            case SEND -> "send to";
            case RECEIVE -> "receive from";
            case BROWSE -> "browse";
            case ADMINISTER -> "administer";
        };
    }
}
