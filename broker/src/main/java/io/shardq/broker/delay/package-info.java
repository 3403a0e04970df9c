/**
 * Delivery delay for messages that never reach PostgreSQL: {@link
 * io.shardq.broker.delay.DelayedNonPersistent} holds a committed non-persistent message sent with a
 * delay in the sending instance's memory until it is due. Persistent delayed messages wait in
 * {@code shardq.scheduled_message} instead (the shard package's {@code ScheduledMover}).
 */
package io.shardq.broker.delay;
