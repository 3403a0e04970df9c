package io.shardq.broker.instance;

import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.Query;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The instance's one LISTEN connection. Receives cross-instance wake-ups: LISTEN {@code
 * shardq_wake} on a connection of its own and hands each {@code <destination>/<shard>} payload
 * to the runtime. Producers send the NOTIFY at commit only when a consumer of another instance
 * registered as waiting on that shard, so the database-wide NOTIFY lock is not taken on the hot
 * path. Polling with back-off remains as the fallback when a notification is missed (e.g. while
 * reconnecting).
 *
 * <p>Other services listen on the same connection ({@link #listen}: catalog changes, slice
 * crossings, leader resignations) rather than each holding a pooled connection of its own.
 * Handlers run on this thread and must only hand the payload over (set a flag, trigger a
 * service). Notifications sent while the connection was down are lost, so {@link
 * #onListening} callbacks run after every successful LISTEN, the first one included, for
 * services to resynchronise in full.
 *
 * <p>The same connection carries the instance's <b>session lock</b> ({@link #sessionLock}): a
 * session-level advisory lock keyed by the instance id, taken again after every reconnect, before
 * the {@link #onListening} callbacks run. The connection is kept for the instance's life, so the
 * lock is held exactly while the instance's connection to PostgreSQL is: when the JVM dies, the
 * operating system closes the socket, PostgreSQL ends the backend and the lock is gone at once,
 * and the other instances treat this one as dead for leases and enqueue ownership
 * ({@code shardq.live_instances}, migration V013) instead of waiting for the lease TTL. Needs a
 * session (not a transaction-pooling PgBouncer) for this connection, as LISTEN does.
 */
public final class Waker {
    private static final Logger LOG = LoggerFactory.getLogger(Waker.class);
    public static final String CHANNEL = "shardq_wake";

    private final DataSource dataSource;
    private final IntConsumer onDestination;
    private final String threadName;
    private final Map<String, Consumer<String>> handlers = new ConcurrentHashMap<>();
    private final List<Runnable> listeningCallbacks = new CopyOnWriteArrayList<>();
    private final AtomicLong connects = new AtomicLong();
    private volatile boolean running;
    private volatile long lockInstance = -1;
    private volatile boolean lockHeld;
    private Thread thread;

    public Waker(DataSource dataSource, IntConsumer onDestination, String threadName) {
        this.dataSource = dataSource;
        this.onDestination = onDestination;
        this.threadName = threadName;
    }

    /** Also LISTEN on {@code channel}; register before {@link #start()}. */
    public Waker listen(String channel, Consumer<String> handler) {
        handlers.put(channel, handler);
        return this;
    }

    /** Runs after every successful LISTEN (start and each reconnect); register before start. */
    public Waker onListening(Runnable callback) {
        listeningCallbacks.add(callback);
        return this;
    }

    /**
     * Also hold the session lock of instance {@code id} on the LISTEN connection (see the class
     * comment); register before start.
     */
    public Waker sessionLock(long id) {
        this.lockInstance = id;
        return this;
    }

    /** True while the LISTEN connection is open and holds the instance's session lock. */
    public boolean sessionLockHeld() {
        return lockHeld;
    }

    /** How many times the LISTEN connection was opened (1 after start, more after reconnects). */
    public long connects() {
        return connects.get();
    }

    public synchronized void start() {
        if (running) {
            return;
        }
        running = true;
        thread = new Thread(this::loop, threadName);
        thread.setDaemon(true);
        thread.start();
    }

    /** Safe to call twice and before start. */
    public synchronized void stop() {
        running = false;
        if (thread != null) {
            thread.interrupt();
            try {
                thread.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            thread = null;
        }
    }

    private void takeSessionLock(Connection c) throws SQLException {
        long id = lockInstance;
        if (id < 0) {
            return;
        }
        try (java.sql.PreparedStatement ps = c.prepareStatement(
                io.shardq.broker.internal.Queries.get(io.shardq.broker.internal.Query.INSTANCE_MARK_SESSION_LOCK))) {
            ps.setLong(1, id);
            ps.setLong(2, id);
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                lockHeld = rs.next();
            }
        }
        if (!lockHeld) {
            LOG.warn(
                    "{} - the session lock of instance {} is held elsewhere: liveness falls back to the TTL",
                    threadName,
                    id);
        }
    }

    /** Stopping: the pooled connection goes back to the pool, without the lock. */
    private void releaseSessionLock(Connection c) {
        if (!lockHeld) {
            return;
        }
        lockHeld = false;
        try (java.sql.PreparedStatement ps = c.prepareStatement(
                io.shardq.broker.internal.Queries.get(io.shardq.broker.internal.Query.INSTANCE_SESSION_UNLOCK))) {
            ps.setLong(1, lockInstance);
            ps.executeQuery().close();
        } catch (SQLException e) {
            LOG.debug("{} - could not release the session lock: {}", threadName, e.getMessage());
        }
    }

    private void loop() {
        long backoff = 100;
        while (running) {
            try (Connection c = dataSource.getConnection()) {
                takeSessionLock(c); // first: the LISTENs stay the connection's last statements (pg_stat_activity)
                try (Statement s = c.createStatement()) {
                    s.execute(Queries.withChannel(Query.INSTANCE_LISTEN, CHANNEL));
                    for (String channel : handlers.keySet()) {
                        s.execute(Queries.withChannel(Query.INSTANCE_LISTEN, channel));
                    }
                }
                PGConnection pg = c.unwrap(PGConnection.class);
                backoff = 100;
                connects.incrementAndGet();
                for (Runnable callback : listeningCallbacks) {
                    callback.run();
                }
                while (running) {
                    PGNotification[] notes = pg.getNotifications(100);
                    if (notes == null) {
                        continue;
                    }
                    for (PGNotification n : notes) {
                        String p = n.getParameter();
                        Consumer<String> handler = handlers.get(n.getName());
                        if (handler != null) {
                            handler.accept(p);
                            continue;
                        }
                        int slash = p.indexOf('/');
                        try {
                            onDestination.accept(Integer.parseInt(slash < 0 ? p : p.substring(0, slash)));
                        } catch (NumberFormatException e) {
                            LOG.debug("ignoring malformed wake-up {}", p);
                        }
                    }
                }
                releaseSessionLock(c);
            } catch (SQLException e) {
                lockHeld = false;
                if (!running) {
                    return;
                }
                LOG.warn(
                        "{} - wake-up listener lost its connection ({}); polling until it reconnects",
                        threadName,
                        e.getMessage());
                try {
                    Thread.sleep(backoff);
                } catch (InterruptedException ie) {
                    return;
                }
                backoff = Math.min(5000, backoff * 2);
            }
        }
    }
}
