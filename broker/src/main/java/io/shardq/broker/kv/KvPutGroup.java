package io.shardq.broker.kv;

import io.shardq.broker.internal.FlatCombiner;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Group commit for one cache's puts that run on their own (not bound to a transaction): the
 * {@code put}s and {@code putAll}s of concurrent callers that arrive while a group is being
 * written are written together as the next group, in one transaction whose statements hold up to
 * {@link #chunk} entries each, and one commit. A lone caller's put is still one round trip.
 *
 * <p>Why: a putAll of 20 entries costs PostgreSQL far more in its transaction (a round trip per
 * statement, a commit record, a WAL flush, the per-statement work of probing every partition
 * for the keys' old rows) than in its rows; measured with pgbench on the development machine, 20
 * clients writing 20 entries a transaction stored 66,000 entries/s, 200 a transaction 152,000.
 *
 * <p>Keys: one key written by two requests of a group keeps the later request's value (the
 * requests were concurrent, so either order is one the callers could have seen). The rows of the
 * whole group are locked in ascending hash order, so groups never deadlock with each other or
 * with any other writer.
 *
 * <p>Failure: when the group's transaction fails, each request is written again on its own, so
 * that only the callers whose own entries cannot be written (a missing partition, a dropped cache)
 * get the error.
 */
final class KvPutGroup extends FlatCombiner<KvPutGroup.Request> {
    /** The most entries one request may have to be grouped (larger ones run on their own). */
    static final int MAX_REQUEST_ROWS = 500;
    /** A group takes requests up to this many entries. */
    static final int MAX_GROUP_ROWS = 2_000;

    private final int chunk;

    /** @param chunk the entries per statement of a group (at least each request's own batch size) */
    KvPutGroup(int chunk) {
        this.chunk = chunk;
    }

    static final class Request extends FlatCombiner.Request {
        final StoredKvCache<?, ?> view;
        final KvDefinition definition;
        final List<KvRows.Row> rows;
        final int batch;

        Request(StoredKvCache<?, ?> view, KvDefinition definition, List<KvRows.Row> rows, int batch) {
            this.view = view;
            this.definition = definition;
            this.rows = rows;
            this.batch = batch;
        }
    }

    /** Writes {@code rows} (sorted, distinct keys) with whatever other puts are waiting; throws what failed. */
    void put(StoredKvCache<?, ?> view, KvDefinition d, List<KvRows.Row> rows, int batch) {
        submit(new Request(view, d, rows, batch));
    }

    @Override
    protected boolean fits(List<Request> group, Request next) {
        int rows = next.rows.size();
        for (Request r : group) {
            if (r.definition.id() != next.definition.id()) {
                return false; // the cache was dropped and made again between the requests
            }
            rows += r.rows.size();
        }
        return rows <= MAX_GROUP_ROWS;
    }

    @Override
    protected void run(List<Request> group) {
        if (group.size() == 1) {
            Request r = group.get(0);
            finish(r, r.rows, r.batch);
            return;
        }
        Map<ByteKey, KvRows.Row> merged = new LinkedHashMap<>();
        int batch = chunk;
        for (Request r : group) {
            for (KvRows.Row row : r.rows) {
                merged.put(row.key(), row);
            }
            batch = Math.max(batch, r.batch);
        }
        List<KvRows.Row> rows = new ArrayList<>(merged.values());
        rows.sort(KvRows.BY_HASH);
        Request first = group.get(0);
        try {
            first.view.putRows(first.definition, rows, batch);
        } catch (RuntimeException e) {
            for (Request r : group) { // each on its own: only the requests that cannot be written fail
                finish(r, r.rows, r.batch);
            }
            return;
        }
        for (Request r : group) {
            r.finish(null);
        }
    }

    private static void finish(Request r, List<KvRows.Row> rows, int batch) {
        try {
            r.view.putRows(r.definition, rows, batch);
            r.finish(null);
        } catch (RuntimeException e) {
            r.finish(e);
        }
    }

    /** Test hook: runs {@code group} as one group, as a combining caller would. */
    void runForTest(List<Request> group) {
        run(group);
    }
}
