package io.shardq.metrics;

/**
 * One subscription of a topic ({@code io.shardq:type=Subscription,instance=ID,destination=TOPIC,name=NAME}),
 * from {@code shardq.subscriptions(topic)} in the snapshot; -1 once it is gone.
 */
public interface SubscriptionMXBean {
    String getTopic();

    String getName();

    /** {@code durable}, {@code shared durable}, {@code shared} or {@code non-durable}. */
    String getKind();

    long getLag();

    long getOldestAgeMillis();

    long getConsumers();

    boolean isHoldingRetirement();

    long getExpired();
}
