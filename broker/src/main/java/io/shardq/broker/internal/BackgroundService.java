package io.shardq.broker.internal;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A background job with its own lifecycle, after River's {@code startstop} services: {@link
 * #start()} starts one named daemon thread, {@link #stop()} ends it and waits for it; both are
 * idempotent, and {@code stop()} is safe before {@code start()}. A stopped service is not
 * restarted.
 *
 * <p>The thread runs {@link #runOnce()} in a loop; it returns how long to wait before the next
 * round, and {@link #trigger()} cuts that wait short (a NOTIFY arrived, a cursor crossed a
 * slice). A round that throws is logged and the loop goes on: each round must be independent,
 * so a database that is briefly gone costs rounds, not the service. The wait is on a condition,
 * never a sleep, so {@code stop()} and {@code trigger()} take effect at once.
 */
public abstract class BackgroundService {
    private static final Logger LOG = LoggerFactory.getLogger(BackgroundService.class);

    private final String threadName;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition wake = lock.newCondition();
    private boolean triggered;
    private boolean started;
    private volatile boolean stopped;
    private Thread thread;
    private long failures;

    /** @param threadName {@code shardq-<instance>-<role>-<n>} */
    protected BackgroundService(String threadName) {
        this.threadName = threadName;
    }

    public final String threadName() {
        return threadName;
    }

    /** Starts the thread; does nothing if started or stopped already. */
    public final void start() {
        lock.lock();
        try {
            if (started || stopped) {
                return;
            }
            started = true;
            thread = new Thread(this::loop, threadName);
            thread.setDaemon(true);
            thread.start();
        } finally {
            lock.unlock();
        }
    }

    /** Ends the thread, waits for it (up to 10 s), then runs {@link #afterStop()} once. */
    public final void stop() {
        Thread t;
        lock.lock();
        try {
            if (stopped) {
                return;
            }
            stopped = true;
            t = thread;
            wake.signalAll();
        } finally {
            lock.unlock();
        }
        if (t != null) {
            t.interrupt();
            try {
                t.join(TimeUnit.SECONDS.toMillis(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        afterStop();
    }

    public final boolean isRunning() {
        Thread t = thread;
        return !stopped && t != null && t.isAlive();
    }

    /** Runs the next round now instead of after the wait. Cheap; callable from any thread. */
    public final void trigger() {
        lock.lock();
        try {
            triggered = true;
            wake.signal();
        } finally {
            lock.unlock();
        }
    }

    protected final boolean isStopping() {
        return stopped;
    }

    /** One round of work; returns the wait in milliseconds before the next one. */
    protected abstract long runOnce() throws Exception;

    /** Called once by {@link #stop()} after the thread has ended (e.g. give back what it held). */
    protected void afterStop() {}

    private void loop() {
        while (!stopped) {
            long waitMillis;
            try {
                waitMillis = runOnce();
                failures = 0;
            } catch (InterruptedException e) {
                return;
            } catch (Exception e) {
                if (stopped) {
                    return;
                }
                if (failures++ % 30 == 0) {
                    LOG.warn("{} - round failed (retrying): {}", threadName, e.toString());
                }
                waitMillis = 1000;
            }
            if (!await(waitMillis)) {
                return;
            }
        }
    }

    /** Waits until the delay passed or a trigger came; false when stopping. */
    private boolean await(long millis) {
        long nanos = TimeUnit.MILLISECONDS.toNanos(Math.max(0, millis));
        lock.lock();
        try {
            while (!triggered && !stopped && nanos > 0) {
                nanos = wake.awaitNanos(nanos);
            }
            triggered = false;
            return !stopped;
        } catch (InterruptedException e) {
            return false;
        } finally {
            lock.unlock();
        }
    }
}
