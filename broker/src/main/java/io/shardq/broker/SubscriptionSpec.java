package io.shardq.broker;

/**
 * Which topic subscription a consumer wants, with JMS 3.1's identities (see
 * docs/design/topics.md):
 *
 * <ul>
 *   <li>{@link Kind#DURABLE}: (client id, name), the client id required; one consumer at a time;
 *   <li>{@link Kind#SHARED_DURABLE}: (client id if set, name); any number of consumers, across
 *       connections and instances, each message to one of them;
 *   <li>{@link Kind#SHARED}: like shared durable, deleted with its last consumer;
 *   <li>{@link Kind#NON_DURABLE}: the consumer's own, deleted when it closes ({@code name} is
 *       ignored).
 * </ul>
 *
 * @param selector the subscription's message selector (applied once per message at publish), or
 *     null
 * @param noLocal leave out messages published by this subscriber's own connection (durable: by
 *     any connection with its client id)
 * @param connectionId the id of the JMS connection that opens the consumer (noLocal for
 *     non-durable subscribers)
 */
public record SubscriptionSpec(
        Kind kind, String name, String clientId, String selector, boolean noLocal, String connectionId) {

    public enum Kind {
        DURABLE,
        SHARED_DURABLE,
        SHARED,
        NON_DURABLE;

        public boolean durable() {
            return this == DURABLE || this == SHARED_DURABLE;
        }

        public boolean shared() {
            return this == SHARED || this == SHARED_DURABLE;
        }
    }
}
