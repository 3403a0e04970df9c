package io.shardq.broker.instance;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.function.IntConsumer;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Receives cross-instance wake-ups: LISTEN {@code shardq_wake} on a connection of its own and
 * hands each {@code <destination>/<shard>} payload to the runtime. Producers send the NOTIFY at
 * commit only when a consumer of another instance registered as waiting on that shard, so the
 * database-wide NOTIFY lock is not taken on the hot path. Polling with back-off remains as the
 * fallback when a notification is missed (e.g. while reconnecting).
 */
public final class Waker {
    private static final Logger LOG = LoggerFactory.getLogger(Waker.class);
    public static final String CHANNEL = "shardq_wake";

    private final DataSource dataSource;
    private final IntConsumer onDestination;
    private final String threadName;
    private volatile boolean running;
    private Thread thread;

    public Waker(DataSource dataSource, IntConsumer onDestination, String threadName) {
        this.dataSource = dataSource;
        this.onDestination = onDestination;
        this.threadName = threadName;
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

    private void loop() {
        long backoff = 100;
        while (running) {
            try (Connection c = dataSource.getConnection()) {
                try (Statement s = c.createStatement()) {
                    s.execute("LISTEN " + CHANNEL);
                }
                PGConnection pg = c.unwrap(PGConnection.class);
                backoff = 100;
                while (running) {
                    PGNotification[] notes = pg.getNotifications(100);
                    if (notes == null) {
                        continue;
                    }
                    for (PGNotification n : notes) {
                        String p = n.getParameter();
                        int slash = p.indexOf('/');
                        try {
                            onDestination.accept(Integer.parseInt(slash < 0 ? p : p.substring(0, slash)));
                        } catch (NumberFormatException e) {
                            LOG.debug("ignoring malformed wake-up {}", p);
                        }
                    }
                }
            } catch (SQLException e) {
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
