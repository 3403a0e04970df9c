package io.shardq.broker;

import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.Query;
import io.shardq.broker.internal.SqlErrors;
import io.shardq.broker.selector.Selector;
import io.shardq.broker.shard.DestinationRuntime;
import io.shardq.broker.shard.Engine;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@link Broker}'s topic subscriptions and JMS client ids, as rows the database shares with
 * every instance: subscribe ({@code subscription_subscribe}), a consumer closed ({@code
 * subscription_consumer_closed}), unsubscribe, and the client ids its connections hold ({@code
 * client_id_claim}, {@code client_id_release}, all of them at close).
 *
 * <p>Invariants: a client id is held by at most one live connection across all instances (the
 * claim is one statement, and an id held by a dead instance, past the lease TTL, is free); a
 * durable subscription with an active consumer on any instance is not unsubscribed; a
 * non-durable subscription is named for this instance and is deleted with its last consumer.
 * After this instance subscribes, its own next publish sees the new subscription without waiting
 * for the catalog NOTIFY ({@link Destinations#reload}). A consumer count that could not be
 * recorded is corrected when this instance stops or dies ({@code reap_subscriptions}).
 */
final class Subscriptions {
    /** The instance's log. */
    private static final Logger LOG = LoggerFactory.getLogger(Broker.class);

    /** Consumer closes not recorded in PostgreSQL yet (see {@link #recordCloses}). */
    private final java.util.concurrent.ConcurrentLinkedDeque<io.shardq.broker.shard.Subscription> closesToRecord =
            new java.util.concurrent.ConcurrentLinkedDeque<>();

    private final Engine engine;
    private final DataSource dataSource;
    private final Destinations destinations;
    private final long instanceId;

    Subscriptions(Engine engine, DataSource dataSource, Destinations destinations) {
        this.engine = engine;
        this.dataSource = dataSource;
        this.destinations = destinations;
        this.instanceId = engine.instanceId();
    }

    /** How long an instance without a heartbeat still counts as alive, in whole seconds (the lease TTL). */
    private int aliveSeconds() {
        return BrokerServices.aliveSeconds(engine.settings());
    }

    private final java.util.concurrent.atomic.AtomicLong nonDurableIds = new java.util.concurrent.atomic.AtomicLong();

    /** Subscribes to {@code topic} (the caller checked that the instance is open). */
    io.shardq.broker.shard.Subscription subscribe(DestinationRuntime topic, SubscriptionSpec spec) {
        String selector = spec.selector() == null || spec.selector().isBlank() ? null : spec.selector();
        if (selector != null) {
            Selector.compile(selector); // refused here with the parser's reason, not at publish
        }
        String name = spec.kind() == SubscriptionSpec.Kind.NON_DURABLE
                ? "~" + instanceId + "." + nonDurableIds.incrementAndGet() + "." + java.util.UUID.randomUUID()
                : spec.name();
        if (spec.kind() == SubscriptionSpec.Kind.DURABLE
                && (spec.clientId() == null || spec.clientId().isEmpty())) {
            throw new ShardQException(
                    ErrorKind.ILLEGAL_STATE,
                    "an unshared durable subscription needs a client id: set one on the connection");
        }
        if (name == null) {
            throw new ShardQException(ErrorKind.INVALID_ARGUMENT, "a " + spec.kind() + " subscription needs a name");
        }
        io.shardq.broker.message.Texts.requireEncodable(name, "the subscription name");
        String clientId = spec.kind() == SubscriptionSpec.Kind.NON_DURABLE ? null : spec.clientId();
        long id;
        int bit;
        try (Connection c = engine.borrowConnection()) {
            // a close that failed earlier may be what would refuse this subscribe ("has an active
            // consumer already"): recorded first on the same connection, and while it cannot be,
            // the subscribe fails as the database does (a connection error, retried by the caller)
            // instead of being refused for a consumer that is closed. (TopicFailoverTest.)
            recordCloses(c);
            try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.SUBSCRIPTION_SUBSCRIBE))) {
                ps.setString(1, topic.info().name());
                ps.setString(2, name);
                ps.setString(3, clientId);
                ps.setString(4, selector);
                ps.setBoolean(5, spec.kind().shared());
                ps.setBoolean(6, spec.kind().durable());
                ps.setBoolean(7, spec.noLocal());
                ps.setLong(8, instanceId);
                ps.setString(9, spec.connectionId());
                ps.setInt(10, aliveSeconds());
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    id = rs.getLong(1);
                    bit = rs.getInt(2);
                }
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "subscribing to " + topic.info().name());
        }
        // our own next publish stamps with the new subscription without waiting for the NOTIFY
        destinations.reload(topic.info().name());
        DestinationRuntime rt = java.util.Objects.requireNonNullElse(
                destinations.get(topic.info().name()), topic);
        return rt.topicSubscription(id, bit);
    }

    /** A consumer of {@code sub} closed: counted; a non-durable subscription without consumers goes. */
    void consumerClosed(io.shardq.broker.shard.Subscription sub) {
        closesToRecord.addLast(sub);
        recordCloses();
    }

    /**
     * Records in PostgreSQL the consumer closes not recorded yet, oldest first. One that fails
     * (PostgreSQL restarting or failing over) stays queued and is recorded at the next close or
     * subscribe of this instance: a count left one too high would refuse the next consumer of an
     * unshared durable subscription ("has an active consumer already") for as long as this instance
     * lives. ({@code TopicFailoverTest} found that: a durable subscriber whose session failed in
     * the failover could never subscribe again.)
     */
    private void recordCloses() {
        if (closesToRecord.isEmpty()) {
            return;
        }
        try (Connection c = engine.borrowConnection()) {
            recordCloses(c);
        } catch (SQLException | RuntimeException e) {
            LOG.warn(
                    "{} - could not record a closed consumer (recorded at this instance's next close or"
                            + " subscribe): {}",
                    instanceId,
                    e.getMessage());
        }
    }

    /** As {@link #recordCloses()} on {@code c}; the first failure is thrown, its close queued again. */
    private void recordCloses(Connection c) throws SQLException {
        io.shardq.broker.shard.Subscription sub;
        while ((sub = closesToRecord.pollFirst()) != null) {
            boolean deleted;
            try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.SUBSCRIPTION_CONSUMER_CLOSED))) {
                ps.setLong(1, sub.id());
                ps.setLong(2, instanceId);
                ps.setInt(3, aliveSeconds());
                try (ResultSet rs = ps.executeQuery()) {
                    deleted = rs.next() && rs.getBoolean(1);
                }
            } catch (SQLException | RuntimeException e) {
                closesToRecord.addFirst(sub);
                throw e;
            }
            if (deleted) {
                String name = sub.destinationName();
                sub.dropped();
                destinations.reload(name);
            }
        }
    }

    /**
     * Deletes the durable subscription (client id, name), as JMS {@code Session.unsubscribe}:
     * refused while it has an active consumer on any instance ({@link ErrorKind#ILLEGAL_STATE}),
     * {@link ErrorKind#UNKNOWN_DESTINATION} when there is none.
     */
    void unsubscribe(String clientId, String name) {
        try (Connection c = engine.borrowConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.SUBSCRIPTION_UNSUBSCRIBE))) {
            ps.setString(1, clientId);
            ps.setString(2, name);
            ps.setInt(3, aliveSeconds());
            ps.execute();
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "unsubscribing " + name);
        }
    }

    /**
     * Takes a JMS client id for one connection, unique across every instance on the database: it
     * is free, or held by a dead instance. Returns the token to release it with; fails with
     * {@link ErrorKind#CLIENT_ID_IN_USE} when another live connection holds it, or {@link
     * ErrorKind#INVALID_ARGUMENT} for an id that is blank, too long or not storable as text.
     */
    String claimClientId(String clientId) {
        if (clientId == null || clientId.isBlank() || clientId.length() > Broker.MAX_CLIENT_ID) {
            throw new ShardQException(
                    ErrorKind.INVALID_ARGUMENT,
                    "client id must be 1 to " + Broker.MAX_CLIENT_ID + " characters, not blank"
                            + (clientId == null ? "" : " (got " + clientId.length() + ")"));
        }
        try {
            io.shardq.broker.message.Texts.requireEncodable(clientId, "the client id");
        } catch (IllegalArgumentException e) {
            throw new ShardQException(ErrorKind.INVALID_ARGUMENT, e.getMessage());
        }
        java.util.UUID token = java.util.UUID.randomUUID();
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.CLIENT_ID_CLAIM))) {
            ps.setString(1, clientId);
            ps.setLong(2, instanceId);
            ps.setObject(3, token);
            ps.setDouble(4, engine.settings().leaseTtlMillis() / 1000.0);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new ShardQException(
                            ErrorKind.CLIENT_ID_IN_USE,
                            "client id \"" + io.shardq.broker.message.Texts.quote(clientId)
                                    + "\" is in use by another connection");
                }
            }
            return token.toString();
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "taking client id");
        }
    }

    /** Gives back a client id taken by {@link #claimClientId}; quiet if it is gone already. */
    void releaseClientId(String clientId, String token) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.CLIENT_ID_RELEASE))) {
            ps.setString(1, clientId);
            ps.setObject(2, java.util.UUID.fromString(token));
            ps.executeUpdate();
        } catch (SQLException | RuntimeException e) {
            LOG.warn("{} - could not release client id: {}", instanceId, e.getMessage());
        }
    }

    /** At close: every client id this instance's connections still hold. */
    void releaseClientIds() {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.CLIENT_ID_RELEASE_INSTANCE))) {
            ps.setLong(1, instanceId);
            ps.executeUpdate();
        } catch (SQLException | RuntimeException e) {
            LOG.warn("{} - could not release its client ids: {}", instanceId, e.getMessage());
        }
    }
}
