package io.shardq.broker.instance;

import io.shardq.broker.ShardQException;
import io.shardq.broker.catalog.TemporaryDestinations;
import io.shardq.broker.internal.BackgroundService;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drops the temporary destinations of dead instances (killed, or stopped without closing their
 * connections), on the maintenance leader only, as client ids of dead instances are released: an
 * instance is dead when it is stopped or has no heartbeat within the lease TTL. One indexed
 * SELECT per round (every {@code intervalMillis}, the lease TTL), then one {@code
 * shardq.drop_temporary} per destination found, with {@code lock_timeout} so that a sender's
 * open transaction on the destination is never queued behind (it is tried again next round).
 *
 * <p>Threading: one thread, {@code shardq-<instance>-reaper-1}, on every instance; only the
 * leader's does anything.
 */
public final class TemporaryReaper extends BackgroundService {
    private static final Logger LOG = LoggerFactory.getLogger(TemporaryReaper.class);

    private final TemporaryDestinations temporaries;
    private final BooleanSupplier leader;
    private final long intervalMillis;
    private final int lockTimeoutMillis;
    private final Consumer<String> dropped;

    /** @param dropped told each name dropped, so the instance forgets its runtime at once */
    public TemporaryReaper(
            TemporaryDestinations temporaries,
            BooleanSupplier leader,
            long intervalMillis,
            int lockTimeoutMillis,
            Consumer<String> dropped,
            String threadName) {
        super(threadName);
        this.temporaries = temporaries;
        this.leader = leader;
        this.intervalMillis = intervalMillis;
        this.lockTimeoutMillis = lockTimeoutMillis;
        this.dropped = dropped;
    }

    @Override
    protected long runOnce() {
        if (!leader.getAsBoolean()) {
            return intervalMillis;
        }
        for (String name : temporaries.ofDeadInstances(intervalMillis / 1000.0)) {
            if (isStopping() || !leader.getAsBoolean()) {
                break;
            }
            try {
                temporaries.drop(name, null, lockTimeoutMillis);
                dropped.accept(name);
                LOG.info("temporary destination {} dropped: its instance is dead", name);
            } catch (ShardQException e) {
                // busy (a lock held by a sender) or dropped meanwhile: next round
                LOG.debug("temporary destination {} not dropped yet: {}", name, e.getMessage());
            }
        }
        return intervalMillis;
    }
}
