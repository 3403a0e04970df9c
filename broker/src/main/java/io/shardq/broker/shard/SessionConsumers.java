package io.shardq.broker.shard;

import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * A session's open consumers and the cursors they receive through, one {@link ConsumerCursor} per
 * subscription the session receives from: its consumers of that subscription, and its receives by
 * destination name, share it (as they share the session's transaction and its prefetch).
 *
 * <p><b>Invariants.</b> Each open consumer is counted once in its subscription's {@code
 * openConsumers} (flow control, the slowest subscriber) and uncounted exactly once, when it or the
 * session closes. A cursor with claims stays while the transaction holds them, even when its last
 * consumer closed: what the consumer delivered stays in the transaction. When the session's last
 * consumer of a subscription closes, its undelivered prefetch goes back to the shards.
 *
 * <p><b>Threading.</b> The session's thread only.
 */
final class SessionConsumers {
    private final Engine engine;
    private final Function<Subscription, ConsumerCursor> newCursor;
    private final List<BrokerConsumer> open = new ArrayList<>();
    private final Map<Subscription, ConsumerCursor> cursors = new LinkedHashMap<>();

    SessionConsumers(Engine engine, Function<Subscription, ConsumerCursor> newCursor) {
        this.engine = engine;
        this.newCursor = newCursor;
    }

    /** The session's cursor of {@code sub}, made at its first use. */
    ConsumerCursor cursor(Subscription sub) {
        return cursors.computeIfAbsent(sub, newCursor);
    }

    /** Every cursor (a live view): the commit plans and completes their claims. */
    Collection<ConsumerCursor> cursors() {
        return cursors.values();
    }

    /** The open consumers (a live view). */
    List<BrokerConsumer> open() {
        return open;
    }

    BrokerConsumer opened(BrokerConsumer c) {
        open.add(c);
        return c;
    }

    /** The subscription of a queue a consumer receives from ({@code INVALID_ARGUMENT} for a topic). */
    Subscription queue(String destination) {
        DestinationRuntime rt = engine.runtime(destination, true);
        if (!rt.info().isQueue()) {
            throw new ShardQException(
                    ErrorKind.INVALID_ARGUMENT,
                    destination + " is a topic: consume from it through a subscription (subscribe)");
        }
        return rt.queue();
    }

    /**
     * The topic subscription {@code spec} names, attached to or created following JMS's rules
     * ({@code INVALID_ARGUMENT} for a queue).
     */
    Subscription subscription(String topic, io.shardq.broker.SubscriptionSpec spec) {
        DestinationRuntime rt = engine.runtime(topic, true);
        if (rt.info().isQueue()) {
            throw new ShardQException(ErrorKind.INVALID_ARGUMENT, topic + " is a queue: subscriptions are for topics");
        }
        return engine.subscribe(rt, spec);
    }

    /** True when something was taken in the current transaction. */
    boolean hasTaken() {
        for (ConsumerCursor cursor : cursors.values()) {
            if (cursor.hasTaken()) {
                return true;
            }
        }
        return false;
    }

    /** True when a cursor holds a claim (taken or prefetched messages). */
    boolean holdsClaims() {
        for (ConsumerCursor cursor : cursors.values()) {
            if (!cursor.claims().isEmpty()) {
                return true;
            }
        }
        return false;
    }

    /**
     * A consumer closed: when no other open consumer of the session receives from its
     * subscription, what the session prefetched there and did not deliver goes back to the shards
     * (an idle session must not hold messages that other consumers could take). Delivered
     * messages stay in the transaction.
     */
    void closed(BrokerConsumer c, boolean sessionClosed) {
        if (open.remove(c) && c.subscription.openConsumers.decrementAndGet() == 0) {
            engine.lastConsumerClosed(c.subscription);
        }
        try {
            if (sessionClosed) {
                return;
            }
            for (BrokerConsumer other : open) {
                if (other.subscription == c.subscription) {
                    return;
                }
            }
            ConsumerCursor cursor = cursors.get(c.subscription);
            if (cursor != null) {
                cursor.giveBackUndelivered();
                if (cursor.claims().isEmpty()) {
                    cursors.remove(c.subscription);
                }
            }
        } finally {
            if (c.subscription.bit >= 0) {
                engine.unsubscribed(c.subscription);
            }
        }
    }

    /** The session closed: every open consumer is uncounted (a non-durable subscription goes with it). */
    void sessionClosed() {
        for (BrokerConsumer c : open) {
            if (c.subscription.openConsumers.decrementAndGet() == 0) {
                engine.lastConsumerClosed(c.subscription);
            }
            if (c.subscription.bit >= 0) {
                engine.unsubscribed(c.subscription); // a non-durable subscription goes with its consumer
            }
        }
        open.clear();
    }
}
