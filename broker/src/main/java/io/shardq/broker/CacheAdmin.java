package io.shardq.broker;

import io.shardq.broker.catalog.Names;
import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.Query;
import io.shardq.broker.internal.SqlErrors;
import io.shardq.broker.kv.KvDefinition;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The key/value caches part of {@link Admin}: create, alter, drop, list and the stats of caches,
 * each one {@code shardq.*_cache} SQL function. Owns the link to this instance's {@link
 * io.shardq.broker.kv.KvCaches} (set when the Admin is a Broker's): every change it makes is told
 * to them at once ({@code changed}), so this instance's next operation on the cache sees the
 * catalog as it is now, and the stats carry this instance's counters. Without a Broker the stats
 * have zero counters and the database's figures.
 */
public final class CacheAdmin {
    private final AdminSql sql;
    /** This instance's key/value caches, when the Admin is a Broker's; null otherwise. */
    private volatile io.shardq.broker.kv.KvCaches caches;

    CacheAdmin(AdminSql sql) {
        this.sql = sql;
    }

    void caches(io.shardq.broker.kv.KvCaches caches) {
        this.caches = caches;
    }

    /**
     * Creates a key/value cache ({@code shardq.create_cache}) with its entry table and the
     * partitions for the next max TTL; {@code CACHE_EXISTS} when the name is taken.
     */
    public CacheInfo create(String name, CacheOptions o) {
        return createCache(name, o, false);
    }

    /** Creates the cache unless it exists; returns it either way (as it is, options ignored). */
    public CacheInfo createOrGet(String name, CacheOptions o) {
        return createCache(name, o, true);
    }

    private CacheInfo createCache(String name, CacheOptions o, boolean ifNotExists) {
        Names.checkCache(name);
        sql.call(
                Query.ADMIN_CREATE_CACHE,
                "creating cache " + name,
                name,
                o.durable(),
                millis(o.defaultTtl()),
                millis(o.maxTtl()),
                o.maxEntries(),
                o.maxBytes(),
                o.maxKeyBytes(),
                o.maxValueBytes(),
                ifNotExists);
        cacheChanged(name);
        return get(name);
    }

    /**
     * Changes what is not null ({@code shardq.alter_cache}): the default TTL (zero clears it), the
     * bounds (0 clears one) and the key and value size limits. The maximum TTL is fixed at creation.
     * Other instances see the change within 10 s.
     */
    public CacheInfo alter(
            String name,
            java.time.Duration defaultTtl,
            Long maxEntries,
            Long maxBytes,
            Integer maxKeyBytes,
            Integer maxValueBytes) {
        Names.checkCache(name);
        sql.call(
                Query.ADMIN_ALTER_CACHE,
                "altering cache " + name,
                name,
                millis(defaultTtl),
                maxEntries,
                maxBytes,
                maxKeyBytes,
                maxValueBytes);
        cacheChanged(name);
        return get(name);
    }

    /** Drops the cache and all its entries ({@code shardq.drop_cache}). */
    public void drop(String name) {
        Names.checkCache(name);
        sql.call(Query.ADMIN_DROP_CACHE, "dropping cache " + name, name);
        cacheChanged(name);
    }

    /** Every cache, by name, from {@code shardq.caches()}. */
    public List<CacheInfo> list() {
        return cacheRows(null);
    }

    /** The cache called {@code name}; {@code UNKNOWN_CACHE} when there is none. */
    public CacheInfo get(String name) {
        Names.checkCache(name);
        List<CacheInfo> one = cacheRows(name);
        if (one.isEmpty()) {
            throw new ShardQException(ErrorKind.UNKNOWN_CACHE, "cache \"" + name + "\" does not exist");
        }
        return one.get(0);
    }

    /**
     * The cache's exact figures ({@code shardq.cache_stats}, a scan of its entries) with this
     * instance's counters (zero when this Admin has no {@link Broker}).
     */
    public CacheStats stats(String name) {
        get(name); // names an unknown cache
        io.shardq.broker.kv.KvCaches local = caches;
        return local != null ? local.stats(name) : statsWithoutCounters(name);
    }

    private CacheStats statsWithoutCounters(String name) {
        try (Connection c = sql.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.ADMIN_SELECT_CACHE_STATS))) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new CacheStats(
                        name,
                        0,
                        0,
                        0,
                        0,
                        0,
                        0,
                        0,
                        rs.getLong(4),
                        rs.getLong(5),
                        rs.getLong(1),
                        rs.getLong(2),
                        rs.getLong(3));
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "reading the stats of cache " + name);
        }
    }

    private List<CacheInfo> cacheRows(String name) {
        List<CacheInfo> out = new ArrayList<>();
        try (Connection c = sql.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.ADMIN_SELECT_CACHES))) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    KvDefinition d = KvDefinition.read(rs);
                    out.add(new CacheInfo(
                            d.id(),
                            d.name(),
                            d.durable(),
                            d.defaultTtlMs(),
                            d.maxTtlMs(),
                            d.maxEntries(),
                            d.maxBytes(),
                            d.bucketMs(),
                            d.maxKeyBytes(),
                            d.maxValueBytes(),
                            rs.getLong(11),
                            rs.getLong(12),
                            rs.getInt(13),
                            rs.getLong(14),
                            rs.getLong(15),
                            rs.getTimestamp(16).toInstant()));
                }
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "reading the caches");
        }
        return out;
    }

    private void cacheChanged(String name) {
        io.shardq.broker.kv.KvCaches local = caches;
        if (local != null) {
            local.changed(name);
        }
    }

    private static Long millis(java.time.Duration d) {
        return d == null ? null : d.toMillis();
    }
}
