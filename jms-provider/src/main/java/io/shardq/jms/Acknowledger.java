package io.shardq.jms;

import jakarta.jms.JMSException;

/**
 * What {@link ShardQMessage#acknowledge()} calls on a received message. The session sets one on
 * each message it delivers ({@link ShardQMessage#setAcknowledger}); in AUTO, DUPS_OK and
 * transacted modes it is a no-op, in CLIENT_ACKNOWLEDGE it acknowledges every message the session
 * has consumed, and it throws {@link jakarta.jms.IllegalStateException} once the session is closed.
 */
@FunctionalInterface
interface Acknowledger {
    void acknowledge() throws JMSException;
}
