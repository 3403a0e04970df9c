package io.shardq.broker.catalog;

import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.SqlErrors;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;

/**
 * Destinations as this instance knows them: immutable {@link DestinationInfo} snapshots, read
 * from {@code shardq.destination} on first use and reloaded when a catalog NOTIFY names them
 * ({@link CatalogWatcher}), so a queue stopped from the CLI or psql stops here at once.
 */
public final class Catalog {
    private final DataSource dataSource;
    private final ConcurrentHashMap<String, DestinationInfo> byName = new ConcurrentHashMap<>();

    public Catalog(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /** The destination, from memory if known, else from the database. */
    public Optional<DestinationInfo> find(String name) {
        DestinationInfo known = byName.get(name);
        return known != null ? Optional.of(known) : reload(name);
    }

    /** Reads the destination again from the database. */
    public Optional<DestinationInfo> reload(String name) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get("destination_select_by_name"))) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    byName.remove(name);
                    return Optional.empty();
                }
                DestinationInfo info = read(rs);
                byName.put(name, info);
                return Optional.of(info);
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "reading destination " + name);
        }
    }

    /** Every destination, fresh from the database; also refreshes the snapshots held here. */
    public List<DestinationInfo> all() {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get("destination_select_all"));
                ResultSet rs = ps.executeQuery()) {
            List<DestinationInfo> out = new ArrayList<>();
            while (rs.next()) {
                out.add(read(rs));
            }
            byName.keySet().retainAll(out.stream().map(DestinationInfo::name).toList());
            out.forEach(d -> byName.put(d.name(), d));
            return out;
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "listing destinations");
        }
    }

    /** The destination with this id, fresh from the database (ids are never reused). */
    public Optional<DestinationInfo> reloadById(int id) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get("destination_select_by_id"))) {
            ps.setInt(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                DestinationInfo info = read(rs);
                byName.put(info.name(), info);
                return Optional.of(info);
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "reading destination " + id);
        }
    }

    /** The destination with this id, from memory if known, else from the database. */
    public Optional<DestinationInfo> byId(int id) {
        for (DestinationInfo d : byName.values()) {
            if (d.id() == id) {
                return Optional.of(d);
            }
        }
        return reloadById(id);
    }

    /** The snapshot held in memory, without asking the database. */
    public Optional<DestinationInfo> known(String name) {
        return Optional.ofNullable(byName.get(name));
    }

    public void forget(String name) {
        byName.remove(name);
    }

    private static DestinationInfo read(ResultSet rs) throws SQLException {
        return new DestinationInfo(
                rs.getInt(1),
                rs.getString(2),
                rs.getString(3),
                rs.getInt(4),
                rs.getInt(5),
                rs.getInt(6),
                rs.getString(7),
                rs.getBoolean(8),
                rs.getBoolean(9),
                rs.getLong(10),
                rs.getLong(11),
                rs.getString(12),
                (Integer) rs.getObject(13),
                rs.getObject(14) == null ? null : rs.getDouble(14),
                rs.getBoolean(15),
                groupMap(rs.getArray(16)));
    }

    /** V014's group_map as a list (empty: the identity over the shard count). */
    private static java.util.List<Integer> groupMap(java.sql.Array a) throws SQLException {
        if (a == null) {
            return java.util.List.of();
        }
        Object[] raw = (Object[]) a.getArray();
        java.util.List<Integer> out = new java.util.ArrayList<>(raw.length);
        for (Object o : raw) {
            out.add(((Number) o).intValue());
        }
        return java.util.List.copyOf(out);
    }
}
