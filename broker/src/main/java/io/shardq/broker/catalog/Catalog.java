package io.shardq.broker.catalog;

import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.Query;
import io.shardq.broker.internal.SqlErrors;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * Destinations as this instance knows them: immutable {@link DestinationInfo} snapshots, read
 * from {@code shardq.destination} on first use and reloaded when a catalog NOTIFY names them
 * ({@link CatalogWatcher}), so a queue stopped from the CLI or psql stops here at once.
 *
 * <p><b>Invariant: a snapshot never replaces one read after it.</b> Reads run on several threads
 * (the watcher's NOTIFY handling, an admin call that reloads what it changed, a first use), and
 * one that started before a change may finish after a read that saw it. Each read takes a ticket
 * before its statement starts; under READ COMMITTED a statement that started later sees at least
 * what an earlier one saw, so the snapshot of the higher ticket is kept ({@link #offer}). A
 * destination found gone leaves a tombstone with its ticket, kept only while a read that started
 * before it is still running. Without this, the watcher's late read of a queue's creation undid
 * {@code setDeliveryPolicy(messageGroups)} for the instance that had just set it, and its next
 * sends ignored their groups ({@code GroupsAcrossGrowTest} failed once in 4 runs).
 */
public final class Catalog {
    /** A read's result: {@code info} null when the destination was not there. */
    private record Snapshot(String name, long ticket, DestinationInfo info) {}

    private final DataSource dataSource;
    private final ConcurrentHashMap<String, Snapshot> byName = new ConcurrentHashMap<>();
    private final AtomicLong tickets = new AtomicLong();
    /** Tickets of the reads running now (tombstones older than the oldest one can go). */
    private final ConcurrentSkipListSet<Long> reading = new ConcurrentSkipListSet<>();
    /** Tombstones in ticket order. */
    private final ConcurrentLinkedQueue<Snapshot> tombstones = new ConcurrentLinkedQueue<>();

    public Catalog(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /** The destination, from memory if known, else from the database. */
    public Optional<DestinationInfo> find(String name) {
        Optional<DestinationInfo> known = known(name);
        return known.isPresent() ? known : reload(name);
    }

    /**
     * Reads the destination again from the database; returns the newest snapshot known after it
     * (this read's, or one that a read started later has offered meanwhile).
     */
    public Optional<DestinationInfo> reload(String name) {
        long ticket = startRead();
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.DESTINATION_SELECT_BY_NAME))) {
            ps.setString(1, name);
            ps.setString(2, name);
            try (ResultSet rs = ps.executeQuery()) {
                offer(new Snapshot(name, ticket, rs.next() ? read(rs) : null));
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "reading destination " + name);
        } finally {
            endRead(ticket);
        }
        return known(name);
    }

    /** Every destination, fresh from the database; also refreshes the snapshots held here. */
    public List<DestinationInfo> all() {
        long ticket = startRead();
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.DESTINATION_SELECT_ALL));
                ResultSet rs = ps.executeQuery()) {
            List<DestinationInfo> out = new ArrayList<>();
            while (rs.next()) {
                out.add(read(rs));
            }
            Set<String> names = new HashSet<>();
            for (DestinationInfo d : out) {
                names.add(d.name());
                offer(new Snapshot(d.name(), ticket, d));
            }
            for (String name : List.copyOf(byName.keySet())) {
                if (!names.contains(name)) {
                    offer(new Snapshot(name, ticket, null));
                }
            }
            return out;
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "listing destinations");
        } finally {
            endRead(ticket);
        }
    }

    /** The destination with this id, fresh from the database (ids are never reused). */
    public Optional<DestinationInfo> reloadById(int id) {
        long ticket = startRead();
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.DESTINATION_SELECT_BY_ID))) {
            ps.setInt(1, id);
            ps.setInt(2, id);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                DestinationInfo info = read(rs);
                offer(new Snapshot(info.name(), ticket, info));
                return Optional.of(info);
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "reading destination " + id);
        } finally {
            endRead(ticket);
        }
    }

    /** The destination with this id, from memory if known, else from the database. */
    public Optional<DestinationInfo> byId(int id) {
        for (Snapshot s : byName.values()) {
            if (s.info() != null && s.info().id() == id) {
                return Optional.of(s.info());
            }
        }
        return reloadById(id);
    }

    /** The snapshot held in memory, without asking the database. */
    public Optional<DestinationInfo> known(String name) {
        Snapshot s = byName.get(name);
        return s == null ? Optional.empty() : Optional.ofNullable(s.info());
    }

    /** The destination was dropped (by this instance, after its statement committed). */
    public void forget(String name) {
        offer(new Snapshot(name, tickets.incrementAndGet(), null));
        pruneTombstones();
    }

    private long startRead() {
        long ticket = tickets.incrementAndGet();
        reading.add(ticket);
        return ticket;
    }

    private void endRead(long ticket) {
        reading.remove(ticket);
        pruneTombstones();
    }

    /** Keeps {@code s} unless a snapshot of a later read is held; package-private for tests. */
    void offer(Snapshot s) {
        Snapshot kept = byName.merge(s.name(), s, (old, neu) -> neu.ticket() > old.ticket() ? neu : old);
        if (kept == s && s.info() == null) {
            tombstones.add(s);
        }
    }

    /** Drops the tombstones no running read started before (none of them can offer older news). */
    private void pruneTombstones() {
        for (Snapshot t; (t = tombstones.peek()) != null; ) {
            // ceiling, not isEmpty-then-first: another thread may end the last read in between
            Long oldest = reading.ceiling(Long.MIN_VALUE);
            if (oldest != null && oldest < t.ticket()) {
                return;
            }
            tombstones.poll();
            byName.remove(t.name(), t);
        }
    }

    /** Test hook: a read of {@code name} that took its ticket now and ends with {@link #offer}. */
    Object readStarted(String name, DestinationInfo result) {
        return new Snapshot(name, startRead(), result);
    }

    /** Test hook: ends a read begun with {@link #readStarted}. */
    void readEnded(Object read) {
        Snapshot s = (Snapshot) read;
        offer(s);
        endRead(s.ticket());
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
                groupMap(rs.getArray(16)),
                (Integer) rs.getObject(17),
                fences(rs.getArray(18)));
    }

    /** V015's fences by active shard (null entries: none), or an empty list. */
    private static java.util.List<Long> fences(java.sql.Array a) throws SQLException {
        if (a == null) {
            return java.util.List.of();
        }
        java.util.List<Long> out = new java.util.ArrayList<>();
        for (Object o : (Object[]) a.getArray()) {
            out.add(o == null ? null : ((Number) o).longValue());
        }
        return java.util.Collections.unmodifiableList(out);
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
