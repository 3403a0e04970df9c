package io.shardq.broker.delay;

import io.shardq.broker.internal.BackgroundService;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds committed NON_PERSISTENT messages sent with a delivery delay in this instance's memory
 * until they are due, then releases each one to its destination (the release is what a commit does
 * with an undelayed non-persistent message: queue it in memory, or give it to the topic's
 * subscriptions). A persistent delayed message waits in {@code shardq.scheduled_message} and is
 * moved by the maintenance leader; a non-persistent one never reaches PostgreSQL, so it waits here,
 * in the instance that sent it, and is lost if that instance stops first (which is what
 * non-persistent means).
 *
 * <p><b>Bound.</b> A held message keeps the room it reserved at send in the instance's
 * non-persistent memory ({@code shardq.non-persistent.max-bytes}) until it is consumed or
 * discarded, so held and deliverable non-persistent messages share one bound, and a send past it is
 * refused with {@code RESOURCE_EXHAUSTED} (ResourceAllocationException) as any non-persistent send.
 *
 * <p><b>Order.</b> Released by due time, then in the order they were held (so a session's messages
 * with one due time keep their send order).
 *
 * <p><b>Time and threading.</b> Due times are read from the instance's clock (tests inject one).
 * {@link #hold} is called by committing threads and wakes the service's thread only when the new
 * message is due before its planned wake-up; the thread waits until the earliest due time, at most
 * {@code maxWaitMillis} (so a clock moved by a test is seen within that), and runs the releases
 * outside the lock. Browsers and stats see a held message as scheduled ({@link #heldFor}), not as
 * waiting.
 */
public final class DelayedNonPersistent extends BackgroundService {
    private static final Logger LOG = LoggerFactory.getLogger(DelayedNonPersistent.class);

    /** One held message: its due time, its place in the holding order, its destination and what releases it. */
    private record Held(long deliverAt, long order, int destinationId, Runnable release) {}

    private final Clock clock;
    private final long maxWaitMillis;
    private final AtomicLong order = new AtomicLong();
    private final PriorityQueue<Held> held = new PriorityQueue<>((a, b) ->
            a.deliverAt != b.deliverAt ? Long.compare(a.deliverAt, b.deliverAt) : Long.compare(a.order, b.order));
    /** Held messages per destination id, for stats. */
    private final Map<Integer, AtomicLong> perDestination = new ConcurrentHashMap<>();
    /** When the thread plans to look next (clock millis); Long.MAX_VALUE while it waits without end. */
    private long plannedWake = Long.MIN_VALUE;

    /**
     * @param threadName {@code shardq-<instance>-np-delay-1}
     * @param maxWaitMillis longest wait between two looks at the clock
     */
    public DelayedNonPersistent(String threadName, Clock clock, long maxWaitMillis) {
        super(threadName);
        this.clock = clock;
        this.maxWaitMillis = Math.max(1, maxWaitMillis);
    }

    /**
     * Holds a committed message until {@code deliverAt}, then runs {@code release} on this
     * service's thread (a release that throws is logged; the message is then lost, as a
     * non-persistent message whose delivery failed).
     */
    public void hold(int destinationId, long deliverAt, Runnable release) {
        boolean wake;
        synchronized (held) {
            held.add(new Held(deliverAt, order.incrementAndGet(), destinationId, release));
            wake = deliverAt < plannedWake;
        }
        perDestination.computeIfAbsent(destinationId, k -> new AtomicLong()).incrementAndGet();
        if (wake) {
            trigger();
        }
    }

    /** Messages held for the destination {@code destinationId} now: scheduled, not yet deliverable. */
    public long heldFor(int destinationId) {
        AtomicLong n = perDestination.get(destinationId);
        return n == null ? 0 : n.get();
    }

    /** Messages held now, over all destinations. */
    public int size() {
        synchronized (held) {
            return held.size();
        }
    }

    @Override
    protected long runOnce() {
        long now = clock.millis();
        List<Held> due = new ArrayList<>();
        long wait;
        synchronized (held) {
            while (!held.isEmpty() && held.peek().deliverAt <= now) {
                due.add(held.poll());
            }
            wait = held.isEmpty() ? maxWaitMillis : Math.min(maxWaitMillis, held.peek().deliverAt - now);
            plannedWake = now + wait;
        }
        for (Held h : due) {
            perDestination.get(h.destinationId).decrementAndGet();
            try {
                h.release.run();
            } catch (RuntimeException e) {
                LOG.warn(
                        "{} - a delayed non-persistent message for destination {} was lost at its release: {}",
                        threadName(),
                        h.destinationId,
                        e.toString());
            }
        }
        return due.isEmpty() ? Math.max(1, wait) : 0; // after releases, look again at once
    }

    @Override
    protected void afterStop() {
        int lost;
        synchronized (held) {
            lost = held.size();
            held.clear();
        }
        perDestination.clear();
        if (lost > 0) {
            LOG.info(
                    "{} - {} delayed non-persistent messages not yet due were dropped with the instance",
                    threadName(),
                    lost);
        }
    }
}
