package io.shardq.broker.shard;

import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.message.BrokerMessage;
import java.util.function.BiConsumer;

/**
 * Where a session sends the messages it consumes without delivering them: one out of delivery
 * attempts to its destination's dead-letter queue, an expired one to its expiry queue (V011) or
 * nowhere, each with why and where from ({@link BrokerSession#DEAD_LETTER_REASON}, {@link
 * BrokerSession#ORIGINAL_DESTINATION}).
 *
 * <p><b>Invariants.</b> A message moved aside is sent in the transaction that consumes it, never
 * on its own: a persistent one is buffered as a dead letter, written with the commit's cursor
 * moves; a non-persistent one is offered with the consumption ({@link NonPersistentWork}). So a
 * rollback undoes both the consumption and the move, and nothing is lost or duplicated.
 *
 * <p><b>Threading.</b> The session's thread only.
 */
final class DeadLetters {
    private final Engine engine;
    /** Buffers a persistent dead letter in the session's transaction. */
    private final BiConsumer<DestinationRuntime, BrokerMessage> persistent;

    private final NonPersistentWork nonPersistent;

    DeadLetters(Engine engine, BiConsumer<DestinationRuntime, BrokerMessage> persistent, NonPersistentWork np) {
        this.engine = engine;
        this.persistent = persistent;
        this.nonPersistent = np;
    }

    static boolean expired(BrokerMessage m) {
        return m.expiration() > 0 && m.expiration() < System.currentTimeMillis();
    }

    /**
     * A message found expired at delivery: consumed, and sent to the destination's expiry queue in
     * the same transaction when it has one (V011), with the properties a dead letter has.
     */
    void expire(DestinationRuntime rt, BrokerMessage m, boolean persistent) {
        DestinationInfo d = rt.info();
        engine.stats().expired.increment();
        rt.expired.increment();
        if (d.expiryName() == null) {
            return; // dropped
        }
        // kept there without an expiration, or it would expire again at once; when it expired is a property
        BrokerMessage expired = m.withoutExpiration().withProperty(BrokerSession.ACTUAL_EXPIRY, m.expiration());
        sendAside(
                d, d.expiryName(), expired, "expired at " + java.time.Instant.ofEpochMilli(m.expiration()), persistent);
    }

    /** A message out of delivery attempts: consumed, and sent to the destination's dead-letter queue. */
    void deadLetter(DestinationRuntime rt, BrokerMessage m, int attempts, boolean persistent) {
        DestinationInfo d = rt.info();
        sendAside(
                d,
                d.deadLetterQueue(),
                m,
                "delivery failed " + attempts + " times; " + d.name() + " allows " + d.maxAttempts() + " attempts",
                persistent);
        engine.stats().deadLettered.increment();
        rt.deadLettered.increment();
    }

    /**
     * Sends a message this transaction consumes to another queue (dead-letter or expiry), with
     * why and where from, in the same transaction: a persistent one with the commit, a
     * non-persistent one released with the consumption.
     */
    private void sendAside(DestinationInfo from, String queue, BrokerMessage m, String reason, boolean persistent) {
        DestinationRuntime target = engine.deadLetterRuntime(queue);
        BrokerMessage aside = m.withProperty(BrokerSession.DEAD_LETTER_REASON, reason)
                .withProperty(BrokerSession.ORIGINAL_DESTINATION, from.name());
        if (persistent) {
            this.persistent.accept(target, aside);
        } else {
            nonPersistent.sendAside(target, aside);
        }
    }
}
