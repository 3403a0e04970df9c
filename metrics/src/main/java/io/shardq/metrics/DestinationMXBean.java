package io.shardq.metrics;

/**
 * One queue or topic ({@code io.shardq:type=Destination,instance=ID,name=NAME}). The counters are
 * this instance's; backlog, age, scheduled and retirement come from the database (a snapshot, see
 * {@link ShardQMBeans}). A figure of a destination dropped since the last refresh reads -1.
 */
public interface DestinationMXBean {
    String getName();

    /** {@code queue} or {@code topic}. */
    String getKind();

    long getEnqueued();

    long getDequeued();

    long getRedelivered();

    long getDeadLettered();

    long getExpired();

    long getBacklog();

    long getOldestMessageAgeMillis();

    /** A queue's messages sent with a delivery delay and not due yet; -1 for a topic. */
    long getScheduled();

    /** Subscriptions of a topic holding back a slice's retirement; 0 for a queue. */
    long getRetirementHeldBy();
}
