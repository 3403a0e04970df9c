package io.shardq.broker.shard;

import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.selector.Selector;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * One session's non-persistent messages in its current transaction: those it sent, those it took
 * from a subscription's memory, and the dead letters and expired messages it moved aside. They
 * live only in this instance's memory and never reach PostgreSQL (see "The message cache").
 *
 * <p><b>Invariants.</b> Every message held here has its room reserved in the instance's
 * non-persistent bound ({@code shardq.non-persistent.max-bytes}) and gives it back exactly once: a
 * sent one when it is discarded, or passes its reservation to the subscription it is offered to at
 * commit; a taken one when its consumption commits, or is offered back (one more attempt when it
 * was delivered) when the transaction rolls back. A message is never in two of these lists.
 *
 * <p><b>Threading.</b> The session's thread only; the subscriptions' queues it takes from and
 * offers to are concurrent.
 */
final class NonPersistentWork {
    private record Send(DestinationRuntime rt, BrokerMessage message) {}

    /** A message taken from a subscription: delivered, or expired or dead-lettered on the way. */
    record Taken(Subscription sub, Subscription.NpEntry entry, boolean delivered) {}

    private final Engine engine;
    private final List<Send> sent = new ArrayList<>();
    /** Delivered (or dead-lettered, expired) and not yet acknowledged. */
    private final List<Taken> taken = new ArrayList<>();
    /** Dead letters and expired messages moved aside: released with the consumption that produced them. */
    private final List<Send> aside = new ArrayList<>();

    NonPersistentWork(Engine engine) {
        this.engine = engine;
    }

    /** True while there are sends or takes to commit (dead letters go with the takes). */
    boolean hasWork() {
        return !sent.isEmpty() || !taken.isEmpty();
    }

    /** Buffers a send, reserving its room ({@code RESOURCE_EXHAUSTED} when the bound is reached). */
    void send(DestinationRuntime rt, BrokerMessage message) {
        if (!engine.reserveNonPersistent(message, false)) {
            throw new ShardQException(
                    ErrorKind.RESOURCE_EXHAUSTED,
                    "cannot hold another non-persistent message for "
                            + rt.info().name()
                            + ": this instance holds " + engine.stats().nonPersistentBytes()
                            + " bytes of them ("
                            + engine.delayedNonPersistent().size()
                            + " held until their delivery delay passes), the bound is"
                            + " shardq.non-persistent.max-bytes = "
                            + engine.settings().nonPersistentMaxBytes());
        }
        sent.add(new Send(rt, message));
    }

    /** A consumed message moved to a dead-letter or expiry queue: offered there with the consumption. */
    void sendAside(DestinationRuntime target, BrokerMessage message) {
        engine.reserveNonPersistent(message, true);
        aside.add(new Send(target, message));
    }

    /**
     * The next non-persistent message of {@code sub} (matching the selector), taken from its
     * memory; an expired one or one out of attempts is moved aside through {@code deadLetters} and
     * returned as not delivered. Null when there is none.
     */
    Taken take(Subscription sub, Selector selector, DeadLetters deadLetters) {
        DestinationRuntime rt = sub.destination;
        for (Subscription.NpEntry e : sub.nonPersistent) {
            if (selector != null && !selector.matches(e.message)) {
                continue;
            }
            if (!sub.nonPersistent.remove(e)) {
                continue; // another session took it
            }
            Taken t;
            if (DeadLetters.expired(e.message)) {
                deadLetters.expire(rt, e.message, false);
                t = new Taken(sub, e, false);
            } else if (e.attempts >= rt.info().maxAttempts()) {
                deadLetters.deadLetter(rt, e.message, e.attempts, false);
                t = new Taken(sub, e, false);
            } else {
                t = new Taken(sub, e, true);
            }
            taken.add(t);
            return t;
        }
        return null;
    }

    /** The sends committed: they become deliverable (their room was reserved when buffered). */
    void sendsCommitted(TopicView.Origin origin) {
        offerAll(sent, origin);
    }

    /** The consumption committed: the messages moved aside are offered there. */
    void asideCommitted(TopicView.Origin origin) {
        offerAll(aside, origin);
    }

    /** The consumption committed: the taken messages' room goes back. Returns how many were delivered. */
    long takesCommitted() {
        long delivered = 0;
        for (Taken t : taken) {
            engine.releaseNonPersistent(t.entry().message);
            if (t.delivered()) {
                delivered++;
                t.sub().destination.dequeued.increment();
            }
        }
        taken.clear();
        return delivered;
    }

    /** The sends were not committed: their room goes back. */
    void discardSends() {
        discard(sent);
    }

    /**
     * The consumption rolled back: what was moved aside is dropped, what was taken is offered back,
     * a delivered one with one more attempt when {@code countAttempts}.
     */
    void takesRolledBack(boolean countAttempts) {
        discard(aside);
        for (int i = taken.size() - 1; i >= 0; i--) {
            Taken t = taken.get(i);
            int attempts = t.entry().attempts + (countAttempts && t.delivered() ? 1 : 0);
            t.sub().offerNonPersistent(new Subscription.NpEntry(t.entry().message, attempts), true);
        }
        taken.clear();
    }

    /** The transaction's outcome is not this session's to see: everything held goes, its room back. */
    void forget() {
        discard(sent);
        discard(aside);
        for (Taken t : taken) {
            engine.releaseNonPersistent(t.entry().message);
        }
        taken.clear();
    }

    private void offerAll(List<Send> sends, TopicView.Origin origin) {
        for (Send np : sends) {
            if (np.message().deliverAt() > engine.clock().millis()) { // delayed: held until due
                engine.delayedNonPersistent()
                        .hold(
                                np.rt().info().id(),
                                np.message().deliverAt(),
                                () -> offerAll(new ArrayList<>(List.of(np)), origin));
                continue;
            }
            np.rt().enqueued.increment();
            if (np.rt().info().isQueue()) {
                np.rt().queue().offerNonPersistent(new Subscription.NpEntry(np.message(), 0), false);
            } else {
                offerToSubscriptions(np.rt(), np.message(), origin);
            }
        }
        sends.clear();
    }

    /**
     * A non-persistent topic message goes to the subscriptions this instance serves whose
     * selector (and noLocal) wants it, one copy each; nobody else ever sees it (see "Topics").
     */
    private void offerToSubscriptions(DestinationRuntime rt, BrokerMessage m, TopicView.Origin origin) {
        TopicView view = rt.currentTopicView();
        if (view == null) {
            try (Connection c = engine.borrowConnection()) {
                view = rt.topicView(c);
            } catch (SQLException | RuntimeException e) {
                view = null; // the subscriptions cannot be read: nobody gets it (non-persistent: at most once)
            }
        }
        byte[] bits = view == null ? null : view.bitmap(m, origin);
        boolean reserved = true; // the first copy uses the room reserved at send
        if (bits != null) {
            BrokerMessage stamped = m.withSubscribers(bits);
            for (Subscription sub : rt.subscriptions()) {
                if (sub.wants(stamped)) {
                    if (!reserved) {
                        engine.reserveNonPersistent(stamped, true);
                    }
                    reserved = false;
                    sub.offerNonPersistent(new Subscription.NpEntry(stamped, 0), false);
                }
            }
        }
        if (reserved) {
            engine.releaseNonPersistent(m);
        }
    }

    private void discard(List<Send> sends) {
        for (Send np : sends) {
            engine.releaseNonPersistent(np.message());
        }
        sends.clear();
    }
}
