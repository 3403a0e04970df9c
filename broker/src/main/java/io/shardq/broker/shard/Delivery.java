package io.shardq.broker.shard;

import io.shardq.broker.message.BrokerMessage;

/**
 * A message handed to a consumer. It always carries its body: the session reads a large body
 * that the cache kept out (one row, by slot and sequence number) before it builds the delivery,
 * while its claim still holds the cursor before the message.
 *
 * @param deliveryCount 1 on first delivery, more after rollback/recover
 * @param shard shard it came from (-1 for non-persistent messages)
 * @param seq its sequence number in the shard (0 for non-persistent messages)
 */
public record Delivery(String destination, BrokerMessage message, int deliveryCount, int shard, long seq) {}
