package io.shardq.broker.shard;

import io.shardq.broker.catalog.Catalog;
import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.SqlErrors;
import io.shardq.broker.slice.SliceRetirer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The instance's periodic duty: heartbeat, lease renewal and release, catalog refresh, slice
 * retirement. Runs on one scheduler thread; each round is independent, so a failed round (the
 * database briefly gone) is logged and the next one tries again.
 */
public final class Heartbeat {
    private static final Logger LOG = LoggerFactory.getLogger(Heartbeat.class);

    private final Engine engine;
    private final Catalog catalog;
    private final SliceRetirer retirer;
    private final Collection<DestinationRuntime> runtimes;
    private volatile int alive = 1;
    private long failures;

    public Heartbeat(Engine engine, Catalog catalog, SliceRetirer retirer, Collection<DestinationRuntime> runtimes) {
        this.engine = engine;
        this.catalog = catalog;
        this.retirer = retirer;
        this.runtimes = runtimes;
    }

    /** Live instances seen at the last heartbeat, this one included. */
    public int aliveInstances() {
        return alive;
    }

    public void beat() {
        try {
            renew();
            for (DestinationRuntime rt : runtimes) {
                retirer.run(rt.info());
            }
            failures = 0;
        } catch (SQLException | RuntimeException e) {
            if (failures++ % 30 == 0) {
                LOG.warn("{} - heartbeat failed: {}", engine.instanceId(), e.getMessage());
            }
        }
    }

    private void renew() throws SQLException {
        long me = engine.instanceId();
        double ttl = engine.settings().leaseTtlMillis() / 1000.0;
        try (Connection c = engine.dataSource().getConnection()) {
            Object[] hungry = runtimes.stream()
                    .filter(DestinationRuntime::hungry)
                    .map(rt -> rt.info().id())
                    .toArray();
            try (PreparedStatement ps = c.prepareStatement(Queries.get("instance_heartbeat"))) {
                ps.setArray(1, c.createArrayOf("integer", hungry));
                ps.setLong(2, me);
                ps.executeUpdate();
            }
            try (PreparedStatement ps = c.prepareStatement(Queries.get("instance_count_alive"))) {
                ps.setDouble(1, ttl);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    alive = Math.max(1, rs.getInt(1));
                }
            }
            Map<Long, Set<Integer>> renewed = new HashMap<>();
            try (PreparedStatement ps = c.prepareStatement(Queries.get("cursor_lease_renew"))) {
                ps.setDouble(1, ttl);
                ps.setLong(2, me);
                ps.executeUpdate();
            }
            try (PreparedStatement ps = c.prepareStatement(Queries.get("cursor_select_held"))) {
                ps.setLong(1, me);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        renewed.computeIfAbsent(rs.getLong(1), k -> new HashSet<>())
                                .add(rs.getInt(2));
                    }
                }
            }
            Map<Integer, Integer> hungryOthers = new HashMap<>();
            try (PreparedStatement ps = c.prepareStatement(Queries.get("instance_select_hungry"))) {
                ps.setLong(1, me);
                ps.setDouble(2, ttl);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        hungryOthers.put(rs.getInt(1), rs.getInt(2));
                    }
                }
            }
            for (DestinationRuntime rt : runtimes) {
                Optional<DestinationInfo> fresh = catalog.reload(rt.info().name());
                if (fresh.isEmpty()) {
                    continue;
                }
                rt.refresh(fresh.get());
                long sub = rt.info().queueSubscription();
                rt.keepOnlyLeases(renewed.getOrDefault(sub, Set.of()));
                List<Integer> release =
                        rt.leasesToRelease(hungryOthers.getOrDefault(rt.info().id(), 0));
                if (!release.isEmpty()) {
                    try (PreparedStatement ps = c.prepareStatement(Queries.get("cursor_lease_release"))) {
                        ps.setLong(1, sub);
                        ps.setArray(2, c.createArrayOf("integer", release.toArray()));
                        ps.setLong(3, me);
                        ps.executeUpdate();
                    }
                    LOG.debug(
                            "{} - released leases {} of {}",
                            me,
                            release,
                            rt.info().name());
                }
            }
        }
    }

    /** Gives back every lease and marks the instance stopped. */
    public void deregister() {
        long me = engine.instanceId();
        try (Connection c = engine.dataSource().getConnection()) {
            try (PreparedStatement ps = c.prepareStatement(Queries.get("cursor_lease_release_all"))) {
                ps.setLong(1, me);
                ps.executeUpdate();
            }
            try (PreparedStatement ps = c.prepareStatement(Queries.get("shard_release_owner"))) {
                ps.setLong(1, me);
                ps.executeUpdate();
            }
            try (PreparedStatement ps = c.prepareStatement(Queries.get("instance_stop"))) {
                ps.setLong(1, me);
                ps.executeUpdate();
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "deregistering instance " + me);
        }
    }
}
