package io.shardq.broker.kv;

import io.shardq.broker.shard.BrokerSession;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.function.BooleanSupplier;

/**
 * Where a {@link KvCache} view's operations run, and how its writes reach the near caches: one of
 * three bindings, chosen when the view is made and never changed.
 *
 * <ul>
 *   <li>{@link Own}: each operation on its own, on a pooled connection borrowed for it (or on the
 *       {@code lent} one: the single-flight loader's, which holds the load lock), in autocommit or
 *       in one transaction when it must be atomic. A write's NOTIFY is the transaction's last
 *       statement; this instance's near entries go after the commit.
 *   <li>{@link InSession}: in a TRANSACTED session's transaction, on the connection the session
 *       shares; one NOTIFY per cache before the session commits, local entries after.
 *   <li>{@link OnConnection}: in whatever transaction the application has open on its own
 *       connection, whose commit this instance cannot see: the NOTIFY follows the write in that
 *       transaction, always, and the keys are unsettled (not filled here) until it arrives.
 * </ul>
 *
 * <p>The last two are {@link Joined}: they differ only in whose connection it is and in how a write
 * reaches the near caches.
 *
 * <p>Invariant: only an {@link Own} view without a lent connection ({@link #pooled()}) reads this
 * instance's near cache and write-behind queue; every other view may see its own uncommitted
 * writes, so it reads the table. Errors are thrown as {@link SQLException}s; the view translates
 * them (it knows the cache's name).
 */
sealed interface KvBinding permits KvBinding.Own, KvBinding.Joined {
    /** The binding of a view made by {@link KvCaches#open}. */
    KvBinding AUTOCOMMIT = new Own(null);

    /** Work on a connection, in the transaction the binding chose. */
    interface Work<R> {
        R run(Connection c) throws SQLException;
    }

    /** True when operations run in transactions of their own (not a session's or an application's). */
    boolean autocommit();

    /** True for an unbound view on pooled connections: it reads near caches and write-behind queues. */
    boolean pooled();

    /** Runs {@code work} where this binding's operations run; {@code atomic}: as one transaction when on its own. */
    <R> R run(KvCaches caches, boolean atomic, Work<R> work) throws SQLException;

    /**
     * Runs a write of the keys {@code hashes} (null: the whole cache) of cache {@code cacheId} and
     * invalidates near caches (see {@link NearCaches}) as this binding requires.
     */
    <R> R writing(KvCaches caches, int cacheId, boolean atomic, long[] hashes, Work<R> work) throws SQLException;

    /** On its own: a pooled connection per operation, or the {@code lent} one (null: pooled). */
    record Own(Connection lent) implements KvBinding {
        @Override
        public boolean autocommit() {
            return true;
        }

        @Override
        public boolean pooled() {
            return lent == null;
        }

        @Override
        public <R> R run(KvCaches caches, boolean atomic, Work<R> work) throws SQLException {
            if (lent != null) {
                return runOn(lent, atomic, work);
            }
            try (Connection c = caches.dataSource().getConnection()) {
                return runOn(c, atomic, work);
            }
        }

        @Override
        public <R> R writing(KvCaches caches, int cacheId, boolean atomic, long[] hashes, Work<R> work)
                throws SQLException {
            NearCaches near = caches.near();
            boolean notify = near.mustNotify(false);
            try {
                return run(caches, atomic || notify, thenNotify(work, near, cacheId, hashes, () -> notify));
            } finally {
                near.invalidate(cacheId, hashes); // after the commit (or a failure: dropping is harmless)
            }
        }

        /** On a connection in autocommit mode: the work on its own, or in one transaction when {@code atomic}. */
        private static <R> R runOn(Connection c, boolean atomic, Work<R> work) throws SQLException {
            if (!atomic) {
                return work.run(c);
            }
            c.setAutoCommit(false);
            try {
                R r = work.run(c);
                c.commit();
                return r;
            } catch (SQLException | RuntimeException e) {
                try {
                    c.rollback();
                } catch (SQLException ignored) {
                    // a broken connection: the pool discards it
                }
                throw e;
            } finally {
                c.setAutoCommit(true);
            }
        }
    }

    /**
     * In a transaction someone else owns, on their connection: never on its own, never pooled, the
     * work always on {@link #connection()}. What differs between the two is whose connection it is and
     * how a write reaches the near caches.
     */
    sealed interface Joined extends KvBinding permits InSession, OnConnection {
        /** The connection whose open transaction the operations join. */
        Connection connection();

        @Override
        default boolean autocommit() {
            return false;
        }

        @Override
        default boolean pooled() {
            return false;
        }

        @Override
        default <R> R run(KvCaches caches, boolean atomic, Work<R> work) throws SQLException {
            return work.run(connection());
        }
    }

    /** In a TRANSACTED session's transaction: it commits and rolls back with the session's messages. */
    record InSession(BrokerSession session) implements Joined {
        @Override
        public Connection connection() {
            return session.connection();
        }

        @Override
        public <R> R writing(KvCaches caches, int cacheId, boolean atomic, long[] hashes, Work<R> work)
                throws SQLException {
            R r = run(caches, atomic, work);
            caches.near().written(session, session.onApplicationConnection(), cacheId, hashes);
            return r;
        }
    }

    /** On an application's connection, in whatever transaction it has open there. */
    record OnConnection(Connection connection) implements Joined {
        @Override
        public <R> R writing(KvCaches caches, int cacheId, boolean atomic, long[] hashes, Work<R> work)
                throws SQLException {
            NearCaches near = caches.near();
            near.unsettle(cacheId, hashes);
            return run(caches, atomic, thenNotify(work, near, cacheId, hashes, () -> near.mustNotify(true)));
        }
    }

    /**
     * {@code work}, then in the same transaction the NOTIFY for {@code hashes} of cache {@code cacheId}
     * when {@code notify}, asked once the work is done, says so.
     */
    private static <R> Work<R> thenNotify(
            Work<R> work, NearCaches near, int cacheId, long[] hashes, BooleanSupplier notify) {
        return c -> {
            R r = work.run(c);
            if (notify.getAsBoolean()) {
                near.send(c, cacheId, hashes);
            }
            return r;
        };
    }
}
