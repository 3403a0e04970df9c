package io.shardq.broker.browse;

import io.shardq.broker.message.BrokerMessage;

/**
 * A message seen by a {@link BrowseCursor}, not consumed.
 *
 * @param shard the shard it is stored in; {@link MemorySource#SHARD} for a message kept in memory only
 * @param seq its sequence number in the shard (0 for a message kept in memory only)
 * @param enqueuedAt epoch millis when it was written
 */
public record BrowsedMessage(int shard, long seq, long enqueuedAt, BrokerMessage message) {}
