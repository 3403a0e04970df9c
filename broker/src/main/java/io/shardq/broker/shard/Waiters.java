package io.shardq.broker.shard;

import java.util.Iterator;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.locks.LockSupport;

/**
 * Consumers of one destination waiting for messages, woken one at a time.
 *
 * <p>A consumer registers, re-checks for work, then parks; whoever makes work available
 * (a commit of new messages, a claim given back, a non-persistent send) wakes as many waiters
 * as there is work for, instead of every waiter of the destination. Registering before the
 * re-check means no wake-up is lost: a wake that comes between the two finds the waiter
 * registered and unparks it (an unpark before park makes the park return at once).
 *
 * <p>Selective waiters (consumers with a selector) are all woken on any change: they may not
 * take what a change offers, so waking one of them does not stand for waking a consumer.
 */
final class Waiters {
    static final class Waiter {
        final Thread thread = Thread.currentThread();
        final boolean selective;
        volatile boolean woken;

        Waiter(boolean selective) {
            this.selective = selective;
        }
    }

    private final ConcurrentLinkedDeque<Waiter> queue = new ConcurrentLinkedDeque<>();

    Waiter register(boolean selective) {
        Waiter w = new Waiter(selective);
        queue.addLast(w);
        return w;
    }

    void unregister(Waiter w) {
        queue.remove(w);
    }

    /** Parks until woken or {@code nanos} passed. */
    static void park(Waiter w, long nanos) {
        long deadline = System.nanoTime() + nanos;
        while (!w.woken) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || Thread.currentThread().isInterrupted()) {
                return;
            }
            LockSupport.parkNanos(w, left);
        }
    }

    /** Wakes up to {@code n} plain waiters (oldest first) and every selective one. */
    void wake(long n) {
        long left = n;
        for (Iterator<Waiter> it = queue.iterator(); it.hasNext(); ) {
            Waiter w = it.next();
            if (w.woken) {
                continue;
            }
            if (w.selective || left > 0) {
                if (!w.selective) {
                    left--;
                }
                w.woken = true;
                queue.remove(w);
                LockSupport.unpark(w.thread);
            }
        }
    }

    void wakeAll() {
        wake(Long.MAX_VALUE);
    }

    int size() {
        return queue.size();
    }
}
