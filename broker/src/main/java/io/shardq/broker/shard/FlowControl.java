package io.shardq.broker.shard;

import java.util.concurrent.TimeUnit;

/**
 * Producer flow control for one {@link Subscription} as this instance serves it: after a
 * producer's commit, while the subscription's local consumers are all at work and more messages
 * wait untaken than the bound, the producer waits for them ({@link #throttle}), at most {@code
 * shardq.flow.max-wait-ms}; each range a consumer takes ({@link #rangeTaken}) lets waiting
 * producers look again.
 *
 * <p>Invariants: it only ever delays a producer whose messages are already committed and visible,
 * never refuses or reorders them; the bound is never below two prefetch ranges per open consumer
 * (less would starve the consumers, not help them); a consumer that waits (nothing it can take)
 * stops the control at once. Threading: producers wait on {@code flow}, re-checking every 10 ms
 * (consumers may stop without taking anything); a taker signals only when some producer waits
 * ({@code flowWaiting}), so the receive path takes no monitor otherwise.
 */
final class FlowControl {
    private final Subscription sub;
    /** nanoTime of the last range a consumer took (flow control: are consumers at work?). */
    private volatile long lastTakeNanos = System.nanoTime() - TimeUnit.DAYS.toNanos(1);
    /** Producers held back by flow control wait on this; their number, so takers signal only then. */
    private final Object flow = new Object();

    private volatile int flowWaiting;

    FlowControl(Subscription sub) {
        this.sub = sub;
    }

    /** nanoTime of the last range a consumer of the subscription took here. */
    long lastTakeNanos() {
        return lastTakeNanos;
    }

    /** A consumer took a range: flow control's producers may go on. */
    void rangeTaken() {
        lastTakeNanos = System.nanoTime();
        if (flowWaiting > 0) {
            synchronized (flow) {
                flow.notifyAll();
            }
        }
    }

    /**
     * Flow control's condition: every local consumer is at work and more wait untaken than the
     * bound, which is the setting but never less than two prefetch ranges per open consumer (what
     * keeps each consumer's next range ready; a smaller bound would starve consumers, not help them).
     */
    private boolean consumersBehind(long max) {
        long active = TimeUnit.MILLISECONDS.toNanos(sub.engine.settings().flowConsumerActiveMillis());
        long bound = Math.max(max, 2L * sub.engine.settings().prefetch() * sub.openConsumers.get());
        return sub.waiters.size() == 0 && System.nanoTime() - lastTakeNanos < active && sub.untaken() > bound;
    }

    /**
     * Producer flow control, after a producer's commit (its messages are durable and visible
     * already): while this instance's consumers of the destination are all at work (none waiting,
     * one took a range within {@code shardq.flow.consumer-active-ms}) and more than {@code
     * shardq.flow.max-untaken} committed
     * messages wait untaken in its shards, the producer waits for the consumers, at most {@code
     * shardq.flow.max-wait-ms}. So when consumers cannot keep up, producers are slowed to their
     * pace instead of growing a backlog that every later message waits behind (the end-to-end
     * tail of a saturated instance). A queue without active local consumers buffers as before;
     * a consumer that waits (nothing it can take, a selector matching nothing) stops the control.
     */
    void throttle() {
        long max = sub.engine.settings().flowMaxUntaken(sub.destination.info().isQueue());
        if (max <= 0) {
            return;
        }
        if (!consumersBehind(max)) {
            return;
        }
        long start = System.nanoTime();
        long deadline =
                start + TimeUnit.MILLISECONDS.toNanos(sub.engine.settings().flowMaxWaitMillis());
        sub.engine.stats().flowHeld.incrementAndGet();
        synchronized (flow) {
            flowWaiting++;
            try {
                while (consumersBehind(max)) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        break;
                    }
                    // re-checked every 10 ms as well: consumers may stop without taking anything
                    TimeUnit.NANOSECONDS.timedWait(flow, Math.min(left, TimeUnit.MILLISECONDS.toNanos(10)));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                flowWaiting--;
            }
        }
        sub.engine.stats().flowHeld.decrementAndGet();
        sub.engine.stats().flowWaits.increment();
        sub.engine.stats().flowWaitNanos.add(System.nanoTime() - start);
    }
}
