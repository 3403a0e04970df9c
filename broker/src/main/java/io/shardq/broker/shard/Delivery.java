package io.shardq.broker.shard;

import io.shardq.broker.message.BrokerMessage;

/**
 * A message handed to a consumer. It always carries its body: a large body that the cache kept
 * out is read here (one row, by slot and sequence number), while the consumer's claim still holds
 * the cursor before the message, so its slot cannot have been retired yet. An AUTO_ACKNOWLEDGE
 * receive commits before the caller converts the message; reading the body later could find the
 * slot truncated.
 *
 * @param deliveryCount 1 on first delivery, more after rollback/recover
 * @param shard shard it came from (-1 for non-persistent messages)
 * @param seq its sequence number in the shard (0 for non-persistent messages)
 */
public record Delivery(String destination, BrokerMessage message, int deliveryCount, int shard, long seq) {
    public Delivery {
        message = message.withBodyLoaded();
    }
}
