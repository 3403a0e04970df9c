package io.shardq.broker;

import io.shardq.broker.shard.BrokerSession;
import io.shardq.broker.shard.PreparedTransactions;
import java.util.List;
import java.util.Objects;

/**
 * Two-phase commit (XA) on one instance ({@link Broker#xa()}): sessions whose transactions a
 * transaction manager drives, and the decisions on prepared transactions, which any instance of
 * the database may take (after a crash too). PostgreSQL's own {@code PREPARE TRANSACTION} does
 * the work; see docs/design/transactions.md.
 */
public final class TwoPhaseCommit {
    private final BrokerCore core;
    private final Runnable checkOpen;

    TwoPhaseCommit(BrokerCore core, Runnable checkOpen) {
        this.core = core;
        this.checkOpen = checkOpen;
    }

    /**
     * A session whose transactions a transaction manager drives through two-phase commit:
     * transacted, it works only inside a branch ({@link BrokerSession#xaAssociate}), and ends one
     * with {@link BrokerSession#prepare} and then {@link #commit} or {@link #rollback}, or with
     * {@link BrokerSession#commit()} (one phase) or {@link BrokerSession#rollback()}. Throws {@code
     * CONFIGURATION} naming {@code max_prepared_transactions} when the server has prepared
     * transactions turned off.
     */
    public BrokerSession openSession() {
        checkOpen.run();
        prepared().requireEnabled();
        return new BrokerSession(core, BrokerSession.Mode.TRANSACTED, null, false, true);
    }

    /**
     * COMMIT PREPARED of the prepared transaction {@code gid} of this database, from any instance
     * (after a crash too); the session of this instance that prepared it, if any, then publishes
     * its work in memory. Returns false when there is no such prepared transaction. A lost
     * connection ({@code CONNECTION}) leaves the outcome unknown: ask again.
     */
    public boolean commit(String gid) {
        checkOpen.run();
        return prepared().commit(gid);
    }

    /** ROLLBACK PREPARED, as {@link #commit}: received messages are delivered again. */
    public boolean rollback(String gid) {
        checkOpen.run();
        return prepared().rollback(gid);
    }

    /**
     * The global ids of this database's prepared transactions starting with {@code prefix},
     * oldest first (for {@code XAResource.recover}).
     */
    public List<String> list(String prefix) {
        checkOpen.run();
        return prepared().list(Objects.requireNonNull(prefix, "prefix"));
    }

    /** The server's {@code max_prepared_transactions} (0: no two-phase commit). */
    public int maxPreparedTransactions() {
        checkOpen.run();
        return prepared().maxPreparedTransactions();
    }

    private PreparedTransactions prepared() {
        return core.preparedTransactions();
    }
}
