package io.shardq.broker.kv;

import io.shardq.broker.shard.BrokerSession;
import io.shardq.broker.shard.TransactionSynchronizations;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A transacted session's plain puts, held back until its commit (issue 25: one PostgreSQL
 * transaction carries many sessions' work). When the session's transaction holds nothing else, its
 * commit hands the puts to the cache's put group ({@link KvPutGroup}), which writes them in one
 * transaction with whatever other sessions' and unbound callers' puts wait at that moment; the
 * session sees its commit succeed or fail on its own (a failed group is written again request by
 * request). Otherwise, and before anything else uses the session's connection, they are written
 * into the session's transaction, as they would have been at once.
 *
 * <p>What the application can tell: nothing inside the session (every read, conditional write or
 * SQL on its connection first writes what is held back), and from outside only that a key's row
 * is locked from the commit rather than from the put, which no one could see before the commit
 * anyway. An error only the database finds (a dropped cache) is reported by the commit, as a
 * rollback, instead of by the put; errors found in the JVM (sizes, codecs) still fail the put.
 *
 * <p>Bounded: past {@link KvPutGroup#MAX_REQUEST_ROWS} entries the puts are written into the
 * transaction at once, and such a commit does not share. One cache per shared commit: puts to two
 * caches are written into the session's transaction (the put groups are per cache, and the
 * session's commit must be one transaction).
 *
 * <p>Threading: the session's thread only, as the session.
 */
final class SessionPuts implements TransactionSynchronizations.Deferred {
    private final BrokerSession session;
    /** By cache id, in first-put order. */
    private final Map<Integer, Held> byCache = new LinkedHashMap<>();

    private int rows;

    private static final class Held {
        final StoredKvCache<?, ?> view;
        final KvDefinition definition;
        final Map<ByteKey, KvRows.Row> rows = new LinkedHashMap<>();
        int batch;

        Held(StoredKvCache<?, ?> view, KvDefinition definition) {
            this.view = view;
            this.definition = definition;
        }

        List<KvRows.Row> sorted() {
            List<KvRows.Row> out = new ArrayList<>(rows.values());
            out.sort(KvRows.BY_HASH);
            return out;
        }
    }

    private SessionPuts(BrokerSession session) {
        this.session = session;
    }

    /** The session's held-back puts of its current transaction, registered with it at the first put. */
    static SessionPuts of(BrokerSession session) {
        TransactionSynchronizations sync = session.synchronizations();
        return sync.resource(SessionPuts.class, () -> {
            SessionPuts p = new SessionPuts(session);
            sync.defer(p);
            return p;
        });
    }

    /** Holds {@code sorted} back (a later put of a key replaces an earlier one, as it would in the table). */
    void add(StoredKvCache<?, ?> view, KvDefinition d, List<KvRows.Row> sorted, int batch) {
        Held h = byCache.get(d.id());
        if (h == null || h.definition != d) {
            if (h != null) {
                writeInto(session); // the cache was made again meanwhile: what was held goes to the old one
            }
            h = new Held(view, d);
            byCache.put(d.id(), h);
        }
        for (KvRows.Row r : sorted) {
            if (h.rows.put(r.key(), r) == null) {
                rows++;
            }
        }
        h.batch = Math.max(h.batch, batch);
        if (rows > KvPutGroup.MAX_REQUEST_ROWS) {
            writeInto(session); // bounded memory: a large transaction writes as it goes
        }
    }

    @Override
    public boolean shareable() {
        return byCache.size() == 1 && rows > 0 && rows <= KvPutGroup.MAX_REQUEST_ROWS;
    }

    @Override
    public void commitShared() {
        Held h = byCache.values().iterator().next();
        byCache.clear();
        rows = 0;
        StoredKvCache<?, ?> unbound = h.view.unbound();
        unbound.caches().putGroup(h.definition.id()).put(unbound, h.definition, h.sorted(), h.batch);
    }

    @Override
    public void writeInto(BrokerSession s) {
        List<Held> all = new ArrayList<>(byCache.values());
        byCache.clear();
        rows = 0;
        for (Held h : all) {
            h.view.writeHeldBack(h.definition, h.sorted());
        }
    }
}
