package io.shardq.broker;

/**
 * What this instance counted for one destination since it started serving it (its in-memory
 * runtime; the counts start again when the destination is dropped and created again). Every
 * instance counts its own: add them up across instances. No database read.
 *
 * @param kind {@code queue} or {@code topic}
 * @param enqueued messages this instance's sessions committed to it (persistent or not, with or
 *     without a delivery delay)
 * @param dequeued messages delivered by this instance whose consumption committed (a topic:
 *     over all its subscriptions served here)
 * @param redelivered deliveries of a message that had been delivered before (JMSRedelivered),
 *     whether or not they committed
 * @param deadLettered messages moved to the dead-letter queue after too many attempts
 * @param expired messages found expired at delivery (dropped or moved to the expiry queue)
 */
public record DestinationCounters(
        String name, String kind, long enqueued, long dequeued, long redelivered, long deadLettered, long expired) {}
