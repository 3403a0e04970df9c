package io.shardq.jms;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.testing.PgTest;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import org.junit.jupiter.api.Test;

/** Through JMS: an expired message is never delivered, and reaches the queue's expiry queue with its story. */
@PgTest
class ExpiryQueueJmsTest extends JmsConnectionFixture {
    @Test
    void anExpiredMessage_isNotDelivered_andArrivesInTheExpiryQueueWithoutExpiration() throws Exception {
        Session s = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue q = s.createQueue("jms.expiring");
        factory.broker().admin().queues().createOrGet("jms.expiring", io.shardq.broker.QueueOptions.DEFAULTS);
        factory.broker().admin().setDeliveryPolicy("jms.expiring", "jms.expiring.expired", null, null);
        MessageProducer p = s.createProducer(q);
        p.setTimeToLive(5);
        TextMessage short_ = s.createTextMessage("short-lived");
        p.send(short_);
        long expiration = short_.getJMSExpiration();
        p.setTimeToLive(0);
        p.send(s.createTextMessage("lasting"));
        long deadline = System.currentTimeMillis() + 10_000;
        while (System.currentTimeMillis() <= expiration && System.currentTimeMillis() < deadline) {
            Thread.onSpinWait(); // until the first one's expiration has passed, by the clock the engine uses
        }
        MessageConsumer c = s.createConsumer(q);
        Message m = c.receive(30_000);
        assertThat(((TextMessage) m).getText()).isEqualTo("lasting");
        assertThat(c.receive(200)).isNull();

        MessageConsumer expired = s.createConsumer(s.createQueue("jms.expiring.expired"));
        Message e = expired.receive(30_000);
        assertThat(e).isNotNull();
        assertThat(((TextMessage) e).getText()).isEqualTo("short-lived");
        assertThat(e.getJMSExpiration()).isZero();
        assertThat(e.getLongProperty("JMS_ShardQ_ActualExpiry")).isEqualTo(expiration);
        assertThat(e.getStringProperty("JMS_ShardQ_OriginalDestination")).isEqualTo("jms.expiring");
        assertThat(e.getStringProperty("JMS_ShardQ_DeadLetterReason")).startsWith("expired at ");
    }
}
