package io.shardq.broker.instance;

import io.shardq.broker.internal.BackgroundService;
import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.Query;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes this instance's open queue consumers to {@code shardq.subscription_consumer}, so that a
 * count across the fleet ({@code shardq.consumers()}, the console) comes from the database and not
 * from one JVM's memory. A topic subscription's row is kept by {@code shardq.subscribe} and {@code
 * shardq.consumer_closed} as each consumer opens and closes; a queue's consumers open on the
 * session's thread with no database call, so their count is copied here instead: each round
 * compares the instance's counts (by the queue's subscription id) with what it last wrote and
 * writes the changes only, one statement per queue that changed. Every {@value #REWRITE_ROUNDS}
 * rounds it writes them all again (the maintenance leader deletes the rows of an instance it
 * thought dead: {@code shardq.reap_subscriptions}).
 *
 * <p>A count is at most one round old ({@code intervalMillis}, the heartbeat); {@link #trigger()}
 * (the last consumer of a subscription closed) runs a round at once. Rows of dead or stopped
 * instances do not count ({@code shardq.consumers} joins the live instances), and the maintenance
 * leader deletes them.
 *
 * <p>Threading: one thread, {@code shardq-<instance>-consumers-1}.
 */
public final class QueueConsumerCounts extends BackgroundService {
    private static final Logger LOG = LoggerFactory.getLogger(QueueConsumerCounts.class);

    static final int REWRITE_ROUNDS = 30;

    private final DataSource dataSource;
    private final long instanceId;
    private final Supplier<Map<Long, Integer>> counts;
    private final long intervalMillis;
    private Map<Long, Integer> written = Map.of();
    private int rounds;

    /**
     * @param counts this instance's open consumers by queue subscription id (queues without a
     *     consumer may be left out)
     */
    public QueueConsumerCounts(
            DataSource dataSource,
            long instanceId,
            Supplier<Map<Long, Integer>> counts,
            long intervalMillis,
            String threadName) {
        super(threadName);
        this.dataSource = dataSource;
        this.instanceId = instanceId;
        this.counts = counts;
        this.intervalMillis = intervalMillis;
    }

    @Override
    protected long runOnce() throws SQLException {
        publish();
        return intervalMillis;
    }

    /** One round: writes what changed since the last one (every count, every {@value #REWRITE_ROUNDS} rounds). */
    void publish() throws SQLException {
        Map<Long, Integer> now = new HashMap<>();
        counts.get().forEach((id, n) -> {
            if (n > 0) {
                now.put(id, n);
            }
        });
        boolean all = rounds++ % REWRITE_ROUNDS == 0;
        Map<Long, Integer> done = new HashMap<>(written);
        if (!all && now.equals(written)) {
            return;
        }
        try (Connection c = dataSource.getConnection();
                PreparedStatement upsert = c.prepareStatement(Queries.get(Query.QUEUE_CONSUMERS_UPSERT));
                PreparedStatement delete = c.prepareStatement(Queries.get(Query.QUEUE_CONSUMERS_DELETE))) {
            for (Map.Entry<Long, Integer> e : now.entrySet()) {
                if (all || !e.getValue().equals(written.get(e.getKey()))) {
                    upsert.setLong(1, instanceId);
                    upsert.setInt(2, e.getValue());
                    upsert.setLong(3, e.getKey()); // a queue dropped meanwhile: no row, nothing written
                    upsert.executeUpdate();
                    done.put(e.getKey(), e.getValue());
                }
            }
            for (Long id : written.keySet()) {
                if (!now.containsKey(id)) {
                    delete.setLong(1, id);
                    delete.setLong(2, instanceId);
                    delete.executeUpdate();
                    done.remove(id);
                }
            }
        } finally {
            written = Map.copyOf(done);
        }
        LOG.debug("{} - queue consumers written: {}", instanceId, now);
    }

    /** Stopping: this instance's queue consumer rows go (a stopped instance's would not count anyway). */
    @Override
    protected void afterStop() {
        if (written.isEmpty()) {
            return;
        }
        try (Connection c = dataSource.getConnection();
                PreparedStatement delete = c.prepareStatement(Queries.get(Query.QUEUE_CONSUMERS_DELETE_ALL))) {
            delete.setLong(1, instanceId);
            delete.setArray(2, c.createArrayOf("bigint", written.keySet().toArray()));
            delete.executeUpdate();
        } catch (SQLException | RuntimeException e) {
            LOG.debug("{} - queue consumer rows left for the maintenance leader: {}", instanceId, e.getMessage());
        }
    }
}
